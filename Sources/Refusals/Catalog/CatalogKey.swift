import SafetyCore

/// The dotted path of one catalog message, e.g. `refusal.violence` or `errors.timeout.afterEmergency`.
///
/// Code only ever asks for keys built here, and the schema is built from the same functions, so
/// a key the code uses is a key every catalog must have.
struct CatalogKey: Hashable, Sendable, CustomStringConvertible {
    let path: String

    init(_ path: String) { self.path = path }

    var description: String { path }

    static func refusal(_ type: RefusalType) -> CatalogKey { CatalogKey("refusal.\(type.rawValue)") }
    static let offTopic = CatalogKey("offTopic")
    static let offTopicNoScope = CatalogKey("offTopicNoScope")
    static let emergencyOpening = CatalogKey("emergency.opening")
    static let emergencyClosing = CatalogKey("emergency.closing")

    static let crisisHeading = CatalogKey("crisis.heading")
    static let crisisHeadingUnknown = CatalogKey("crisis.headingUnknown")
    static let crisisHours24 = CatalogKey("crisis.hours24")
    static let crisisCall = CatalogKey("crisis.call")
    static let crisisOr = CatalogKey("crisis.or")
    static let crisisText = CatalogKey("crisis.text")
    static let crisisTextKeyword = CatalogKey("crisis.textKeyword")
    static let crisisChat = CatalogKey("crisis.chat")
    static let crisisWeb = CatalogKey("crisis.web")
    static let crisisEmail = CatalogKey("crisis.email")
    static let crisisLanguageNote = CatalogKey("crisis.languageNote")
    static func languageName(_ code: String) -> CatalogKey { CatalogKey("languageNames.\(code)") }

    static func errorTitle(_ code: String) -> CatalogKey { CatalogKey("errors.\(code).title") }
    static func errorMessage(_ code: String) -> CatalogKey { CatalogKey("errors.\(code).message") }
    static func errorMessage(_ code: String, in context: ErrorContext) -> CatalogKey {
        context == .general ? errorMessage(code) : CatalogKey("errors.\(code).\(context.rawValue)")
    }
    static let rateLimitedRetryAfter = CatalogKey("errors.rateLimited.retryAfter")
    /// The way out of an `unchecked` error: shorten the message, or rephrase it.
    static let uncheckedTooLong = CatalogKey("errors.unchecked.tooLong")
    static let uncheckedSearchLimit = CatalogKey("errors.unchecked.searchLimit")

    static func recoveryLabel(_ name: String) -> CatalogKey { CatalogKey("recovery.\(name).label") }
    static func recoveryKey(_ name: String) -> CatalogKey { CatalogKey("recovery.\(name).key") }

    static func uiLabel(_ label: SafetyClassification.Label) -> CatalogKey { CatalogKey("ui.labels.\(label.rawValue)") }
    static func uiType(_ type: RefusalType) -> CatalogKey { CatalogKey("ui.types.\(type.rawValue)") }
    static let uiBadge = CatalogKey("ui.badge")
    static let uiDegraded = CatalogKey("ui.degraded")
    static let uiOptions = CatalogKey("ui.options")
    static let uiChoose = CatalogKey("ui.choose")
    static let uiFileLine = CatalogKey("ui.fileLine")
}

/// What each catalog key may and must contain.
///
/// Required placeholders matter for safety, not just style: a translation of `crisis.call` that
/// dropped `{numbers}` would show a crisis line without its number.
struct CatalogSchema: Sendable {
    struct Spec: Sendable {
        /// Placeholders the message may use.
        var allowed: Set<String>
        /// Placeholders the message must use.
        var required: Set<String>
        /// Whether every catalog must have the key.
        var isRequired: Bool
    }

    let specs: [String: Spec]

    /// Keys under this prefix may be present, with no placeholders (e.g. `languageNames.de`).
    static let openPrefixes = ["languageNames."]

    static let standard: CatalogSchema = {
        var specs: [String: Spec] = [:]
        func add(_ key: CatalogKey, _ placeholders: Set<String> = [], required: Bool = true) {
            specs[key.path] = Spec(allowed: placeholders, required: placeholders, isRequired: required)
        }
        for type in RefusalType.allCases { add(.refusal(type)) }
        add(.offTopic, ["assistant", "helpsWith"])
        add(.offTopicNoScope, ["assistant"])
        add(.emergencyOpening)
        add(.emergencyClosing)

        add(.crisisHeading, ["region"])
        add(.crisisHeadingUnknown)
        add(.crisisHours24)
        add(.crisisCall, ["numbers"])
        add(.crisisOr)
        add(.crisisText, ["number"])
        add(.crisisTextKeyword, ["keyword", "number"])
        add(.crisisChat, ["url"])
        add(.crisisWeb, ["url"])
        add(.crisisEmail, ["address"])
        add(.crisisLanguageNote, ["languages"])

        for code in GatewayError.Kind.allCodes {
            let placeholders: Set<String> =
                switch code {
                case "invalidInput": ["reason"]
                case "configuration": ["location", "reason"]
                case "unchecked": ["advice"]
                default: []
                }
            add(.errorTitle(code))
            add(.errorMessage(code), placeholders)
            for context in ErrorContext.allCases where context != .general {
                add(.errorMessage(code, in: context), placeholders, required: false)
            }
        }
        add(.rateLimitedRetryAfter, ["seconds"])
        add(.uncheckedTooLong, ["limit"])
        add(.uncheckedSearchLimit)

        for name in RecoveryAction.allNames {
            add(.recoveryLabel(name), name == "openSettings" ? ["path"] : [])
            add(.recoveryKey(name))
        }

        for label in SafetyClassification.Label.allCases { add(.uiLabel(label)) }
        for type in RefusalType.allCases { add(.uiType(type)) }
        add(.uiBadge, ["label", "type"])
        add(.uiDegraded)
        add(.uiOptions)
        add(.uiChoose)
        add(.uiFileLine, ["file", "line"])
        return CatalogSchema(specs: specs)
    }()

    /// The spec for `path`, or `nil` when the key is unknown.
    func spec(for path: String) -> Spec? {
        if let spec = specs[path] { return spec }
        for prefix in Self.openPrefixes where path.hasPrefix(prefix) {
            let rest = path.dropFirst(prefix.count)
            if (2...3).contains(rest.count), rest.allSatisfy({ $0.isASCII && $0.isLowercase }) {
                return Spec(allowed: [], required: [], isRequired: false)
            }
        }
        return nil
    }

    /// The keys every catalog must have, sorted.
    var requiredKeys: [String] { specs.filter(\.value.isRequired).keys.sorted() }
}
