public import SafetyCore

/// One way to reach a service: a call, a text message, a web chat, a web page or an email.
public struct CrisisChannel: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case call, text, chat, web, email
    }

    public var kind: Kind
    /// For `call` and `text`: the number as written in the country (`116 123`, `13 11 14`).
    public var display: String?
    /// For `call` and `text`: the digits a caller inside the country dials (`116123`). Short codes
    /// stay short; never a `+CC` form.
    public var dial: String?
    /// For `text`: the word to send, when the service asks for one (`SHOUT`).
    public var keyword: String?
    /// For `chat` and `web`: the address (needs internet).
    public var url: String?
    /// For `email`.
    public var address: String?
    /// A note per language, e.g. where a number works (`{"en": "North America"}`).
    public var note: [String: String]
}

/// One service of a region: an emergency number, a crisis line, a secondary line, a place to go
/// in person, or a directory.
public struct CrisisService: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The general emergency number (ambulance, police).
        case emergency
        /// A line for people in suicidal crisis or emotional distress.
        case crisisLine
        /// Another line worth knowing, described honestly (e.g. TR 183 is a social-support line).
        case secondary
        /// A place to go, such as a hospital emergency department.
        case inPerson
        /// A directory of lines (needs internet).
        case directory
    }

    public var id: String
    public var kind: Kind
    /// Display order within the region, 1 first.
    public var priority: Int
    /// Whether the emergency reply and the `selfHarm` refusal list the service (others are
    /// listed only when all resources are asked for).
    public var inReply: Bool
    /// `local`: the name as the service calls itself; language codes: our names for it. Either
    /// `local` or `en` is always there.
    public var name: [String: String]
    /// What the service is, per language, when the name does not say it.
    public var summary: [String: String]
    public var channels: [CrisisChannel]
    /// Open around the clock every day. `false` also when that is not confirmed.
    public var alwaysOpen: Bool
    /// Opening hours per language, when not always open and known.
    public var hours: [String: String]
    /// Languages the service answers in (BCP 47 codes).
    public var languages: [String]
    /// Free to call, when known.
    public var free: Bool?
    /// Where the facts come from.
    public var source: String
    public var crosscheck: [String]
    /// When the facts were last checked (`YYYY-MM-DD`), and how.
    public var verifiedOn: String
    public var verification: String
    /// `high` (the service's own or a government page, cross-checked) or `medium` (one
    /// authoritative source, or reputable secondary sources only).
    public var confidence: String
    /// Claims about the service that only third parties make; never shown as fact.
    public var unconfirmed: [String]

    /// The name to show in `language`: the local name, with our name for it in brackets when
    /// that differs (`113 Zelfmoordpreventie (113 Suicide Prevention)`).
    /// A service without a local name (the fallback's "local emergency number") shows ours.
    public func displayName(in language: Language) -> String {
        guard let local = name["local"] else { return name[language.rawValue] ?? name["en"] ?? id }
        guard let translated = name[language.rawValue], translated != local else { return local }
        return "\(local) (\(translated))"
    }

    /// Whether the service has a phone number to call.
    public var hasPhone: Bool { channels.contains { $0.kind == .call } }
}

/// A region's crisis resources: an ISO 3166-1 code, `EU` (with the member states it covers) or
/// `*`, the fallback for regions without their own entry.
public struct CrisisRegion: Sendable, Hashable {
    public var code: String
    /// The region's name per language.
    public var name: [String: String]
    /// Further region codes this entry serves (the EU member states for `EU`).
    public var covers: [String]
    /// The services, sorted by priority.
    public var services: [CrisisService]

    /// Whether this is the fallback for unknown regions.
    public var isFallback: Bool { code == CrisisDirectory.fallbackCode }

    /// The services the emergency reply shows, in order.
    public var replyServices: [CrisisService] { services.filter(\.inReply) }
}

/// A number that must never be shown, with what it really is.
public struct DoNotUseNumber: Sendable, Hashable {
    public var region: String
    /// As seen in circulating data (`1-833-456-4566`, `+1988`).
    public var number: String
    public var why: String
    public var source: String?

    /// The digits of the number (and a leading `+` when it had one).
    public var normalized: String { PhoneNumbers.normalize(number) }
}

/// Every region's crisis resources, from `Resources/crisis/resources.json`; works offline.
///
/// ```swift
/// let directory = try CrisisDirectory.bundled()
/// directory.region(for: "TR").replyServices.map(\.id)   // ["tr-112", "tr-acil-servis", "tr-183"]
/// directory.region(for: "ES").code                       // "EU" (112)
/// directory.region(for: nil).isFallback                  // true
/// ```
public struct CrisisDirectory: Sendable {
    /// The code of the fallback region.
    public static let fallbackCode = "*"
    /// The path of the bundled data, relative to `Resources/`.
    public static let bundledPath = "crisis/resources.json"

    /// Regions by code, including `EU` and `*`.
    public let regions: [String: CrisisRegion]
    /// Other spellings of region codes (`UK` → `GB`).
    public let aliases: [String: String]
    /// Numbers that must never be shown.
    public let doNotUse: [DoNotUseNumber]
    /// The fallback region.
    public let fallback: CrisisRegion

    /// The region whose resources serve `code`: its own entry, else the entry covering it (EU
    /// member states → `EU`), else the fallback. `code` is matched case-insensitively.
    public func region(for code: String?) -> CrisisRegion {
        guard let code = code?.uppercased() else { return fallback }
        let resolved = aliases[code] ?? code
        if let region = regions[resolved] { return region }
        let covering = regions.values.sorted { $0.code < $1.code }.first { $0.covers.contains(resolved) }
        return covering ?? fallback
    }

    /// The data compiled into the binary.
    public static func bundled() throws(GatewayError) -> CrisisDirectory {
        guard let text = BundledFiles.text(at: bundledPath) else {
            throw .configuration(file: bundledPath, line: nil, reason: "the crisis resources are missing")
        }
        return try load(text: text, file: bundledPath)
    }
}
