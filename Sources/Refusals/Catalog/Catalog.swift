public import SafetyCore

/// The messages of one language, loaded from `Resources/catalogs/<language>.yaml` and checked
/// against `CatalogSchema` when loaded: unknown keys, missing keys, unknown or missing
/// placeholders, stray braces and control characters are configuration errors naming the file
/// and line, so a message a user sees is always complete.
public struct Catalog: Sendable {
    /// The catalog's language.
    public let language: Language
    /// The file it came from, relative to `Resources/` for bundled catalogs.
    public let file: String
    let entries: [String: Template]

    /// Loads and checks the catalog `text` of `language`, read from `file`.
    public static func load(text: String, file: String, language: Language) throws(GatewayError) -> Catalog {
        let tree = try YAMLTree.parse(text, file: file)
        guard case .mapping(let top, _) = tree else {
            throw .configuration(
                file: file, line: tree.line, reason: "the catalog must be a mapping of keys to messages")
        }
        var entries: [String: Template] = [:]
        var lines: [String: Int] = [:]
        var declared: String?
        for (key, value, line) in top where key == "language" {
            guard case .scalar(let code, _) = value else {
                throw .configuration(file: file, line: line, reason: "`language` must be a language code")
            }
            declared = code
        }
        guard declared == language.rawValue else {
            throw .configuration(
                file: file, line: top.first { $0.key == "language" }?.line ?? 1,
                reason: "`language` must be \(language.rawValue)")
        }
        try flatten(top.filter { $0.key != "language" }, prefix: "", file: file, into: &entries, lines: &lines)

        let schema = CatalogSchema.standard
        for (path, template) in entries {
            let line = lines[path]
            guard let spec = schema.spec(for: path) else {
                throw .configuration(file: file, line: line, reason: "unknown key \(path)")
            }
            let used = template.placeholders
            if let extra = used.subtracting(spec.allowed).sorted().first {
                throw .configuration(
                    file: file, line: line,
                    reason: "\(path) uses {\(extra)}, which it cannot have; allowed: \(Self.list(spec.allowed))")
            }
            if let missing = spec.required.subtracting(used).sorted().first {
                throw .configuration(file: file, line: line, reason: "\(path) must contain {\(missing)}")
            }
            if path.hasPrefix("recovery."), path.hasSuffix(".key") {
                let key = template.fill([:])
                guard key.count == 1, key.allSatisfy({ $0.isLetter && $0.isLowercase }) else {
                    throw .configuration(file: file, line: line, reason: "\(path) must be one lowercase letter")
                }
            }
        }
        for path in schema.requiredKeys where entries[path] == nil {
            let parent = path.split(separator: ".").dropLast().joined(separator: ".")
            throw .configuration(file: file, line: lines[parent], reason: "missing message \(path)")
        }
        let keys = RecoveryAction.allNames.compactMap { entries[CatalogKey.recoveryKey($0).path]?.fill([:]) }
        if Set(keys).count != keys.count {
            throw .configuration(
                file: file, line: lines["recovery"],
                reason: "two recovery options share a key: \(keys.joined(separator: ", "))")
        }
        return Catalog(language: language, file: file, entries: entries)
    }

    private static func flatten(
        _ mapping: [(key: String, value: YAMLTree, line: Int?)], prefix: String, file: String,
        into entries: inout [String: Template], lines: inout [String: Int]
    ) throws(GatewayError) {
        for (key, value, line) in mapping {
            let path = prefix.isEmpty ? key : prefix + "." + key
            lines[path] = line
            switch value {
            case .mapping(let children, _):
                try flatten(children, prefix: path, file: file, into: &entries, lines: &lines)
            case .scalar(let text, _):
                if let bad = text.unicodeScalars.first(where: { $0 != "\n" && TerminalEscaping.isUnsafe($0) }) {
                    throw .configuration(
                        file: file, line: line,
                        reason:
                            "\(path) contains the control character U+\(String(bad.value, radix: 16, uppercase: true))")
                }
                let trimmed = text.hasSuffix("\n") ? String(text.dropLast()) : text
                switch Template.parse(trimmed) {
                case .success(let template): entries[path] = template
                case .failure(let problem):
                    throw .configuration(file: file, line: line, reason: "\(path): \(problem.reason)")
                }
            case .sequence, .null:
                throw .configuration(file: file, line: line, reason: "\(path) must be a message or a mapping")
            }
        }
    }

    private static func list(_ names: Set<String>) -> String {
        names.isEmpty ? "none" : names.sorted().map { "{\($0)}" }.joined(separator: ", ")
    }

    /// The message at `key` with its placeholders filled; empty when the key is missing (which
    /// the load-time schema rules out for every key the code uses).
    func text(_ key: CatalogKey, _ values: [String: String] = [:]) -> String {
        entries[key.path]?.fill(values) ?? ""
    }

    /// Whether the catalog has `key` (for optional keys such as per-context messages).
    func has(_ key: CatalogKey) -> Bool { entries[key.path] != nil }

    /// Every key in the catalog, sorted.
    var keys: [String] { entries.keys.sorted() }
}

/// The catalogs of every language safegate speaks; English is always there.
public struct CatalogSet: Sendable {
    let catalogs: [Language: Catalog]
    private let english: Catalog

    /// A set of already loaded catalogs; one must be English.
    public init(_ catalogs: [Catalog]) throws(GatewayError) {
        var byLanguage: [Language: Catalog] = [:]
        for catalog in catalogs { byLanguage[catalog.language] = catalog }
        guard let english = byLanguage[.en] else {
            throw .configuration(file: "catalogs/en.yaml", line: nil, reason: "the English catalog is missing")
        }
        self.catalogs = byLanguage
        self.english = english
    }

    /// The catalogs compiled into the binary from `Resources/catalogs/`.
    public static func bundled() throws(GatewayError) -> CatalogSet {
        var catalogs: [Catalog] = []
        for path in BundledFiles.paths(under: "catalogs/") where path.hasSuffix(".yaml") {
            let name = String(path.dropFirst("catalogs/".count).dropLast(".yaml".count))
            guard let language = Language(rawValue: name), language != .und else {
                throw .configuration(file: path, line: nil, reason: "no language is called \(name); use en or tr")
            }
            catalogs.append(try Catalog.load(text: BundledFiles.text(at: path) ?? "", file: path, language: language))
        }
        return try CatalogSet(catalogs)
    }

    /// The languages with a catalog.
    public var languages: [Language] { Language.allCases.filter { catalogs[$0] != nil } }

    /// The catalog for `language`, or the English one when there is none.
    public func catalog(for language: Language) -> Catalog { catalogs[language] ?? english }
}
