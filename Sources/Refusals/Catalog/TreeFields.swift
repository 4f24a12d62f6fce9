import SafetyCore

/// Reads the fields of one mapping of a `YAMLTree`, naming the file and line of anything wrong,
/// and rejecting keys it was not asked for (typos in data files fail loudly).
struct TreeFields {
    let file: String
    let line: Int?
    let what: String
    private let entries: [(key: String, value: YAMLTree, line: Int?)]
    private var read: Set<String> = []

    init(_ tree: YAMLTree, file: String, what: String) throws(GatewayError) {
        guard case .mapping(let entries, let line) = tree else {
            throw .configuration(file: file, line: tree.line, reason: "\(what) must be a mapping")
        }
        self.file = file
        self.line = line
        self.what = what
        self.entries = entries
    }

    func error(_ reason: String, at line: Int? = nil) -> GatewayError {
        .configuration(file: file, line: line ?? self.line, reason: reason)
    }

    private mutating func value(_ key: String) -> (value: YAMLTree, line: Int?)? {
        read.insert(key)
        guard let entry = entries.first(where: { $0.key == key }) else { return nil }
        if case .null = entry.value { return nil }
        return (entry.value, entry.line)
    }

    mutating func tree(_ key: String) throws(GatewayError) -> YAMLTree {
        guard let found = value(key) else { throw error("\(what) needs `\(key)`") }
        return found.value
    }

    mutating func optionalTree(_ key: String) -> YAMLTree? { value(key)?.value }

    mutating func string(_ key: String) throws(GatewayError) -> String {
        guard let found = value(key) else { throw error("\(what) needs `\(key)`") }
        guard case .scalar(let text, _) = found.value, !text.isEmpty else {
            throw error("`\(key)` of \(what) must be non-empty text", at: found.line)
        }
        return text
    }

    mutating func optionalString(_ key: String) throws(GatewayError) -> String? {
        guard value(key) != nil else { return nil }
        return try string(key)
    }

    mutating func bool(_ key: String) throws(GatewayError) -> Bool {
        switch try string(key) {
        case "true": return true
        case "false": return false
        default: throw error("`\(key)` of \(what) must be true or false", at: lineOf(key))
        }
    }

    mutating func optionalBool(_ key: String) throws(GatewayError) -> Bool? {
        guard value(key) != nil else { return nil }
        return try bool(key)
    }

    mutating func int(_ key: String) throws(GatewayError) -> Int {
        guard let number = Int(try string(key)) else {
            throw error("`\(key)` of \(what) must be a whole number", at: lineOf(key))
        }
        return number
    }

    mutating func strings(_ key: String) throws(GatewayError) -> [String] {
        guard let found = value(key) else { return [] }
        guard case .sequence(let items, _) = found.value else {
            throw error("`\(key)` of \(what) must be a list", at: found.line)
        }
        var out: [String] = []
        for item in items {
            guard case .scalar(let text, _) = item, !text.isEmpty else {
                throw error("`\(key)` of \(what) must list non-empty text", at: item.line ?? found.line)
            }
            out.append(text)
        }
        return out
    }

    /// A mapping of language codes (or `local`) to text.
    mutating func localized(_ key: String, required: Bool = true) throws(GatewayError) -> [String: String] {
        guard let found = value(key) else {
            if required { throw error("\(what) needs `\(key)`") }
            return [:]
        }
        guard case .mapping(let entries, _) = found.value else {
            throw error("`\(key)` of \(what) must map languages to text", at: found.line)
        }
        var out: [String: String] = [:]
        for (language, text, line) in entries {
            guard case .scalar(let text, _) = text, !text.isEmpty else {
                throw error("`\(key).\(language)` of \(what) must be non-empty text", at: line)
            }
            out[language] = text
        }
        return out
    }

    mutating func sequence(_ key: String) throws(GatewayError) -> [YAMLTree] {
        guard let found = value(key) else { return [] }
        guard case .sequence(let items, _) = found.value else {
            throw error("`\(key)` of \(what) must be a list", at: found.line)
        }
        return items
    }

    /// The keys of the mapping, in file order.
    var allKeys: [String] { entries.map(\.key) }

    func lineOf(_ key: String) -> Int? { entries.first { $0.key == key }?.line }

    /// Fails on the first key nobody asked for.
    func rejectUnknownKeys() throws(GatewayError) {
        if let unknown = entries.first(where: { !read.contains($0.key) }) {
            throw error("unknown key `\(unknown.key)` in \(what)", at: unknown.line)
        }
    }
}
