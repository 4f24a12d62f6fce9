public import SafetyCore

/// A locale identifier split into language and region: `tr-TR`, `tr_TR.UTF-8`, `en_GB@euro`,
/// `zh-Hant-TW`. `C` and `POSIX` carry neither.
public struct LocaleIdentifier: Sendable, Hashable {
    /// Lowercase ISO 639 code, e.g. `tr`.
    public var language: String?
    /// Uppercase ISO 3166-1 alpha-2 code, e.g. `TR`.
    public var region: String?

    public init(language: String?, region: String?) {
        self.language = language
        self.region = region
    }

    /// Parses `text`; returns `nil` for empty text, `C` and `POSIX`.
    public init?(_ text: String) {
        var core = Substring(text.trimmingSpaces)
        if let cut = core.firstIndex(where: { $0 == "." || $0 == "@" }) { core = core[..<cut] }
        guard !core.isEmpty, core != "C", core != "POSIX" else { return nil }
        let parts = core.split(whereSeparator: { $0 == "-" || $0 == "_" })
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy(\.isASCIILetter) else {
            return nil
        }
        language = first.lowercased()
        region = parts.dropFirst().first { $0.count == 2 && $0.allSatisfy(\.isASCIILetter) }?.uppercased()
    }
}

/// Decides the reply language and the crisis-resource region from plain values, so it is
/// testable and has no globals.
///
/// Language: the prompt's language when the classifier can tell, else `--locale`, else the
/// environment's locale (`LC_ALL`, `LC_MESSAGES`, `LANG`, as POSIX orders them), else English;
/// the first of these that is present decides, and `tr-TR` → `tr` → `en`.
/// Region: `--region`, then the locale's region, then the environment's.
///
/// ```swift
/// let resolver = LocaleResolver()
/// let env = LocaleResolver.environmentLocale(["LANG": "tr_TR.UTF-8"])   // "tr_TR.UTF-8"
/// resolver.language(detected: .und, locale: nil, environment: env)    // .tr
/// resolver.region(flag: nil, locale: "en-US", environment: env)       // "US"
/// resolver.region(flag: nil, locale: nil, environment: env)           // "TR"
/// ```
public struct LocaleResolver: Sendable {
    /// The languages there are catalogs for; anything else becomes English.
    public var supported: [Language]

    public init(supported: [Language] = [.en, .tr]) {
        self.supported = supported
    }

    /// The reply language.
    ///
    /// - Parameters:
    ///   - detected: the classifier's guess at the prompt's language; `.und` or `nil` when it could not tell.
    ///   - locale: the `--locale` flag.
    ///   - environment: the environment's locale string (see `environmentLocale(_:)`).
    public func language(detected: Language?, locale: String?, environment: String?) -> Language {
        if let detected, detected != .und {
            return supported.contains(detected) ? detected : .en
        }
        for source in [locale, environment] {
            guard let source, let identifier = LocaleIdentifier(source), let code = identifier.language else {
                continue
            }
            if let language = Language(rawValue: code), supported.contains(language) { return language }
            return .en
        }
        return .en
    }

    /// The region for crisis resources: an uppercase code, or `nil` when nothing says (the
    /// fallback resources apply then).
    ///
    /// - Parameters:
    ///   - flag: the `--region` flag; a flag that is not a two-letter code is ignored (check it
    ///     first with `normalizedRegion(_:)` to reject it as a usage error).
    ///   - locale: the `--locale` flag.
    ///   - environment: the environment's locale string.
    public func region(flag: String?, locale: String?, environment: String?) -> String? {
        if let flag, let region = Self.normalizedRegion(flag) { return region }
        for source in [locale, environment] {
            if let source, let region = LocaleIdentifier(source)?.region { return region }
        }
        return nil
    }

    /// `flag` as an uppercase two-letter region code (`tr` → `TR`), or `nil` when it is not one.
    public static func normalizedRegion(_ flag: String) -> String? {
        let trimmed = flag.trimmingSpaces
        guard trimmed.count == 2, trimmed.allSatisfy(\.isASCIILetter) else { return nil }
        return trimmed.uppercased()
    }

    /// The environment's locale for messages, as POSIX orders it: the first non-empty of
    /// `LC_ALL`, `LC_MESSAGES` and `LANG`.
    public static func environmentLocale(_ environment: [String: String]) -> String? {
        for name in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[name], !value.trimmingSpaces.isEmpty { return value }
        }
        return nil
    }
}

extension Character {
    fileprivate var isASCIILetter: Bool { isASCII && isLetter }
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }
}
