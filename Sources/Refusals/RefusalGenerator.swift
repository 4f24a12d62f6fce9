public import SafetyCore

/// The assistant a refusal speaks for: its name and what it helps with, per language.
/// Profiles supply it; the `offTopic` redirect names both.
///
/// ```swift
/// let calendar = AssistantIdentity(
///     displayName: "Takvim",
///     helpsWith: [.en: "your calendar: events, reminders and free time",
///                 .tr: "takviminiz: etkinlikler, hatırlatıcılar ve boş zamanlar"])
/// ```
public struct AssistantIdentity: Sendable, Hashable {
    public var displayName: String
    /// What the assistant helps with, as a noun phrase per language.
    public var helpsWith: [Language: String]

    public init(displayName: String, helpsWith: [Language: String]) {
        self.displayName = displayName
        self.helpsWith = helpsWith
    }
}

/// What safegate says instead of forwarding a prompt: a refusal, an off-topic redirect or an
/// emergency reply, with the crisis resources it lists.
public struct Reply: Sendable, Hashable {
    public enum Kind: Sendable, Hashable {
        case refusal(RefusalType)
        case offTopic
        case emergency
    }

    public var kind: Kind
    /// The language the reply is written in.
    public var language: Language
    /// The reply, ready for a terminal: placeholder values are escaped, line breaks are the
    /// catalog's own.
    public var text: String
    /// The crisis resources listed in `text`, in order; empty unless `emergency` or a `selfHarm` refusal.
    public var resources: [CrisisService]
    /// The region the resources are for (`*` when the region was unknown); `nil` without resources.
    public var region: String?

    /// The contract's `resources` array: one object per listed service.
    public var resourcesJSON: JSONText.Value { .array(resources.map { $0.json(in: language) }) }

    /// The context for an error on the turn after this reply: `afterEmergency` when the reply
    /// listed crisis resources (they stay on screen, and the error message says they still
    /// work), `smallTalk` otherwise.
    public var errorContextForNextTurn: ErrorContext { resources.isEmpty ? .smallTalk : .afterEmergency }
}

/// Answers `harmful(type)`, `offTopic` and `emergency` from the catalogs, lists crisis resources
/// for a region, and presents errors — all offline, with no backend.
///
/// ```swift
/// let refusals = try RefusalGenerator.bundled()          // GatewayError.configuration on bad data
/// let resolver = LocaleResolver()
/// let env = LocaleResolver.environmentLocale(console.environment)
/// let language = resolver.language(detected: decision.lang, locale: options.locale, environment: env)
/// let region = resolver.region(flag: options.region, locale: options.locale, environment: env)
/// if let reply = refusals.reply(to: decision.classification, language: language, region: region, assistant: profile.identity) {
///     print(reply.text)                                  // refusal, redirect or crisis message
/// }
/// ```
public struct RefusalGenerator: Sendable {
    public let catalogs: CatalogSet
    public let directory: CrisisDirectory

    /// A generator over loaded catalogs and crisis data. Fails when a catalog mentions a number
    /// on the data's `do_not_use` list.
    public init(catalogs: CatalogSet, directory: CrisisDirectory) throws(GatewayError) {
        for catalog in catalogs.catalogs.values.sorted(by: { $0.file < $1.file }) {
            for key in catalog.keys {
                let text = catalog.text(CatalogKey(key))
                if let forbidden = directory.forbiddenNumbers(in: text).first {
                    throw .configuration(
                        file: catalog.file, line: nil,
                        reason: "\(key) mentions \(forbidden.number), which must never be shown: \(forbidden.why)")
                }
            }
        }
        self.catalogs = catalogs
        self.directory = directory
    }

    /// The catalogs and crisis data compiled into the binary.
    public static func bundled() throws(GatewayError) -> RefusalGenerator {
        try RefusalGenerator(catalogs: .bundled(), directory: .bundled())
    }

    func catalog(_ language: Language) -> Catalog { catalogs.catalog(for: language) }

    /// The reply for a classification, or `nil` for `safe` (which goes to the language model).
    public func reply(
        to classification: SafetyClassification, language: Language, region: String?, assistant: AssistantIdentity
    ) -> Reply? {
        switch classification {
        case .safe: nil
        case .offTopic: offTopic(language: language, assistant: assistant)
        case .harmful(let type): refusal(type, language: language, region: region)
        case .emergency: emergency(language: language, region: region)
        }
    }

    /// A polite refusal for `type`; a `selfHarm` refusal also lists the region's crisis resources.
    public func refusal(_ type: RefusalType, language: Language, region: String?) -> Reply {
        let catalog = catalog(language)
        let lead = catalog.text(.refusal(type))
        guard type == .selfHarm else {
            return Reply(kind: .refusal(type), language: catalog.language, text: lead, resources: [], region: nil)
        }
        let resolved = directory.region(for: region)
        let block = crisisBlock(resolved, services: resolved.replyServices, catalog: catalog)
        return Reply(
            kind: .refusal(type), language: catalog.language, text: lead + "\n\n" + block,
            resources: resolved.replyServices, region: resolved.code)
    }

    /// The friendly redirect for prompts outside the assistant's scope; names the assistant and
    /// what it helps with.
    public func offTopic(language: Language, assistant: AssistantIdentity) -> Reply {
        let catalog = catalog(language)
        let text: String
        if let helpsWith = assistant.helpsWith[catalog.language], !helpsWith.isEmpty {
            text = catalog.text(.offTopic, ["assistant": assistant.displayName, "helpsWith": helpsWith])
        } else {
            text = catalog.text(.offTopicNoScope, ["assistant": assistant.displayName])
        }
        return Reply(kind: .offTopic, language: catalog.language, text: text, resources: [], region: nil)
    }

    /// The emergency reply: short and caring, the crisis line first and the emergency number
    /// next (or the emergency number first where there is no crisis line), then a closing line.
    public func emergency(language: Language, region: String?) -> Reply {
        let catalog = catalog(language)
        let resolved = directory.region(for: region)
        let block = crisisBlock(resolved, services: resolved.replyServices, catalog: catalog)
        let text = [catalog.text(.emergencyOpening), block, catalog.text(.emergencyClosing)].joined(separator: "\n\n")
        return Reply(
            kind: .emergency, language: catalog.language, text: text, resources: resolved.replyServices,
            region: resolved.code)
    }

    /// Every crisis resource of a region (not only the ones replies list), as text.
    public func allResources(language: Language, region: String?) -> String {
        let resolved = directory.region(for: region)
        return crisisBlock(resolved, services: resolved.services, catalog: catalog(language))
    }

    /// The interface strings of `language`: status line, badges.
    public func interface(_ language: Language) -> InterfaceStrings {
        InterfaceStrings(catalog: catalog(language))
    }
}

/// Short interface texts: the degraded-mode status line and label badges.
public struct InterfaceStrings: Sendable {
    let catalog: Catalog

    /// "AI offline — safety checks and crisis resources still work".
    public var degradedStatus: String { catalog.text(.uiDegraded) }

    /// The prompt that asks for a recovery key.
    public var choosePrompt: String { catalog.text(.uiChoose) }

    /// A short badge for a classification: `safe`, `off topic`, `blocked: violence`, `crisis support`.
    public func badge(for classification: SafetyClassification) -> String {
        let label = catalog.text(.uiLabel(classification.label))
        guard let type = classification.type else { return label }
        return catalog.text(.uiBadge, ["label": label, "type": catalog.text(.uiType(type))])
    }
}
