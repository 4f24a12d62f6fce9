import SafetyCore
import TextNormalization
import Yams

/// Reads one rule file into rules, collecting every problem instead of stopping at the first.
///
/// Works on Yams' composed `Node` tree rather than `Decodable`, so that every problem carries the
/// line of the node it is about.
enum RuleFileParser {
    static let fileKeys = ["language", "views", "rules"]
    static let ruleKeys = [
        "id", "label", "type", "topic", "views", "severity", "language", "pattern", "unless", "examples", "note",
        "disabled",
    ]
    static let exampleKeys = ["match", "no_match"]

    /// The rules of `text` (named `file` in messages) and every problem found in it.
    static func parse(file: String, text: String) -> (rules: [Rule], problems: [RuleProblem]) {
        var parser = FileParser(file: file)
        let rules = parser.parse(text)
        return (rules, parser.problems)
    }

    /// Ids are lowercase words of letters, digits and hyphens, joined by dots, at least two of them.
    ///
    /// Checked over the UTF-8 bytes (every bundled rule's id at every start): splitting the
    /// `String` at `.` walked grapheme clusters. The answer is the same: an id with any byte
    /// outside ASCII is invalid either way, and in ASCII a `.` is its own character.
    static func isValidID(_ id: String) -> Bool {
        func isAlnum(_ c: UInt8) -> Bool { (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) }
        var parts = 1
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in id.utf8 {
            if byte == UInt8(ascii: ".") {
                // A part ends: it must not be empty, and must end with a letter or digit.
                guard isAlnum(previous) else { return false }
                parts += 1
            } else if previous == UInt8(ascii: ".") {
                guard isAlnum(byte) else { return false }
            } else {
                guard isAlnum(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") else { return false }
            }
            previous = byte
        }
        return parts >= 2 && isAlnum(previous)
    }
}

private struct FileParser {
    let file: String
    var problems: [RuleProblem] = []

    init(file: String) { self.file = file }

    func location(_ node: Node?, fallback: Int = 1) -> SourceLocation {
        SourceLocation(file: file, line: node?.mark?.line ?? fallback)
    }

    mutating func problem(_ kind: RuleProblem.Kind, _ node: Node?, rule: String? = nil, _ message: String, line: Int? = nil) {
        let at = line.map { SourceLocation(file: file, line: $0) } ?? location(node)
        problems.append(RuleProblem(kind, at: at, rule: rule, message))
    }

    mutating func parse(_ text: String) -> [Rule] {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            let (line, message) = Self.describe(error, in: text)
            problems.append(RuleProblem(.yamlSyntax, at: SourceLocation(file: file, line: line), "YAML: \(message)"))
            return []
        }
        guard let root, case .mapping(let mapping) = root else {
            problem(.wrongType, root, "a rule file is a mapping with `rules:` (and optional `language:`, `views:`)")
            return []
        }
        var language = RuleLanguage.any
        var defaultViews: [ViewName]?
        var rulesNode: Node?
        for (key, value) in mapping {
            switch key.string ?? "" {
            case "language":
                if let parsed: RuleLanguage = enumValue(value, key: "language", rule: nil) { language = parsed }
            case "views":
                defaultViews = views(value, rule: nil)
            case "rules":
                rulesNode = value
            default:
                unknownKey(key, allowed: RuleFileParser.fileKeys, rule: nil)
            }
        }
        guard let rulesNode else {
            problem(.missingKey, root, "missing key `rules`")
            return []
        }
        if rulesNode.null != nil { return [] }
        guard case .sequence(let sequence) = rulesNode else {
            problem(.wrongType, rulesNode, "`rules` must be a list of rules")
            return []
        }
        var rules: [Rule] = []
        for (index, node) in sequence.enumerated() {
            if let rule = parseRule(node, index: index, language: language, defaultViews: defaultViews) {
                rules.append(rule)
            }
        }
        return rules
    }

    // MARK: One rule

    mutating func parseRule(_ node: Node, index: Int, language fileLanguage: RuleLanguage, defaultViews: [ViewName]?) -> Rule? {
        guard case .mapping(let mapping) = node else {
            problem(.wrongType, node, rule: "rules[\(index)]", "a rule must be a mapping of keys to values")
            return nil
        }
        let before = problems.count
        var values: [String: (key: Node, value: Node)] = [:]
        for (key, value) in mapping {
            let name = key.string ?? ""
            if RuleFileParser.ruleKeys.contains(name) {
                values[name] = (key, value)
            }
        }
        // The id first, so every later problem can name the rule.
        var id = "rules[\(index)]"
        var validID: String?
        if let entry = values["id"] {
            if let text = string(entry.value, key: "id", rule: id) {
                if RuleFileParser.isValidID(text) {
                    id = text
                    validID = text
                } else {
                    if !text.isEmpty { id = text }
                    problem(.badValue, entry.value, rule: id, "id `\(text)` must be lowercase words joined by dots, e.g. `en.violence.kill-person`")
                }
            }
        } else {
            problem(.missingKey, node, rule: id, "missing key `id`")
        }
        for (key, _) in mapping where !RuleFileParser.ruleKeys.contains(key.string ?? "") {
            unknownKey(key, allowed: RuleFileParser.ruleKeys, rule: id)
        }

        func required(_ key: String) -> Node? {
            if let entry = values[key], entry.value.null == nil { return entry.value }
            problem(.missingKey, node, rule: id, "missing key `\(key)`")
            return nil
        }

        let label: RuleLabel? = required("label").flatMap { enumValue($0, key: "label", rule: id) }
        var type: RefusalType?
        if let entry = values["type"], entry.value.null == nil {
            type = enumValue(entry.value, key: "type", rule: id)
            if let label, label != .harmful {
                problem(.badValue, entry.value, rule: id, "`type` is only for harmful rules, and this rule's label is \(label.rawValue)")
            }
        } else if label == .harmful {
            problem(.missingKey, node, rule: id, "missing key `type` (required when label is harmful: \(Self.list(RefusalType.allCases.map(\.rawValue))))")
        }
        var topic: String?
        if let entry = values["topic"], entry.value.null == nil {
            topic = string(entry.value, key: "topic", rule: id)
            if let label, label != .inScope {
                problem(.badValue, entry.value, rule: id, "`topic` is only for inScope rules, and this rule's label is \(label.rawValue)")
            }
        }
        var views: [ViewName]?
        if let entry = values["views"], entry.value.null == nil {
            views = self.views(entry.value, rule: id)
        } else if let defaultViews {
            views = defaultViews
        } else {
            problem(.missingKey, node, rule: id, "missing key `views` (and the file sets no default `views`)")
        }
        var severity = RuleSeverity.medium
        if let entry = values["severity"], entry.value.null == nil, let value: RuleSeverity = enumValue(entry.value, key: "severity", rule: id) {
            severity = value
        }
        var language = fileLanguage
        if let entry = values["language"], entry.value.null == nil, let value: RuleLanguage = enumValue(entry.value, key: "language", rule: id) {
            language = value
        }
        var pattern: String?
        if let value = required("pattern"), let text = string(value, key: "pattern", rule: id) {
            if text.isEmpty {
                problem(.badValue, value, rule: id, "`pattern` is empty")
            } else {
                pattern = text
            }
        }
        var unless: [String] = []
        var unlessNodes: [Node] = []
        if let entry = values["unless"], entry.value.null == nil {
            if case .sequence(let sequence) = entry.value {
                for (i, item) in sequence.enumerated() {
                    if let text = string(item, key: "unless[\(i)]", rule: id) {
                        if text.isEmpty {
                            problem(.badValue, item, rule: id, "`unless[\(i)]` is empty")
                        } else {
                            unless.append(text)
                            unlessNodes.append(item)
                        }
                    }
                }
            } else {
                problem(.wrongType, entry.value, rule: id, "`unless` must be a list of patterns, e.g. unless: ['\\bkill\\s+the\\s+process']")
            }
        }
        let examples = self.examples(values["examples"]?.value, ruleNode: node, rule: id)
        var note: String?
        if let value = required("note") {
            note = string(value, key: "note", rule: id)
        }
        var disabled = false
        if let entry = values["disabled"], entry.value.null == nil {
            if let flag = entry.value.bool, entry.value.scalar?.style == .plain || entry.value.scalar?.style == .any {
                disabled = flag
            } else {
                problem(.wrongType, entry.value, rule: id, "`disabled` must be true or false")
            }
        }

        guard problems.count == before, let validID, let label, let views, let pattern, let examples, let note else {
            // The rule is rejected; still report what PCRE2 thinks of its patterns, so that one run
            // lists every problem.
            let sources = [("pattern", pattern, values["pattern"]?.value)]
                + unless.enumerated().map { ("unless[\($0)]", Optional($1), unlessNodes[$0]) }
            for (name, source, node) in sources {
                guard let source else { continue }
                do {
                    _ = try CompiledPattern(source)
                } catch {
                    problem(.badRegex, node, rule: id, "\(name): \(error.message) at offset \(error.offset)")
                }
            }
            return nil
        }
        var rule = Rule(
            id: validID, label: label, type: type, topic: topic, views: views, severity: severity, language: language,
            pattern: pattern, unless: unless, examples: examples, note: note, disabled: disabled,
            location: location(node))
        for (name, entry) in values { rule.keyLines[name] = entry.key.mark?.line }
        if let entry = values["unless"], case .sequence(let sequence) = entry.value {
            for (i, item) in sequence.enumerated() { rule.keyLines["unless[\(i)]"] = item.mark?.line }
        }
        return rule
    }

    mutating func examples(_ node: Node?, ruleNode: Node, rule: String) -> RuleExamples? {
        guard let node, node.null == nil else {
            problem(.badExamples, ruleNode, rule: rule, "missing key `examples` (needs at least one `match` and one `no_match` example)")
            return nil
        }
        guard case .mapping(let mapping) = node else {
            problem(.wrongType, node, rule: rule, "`examples` must be a mapping with `match:` and `no_match:` lists")
            return nil
        }
        var lists: [String: [RuleExamples.Example]] = [:]
        var ok = true
        for (key, value) in mapping {
            let name = key.string ?? ""
            guard RuleFileParser.exampleKeys.contains(name) else {
                unknownKey(key, allowed: RuleFileParser.exampleKeys, rule: rule, context: "examples")
                ok = false
                continue
            }
            if value.null != nil {
                lists[name] = []
                continue
            }
            guard case .sequence(let sequence) = value else {
                problem(.wrongType, value, rule: rule, "`examples.\(name)` must be a list of strings")
                ok = false
                continue
            }
            var items: [RuleExamples.Example] = []
            for (i, item) in sequence.enumerated() {
                if let text = string(item, key: "examples.\(name)[\(i)]", rule: rule) {
                    items.append(RuleExamples.Example(text, line: item.mark?.line ?? 0))
                } else {
                    ok = false
                }
            }
            lists[name] = items
        }
        for name in RuleFileParser.exampleKeys where (lists[name] ?? []).isEmpty {
            let present = lists[name] != nil
            problem(
                .badExamples, node, rule: rule,
                present ? "`examples.\(name)` is empty: give at least one example" : "missing `examples.\(name)`: give at least one example")
            ok = false
        }
        guard ok, let match = lists["match"], let noMatch = lists["no_match"] else { return nil }
        return RuleExamples(match: match, noMatch: noMatch)
    }

    // MARK: Values

    mutating func string(_ node: Node, key: String, rule: String?) -> String? {
        guard case .scalar(let scalar) = node else {
            problem(.wrongType, node, rule: rule, "`\(key)` must be a string, not a \(Self.kind(of: node))")
            return nil
        }
        return scalar.string
    }

    mutating func enumValue<T: RawRepresentable & CaseIterable>(_ node: Node, key: String, rule: String?) -> T? where T.RawValue == String {
        guard let text = string(node, key: key, rule: rule) else { return nil }
        if let value = T(rawValue: text) { return value }
        problem(.badValue, node, rule: rule, "bad \(key) `\(text)`: expected \(Self.list(T.allCases.map(\.rawValue)))")
        return nil
    }

    mutating func views(_ node: Node, rule: String?) -> [ViewName]? {
        let items: [Node]
        switch node {
        case .sequence(let sequence): items = Array(sequence)
        default:
            problem(.wrongType, node, rule: rule, "`views` must be a list, e.g. views: [ascii, squashed]")
            return nil
        }
        guard !items.isEmpty else {
            problem(.badValue, node, rule: rule, "`views` is empty: name at least one of \(Self.list(ViewName.allCases.map(\.rawValue)))")
            return nil
        }
        var result: [ViewName] = []
        var ok = true
        for item in items {
            if let view: ViewName = enumValue(item, key: "view", rule: rule) { result.append(view) } else { ok = false }
        }
        return ok ? result : nil
    }

    mutating func unknownKey(_ key: Node, allowed: [String], rule: String?, context: String? = nil) {
        let name = key.string ?? "?"
        let suggestion = Self.closest(to: name, in: allowed).map { " (did you mean `\($0)`?)" } ?? ""
        let place = context.map { " in `\($0)`" } ?? ""
        problem(.unknownKey, key, rule: rule, "unknown key `\(name)`\(place)\(suggestion); expected \(Self.list(allowed))")
    }

    // MARK: Helpers

    static func list(_ names: [String]) -> String { names.joined(separator: ", ") }

    static func kind(of node: Node) -> String {
        switch node {
        case .scalar: "string"
        case .mapping: "mapping"
        case .sequence: "list"
        case .alias: "alias"
        }
    }

    /// The allowed name nearest to a misspelt one, when it is close enough to be a likely typo.
    static func closest(to name: String, in allowed: [String]) -> String? {
        let scored = allowed.map { ($0, editDistance(name.lowercased(), $0)) }.min { $0.1 < $1.1 }
        guard let (best, distance) = scored, distance <= max(1, best.count / 3) else { return nil }
        return best
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where i <= a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where j <= b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The line and a one-line message for a Yams error.
    static func describe(_ error: any Error, in text: String) -> (line: Int, message: String) {
        guard let yaml = error as? YamlError else { return (1, "\(error)") }
        switch yaml {
        case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
            .composer(let context, let problem, let mark, _):
            let where_ = context.map { " (\($0.text) at line \($0.mark.line))" } ?? ""
            return (mark.line, problem + where_)
        case .reader(let problem, let offset, _, _):
            let line = offset.map { off in text.prefix(off).reduce(1) { $1 == "\n" ? $0 + 1 : $0 } } ?? 1
            return (line, problem)
        case .duplicatedKeysInMapping(let duplicates, let context):
            return (context.mark.line, "duplicate key \(duplicates.sorted().map { "`\($0)`" }.joined(separator: ", ")) in one mapping")
        default:
            return (1, "\(yaml)")
        }
    }
}
