public import SafetyCore
import SafeGateResources
import Foundation
import Yams

/// An assistant profile: who the assistant is, what it helps with, and which topics are in scope.
///
/// Profiles are YAML files (`Resources/profiles/`, or a user's own with `--profile PATH`):
/// ```yaml
/// name: calendar
/// display_name: {en: Calendar Assistant, tr: Takvim Asistanı}
/// helps_with: {en: "your calendar — meetings, reminders…", tr: "takviminiz — …"}
/// topics: [scheduling, greeting, thanks, assistant]   # omit: no scope, never offTopic
/// ```
public struct Profile: Sendable, Hashable {
    public var name: String
    /// The assistant's name, per language.
    public var displayName: [Language: String]
    /// What the assistant helps with, per language, as a phrase ("your calendar — meetings…").
    public var helpsWith: [Language: String]
    /// The `inScope` rule topics that make a prompt in scope; `nil` means no scope at all.
    public var topics: Set<String>?
    /// Where the profile was read from.
    public var source: String

    public init(
        name: String, displayName: [Language: String], helpsWith: [Language: String], topics: Set<String>?,
        source: String = "<memory>"
    ) {
        self.name = name
        self.displayName = displayName
        self.helpsWith = helpsWith
        self.topics = topics
        self.source = source
    }

    /// Whether the profile limits the assistant to some topics (and so can yield `offTopic`).
    public var hasScope: Bool { topics != nil }

    /// The same profile in storage of its own (strings, dictionaries and the topic set rebuilt),
    /// for one `SafetyClassifier.Session`: the session copies its default profile for every prompt,
    /// and retaining storage that other threads' sessions retain too is an atomic write to a
    /// cache line they all write.
    func ownCopy() -> Profile {
        func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }
        return Profile(
            name: fresh(name), displayName: Dictionary(uniqueKeysWithValues: displayName.map { ($0.key, fresh($0.value)) }),
            helpsWith: Dictionary(uniqueKeysWithValues: helpsWith.map { ($0.key, fresh($0.value)) }),
            topics: topics.map { Set($0.map(fresh)) }, source: fresh(source))
    }

    /// The display name in `language`, else English, else the profile's name.
    public func displayName(in language: Language) -> String {
        displayName[language] ?? displayName[.en] ?? name
    }

    /// What the assistant helps with in `language`, else English.
    public func helpsWith(in language: Language) -> String {
        helpsWith[language] ?? helpsWith[.en] ?? ""
    }

    /// The names of the bundled profiles.
    public static var bundledNames: [String] {
        BundledResources.paths(under: "profiles/").filter { $0.hasSuffix(".yaml") }.map {
            String($0.dropFirst("profiles/".count).dropLast(".yaml".count))
        }
    }

    /// A bundled profile by name (`general`, `calendar`), or a profile file by path.
    public static func load(_ nameOrPath: String) throws(ProfileError) -> Profile {
        if let text = bundledText(named: nameOrPath) {
            return try parse(text, source: bundledSource(named: nameOrPath), resolver: .basic)
        }
        guard nameOrPath.contains("/") || nameOrPath.hasSuffix(".yaml") || nameOrPath.hasSuffix(".yml") else {
            throw ProfileError(
                file: nameOrPath, line: 0,
                reason: "no bundled profile named \(nameOrPath) (bundled: \(bundledNames.joined(separator: ", ")))")
        }
        guard let data = FileManager.default.contents(atPath: nameOrPath) else {
            throw ProfileError(file: nameOrPath, line: 0, reason: "cannot read the file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ProfileError(file: nameOrPath, line: 0, reason: "not valid UTF-8")
        }
        return try parse(text, source: nameOrPath)
    }

    /// The YAML of the bundled profile `name`, if there is one.
    static func bundledText(named name: String) -> String? { BundledResources.text(at: "profiles/\(name).yaml") }

    /// Where a bundled profile is said to come from.
    static func bundledSource(named name: String) -> String { "Resources/profiles/\(name).yaml" }

    /// The `general` profile: no scope.
    public static let general: Profile = (try? load("general"))
        ?? Profile(name: "general", displayName: [.en: "the assistant"], helpsWith: [:], topics: nil)

    static let keys: Set<String> = ["name", "display_name", "helps_with", "topics"]

    /// Parses profile YAML; every problem names the file and line.
    public static func parse(_ text: String, source: String) throws(ProfileError) -> Profile {
        try parse(text, source: source, resolver: .default)
    }

    /// Parses profile YAML with `resolver` deciding the scalars' tags.
    ///
    /// The bundled profiles are read with `.basic`, which tags every plain scalar a string:
    /// `.default` compiles seven `NSRegularExpression`s (through ICU) on first use, about 1.5 ms of
    /// every command's start-up, and a profile reads its scalars as text whatever their tag.
    /// `ProfileTests` checks that every bundled profile comes out the same with `.default`; a
    /// profile file of your own is read with `.default`, as before.
    static func parse(_ text: String, source: String, resolver: Resolver) throws(ProfileError) -> Profile {
        let node: Node?
        do {
            node = try Yams.compose(yaml: text, resolver)
        } catch let error as YamlError {
            throw ProfileError(file: source, line: Self.line(of: error), reason: "YAML: \(error)")
        } catch {
            throw ProfileError(file: source, line: 0, reason: "YAML: \(error)")
        }
        guard let mapping = node?.mapping else {
            throw ProfileError(file: source, line: node.map(line) ?? 1, reason: "a profile is a mapping of keys")
        }
        for (key, _) in mapping {
            guard let name = key.string, keys.contains(name) else {
                throw ProfileError(
                    file: source, line: line(key),
                    reason: "unknown key \(key.string ?? "?") (known: \(keys.sorted().joined(separator: ", ")))")
            }
        }
        guard let name = mapping["name"]?.string, !name.isEmpty else {
            throw ProfileError(file: source, line: line(node!), reason: "missing key name")
        }
        func languageMap(_ key: String) throws(ProfileError) -> [Language: String] {
            guard let value = mapping[key] else { return [:] }
            if let text = value.string { return [.en: text] }
            guard let entries = value.mapping else {
                throw ProfileError(file: source, line: line(value), reason: "\(key) must be text or a map of language to text")
            }
            var result: [Language: String] = [:]
            for (languageNode, textNode) in entries {
                guard let code = languageNode.string, let language = Language(rawValue: code), language != .und else {
                    throw ProfileError(file: source, line: line(languageNode), reason: "\(key): unknown language \(languageNode.string ?? "?") (en, tr)")
                }
                guard let text = textNode.string else {
                    throw ProfileError(file: source, line: line(textNode), reason: "\(key).\(code) must be text")
                }
                result[language] = text
            }
            return result
        }
        var topics: Set<String>?
        if let value = mapping["topics"] {
            guard let sequence = value.sequence else {
                throw ProfileError(file: source, line: line(value), reason: "topics must be a list")
            }
            var names: Set<String> = []
            for item in sequence {
                guard let topic = item.string, !topic.isEmpty else {
                    throw ProfileError(file: source, line: line(item), reason: "topics: each topic is a word")
                }
                names.insert(topic)
            }
            topics = names
        }
        return Profile(
            name: name, displayName: try languageMap("display_name"), helpsWith: try languageMap("helps_with"),
            topics: topics, source: source)
    }

    static func line(_ node: Node) -> Int { (node.mark?.line).map { $0 } ?? 0 }

    static func line(of error: YamlError) -> Int {
        switch error {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _):
            return mark.line
        default:
            return 0
        }
    }
}

/// A profile that does not load: which file, which line, what is wrong.
public struct ProfileError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var reason: String

    public var description: String { line > 0 ? "\(file):\(line): \(reason)" : "\(file): \(reason)" }
}
