public import SafetyCore
public import TextNormalization

/// One rule of a rule set, as written in a rule file (see `docs/RULES.md`).
///
/// A rule is data: the engine compiles its `pattern` and `unless` patterns and reports where it
/// fires; what a firing rule means (its `label`, `type`, `topic`, `severity`) is the classifier's
/// business.
/// ```swift
/// let set = try CompiledRuleSet.load(from: .bundled)
/// for rule in set.rules where rule.label == .emergency { print(rule.id, rule.location) }
/// ```
public struct Rule: Sendable, Hashable {
    /// Unique across the whole rule set, lowercase and dotted: `en.violence.kill-person`.
    public var id: String {
        get { storage.id }
        set { uniqueStorage().id = newValue }
    }
    /// What the rule decides.
    public var label: RuleLabel {
        get { storage.label }
        set { uniqueStorage().label = newValue }
    }
    /// The harm type; set exactly when `label` is `.harmful`.
    public var type: RefusalType? {
        get { storage.type }
        set { uniqueStorage().type = newValue }
    }
    /// The topic an `inScope` rule stands for (profiles select topics).
    public var topic: String? {
        get { storage.topic }
        set { uniqueStorage().topic = newValue }
    }
    /// The normalised views the pattern is matched on, in pipeline order, without repeats.
    public var views: [ViewName] {
        get { storage.views }
        set { uniqueStorage().views = newValue }
    }
    public var severity: RuleSeverity {
        get { storage.severity }
        set { uniqueStorage().severity = newValue }
    }
    /// The language the rule is written for; `rules test` normalises its examples with that locale.
    public var language: RuleLanguage {
        get { storage.language }
        set { uniqueStorage().language = newValue }
    }
    /// The PCRE2 pattern, matched with UTF, UCP and caseless.
    public var pattern: String {
        get { storage.pattern }
        set { uniqueStorage().pattern = newValue }
    }
    /// Look-alike exceptions: a pattern match that overlaps a match of one of these does not count.
    public var unless: [String] {
        get { storage.unless }
        set { uniqueStorage().unless = newValue }
    }
    /// Texts the rule must fire on, and texts it must not fire on.
    public var examples: RuleExamples {
        get { storage.examples }
        set { uniqueStorage().examples = newValue }
    }
    /// What the rule is for, in a sentence.
    public var note: String {
        get { storage.note }
        set { uniqueStorage().note = newValue }
    }
    /// A disabled rule is loaded and checked but never matched, and its examples are not run.
    public var disabled: Bool {
        get { storage.disabled }
        set { uniqueStorage().disabled = newValue }
    }
    /// Where the rule is written.
    public var location: SourceLocation {
        get { storage.location }
        set { uniqueStorage().location = newValue }
    }
    /// Lines of individual keys (`pattern`, `unless[0]`…) when read from a file, for messages.
    var keyLines: KeyLines {
        get { storage.keyLines }
        set { uniqueStorage().keyLines = newValue }
    }

    /// The fields, in one object shared by copies until one of them changes (copy on write). A
    /// rule is copied into every match (`RuleMatch`) and every decision's lists, and a copy of
    /// the fields themselves retained and released each string and array: some 400 atomic
    /// operations per harmful 1 KB prompt (callgrind), on objects that every thread shares.
    private final class Storage: @unchecked Sendable {
        // Mutated only through `uniqueStorage()`, when no other rule shares the object.
        var id: String
        var label: RuleLabel
        var type: RefusalType?
        var topic: String?
        var views: [ViewName]
        var severity: RuleSeverity
        var language: RuleLanguage
        var pattern: String
        var unless: [String]
        var examples: RuleExamples
        var note: String
        var disabled: Bool
        var location: SourceLocation
        var keyLines: KeyLines = [:]

        init(
            id: String, label: RuleLabel, type: RefusalType?, topic: String?, views: [ViewName], severity: RuleSeverity,
            language: RuleLanguage, pattern: String, unless: [String], examples: RuleExamples, note: String, disabled: Bool,
            location: SourceLocation
        ) {
            self.id = id
            self.label = label
            self.type = type
            self.topic = topic
            self.views = views
            self.severity = severity
            self.language = language
            self.pattern = pattern
            self.unless = unless
            self.examples = examples
            self.note = note
            self.disabled = disabled
            self.location = location
        }

        func copy() -> Storage {
            let copy = Storage(
                id: id, label: label, type: type, topic: topic, views: views, severity: severity, language: language,
                pattern: pattern, unless: unless, examples: examples, note: note, disabled: disabled, location: location)
            copy.keyLines = keyLines
            return copy
        }
    }

    private var storage: Storage

    private mutating func uniqueStorage() -> Storage {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// The location of one of the rule's keys (`pattern`, `unless[1]`), or of the rule when unknown.
    func location(ofKey key: String) -> SourceLocation {
        keyLines[key].map { SourceLocation(file: location.file, line: $0) } ?? location
    }

    public init(
        id: String, label: RuleLabel, type: RefusalType? = nil, topic: String? = nil, views: [ViewName],
        severity: RuleSeverity = .medium, language: RuleLanguage = .any, pattern: String, unless: [String] = [],
        examples: RuleExamples, note: String, disabled: Bool = false,
        location: SourceLocation = SourceLocation(file: "<memory>", line: 0)
    ) {
        storage = Storage(
            id: id, label: label, type: type, topic: topic,
            // Views already in order without repeats (as parsed rules and the snapshot give them)
            // are kept as they are: building a Set for each of the bundled rules showed at start-up.
            views: zip(views, views.dropFirst()).allSatisfy { $0 < $1 } ? views : Array(Set(views)).sorted(),
            severity: severity, language: language, pattern: pattern, unless: unless, examples: examples, note: note,
            disabled: disabled, location: location)
    }

    /// Every field equal, as the synthesised comparison did.
    public static func == (lhs: Rule, rhs: Rule) -> Bool {
        if lhs.storage === rhs.storage { return true }
        let a = lhs.storage
        let b = rhs.storage
        return a.id == b.id && a.label == b.label && a.type == b.type && a.topic == b.topic && a.views == b.views
            && a.severity == b.severity && a.language == b.language && a.pattern == b.pattern && a.unless == b.unless
            && a.examples == b.examples && a.note == b.note && a.disabled == b.disabled && a.location == b.location
            && a.keyLines == b.keyLines
    }

    public func hash(into hasher: inout Hasher) {
        let s = storage
        hasher.combine(s.id)
        hasher.combine(s.label)
        hasher.combine(s.type)
        hasher.combine(s.topic)
        hasher.combine(s.views)
        hasher.combine(s.severity)
        hasher.combine(s.language)
        hasher.combine(s.pattern)
        hasher.combine(s.unless)
        hasher.combine(s.examples)
        hasher.combine(s.note)
        hasher.combine(s.disabled)
        hasher.combine(s.location)
        hasher.combine(s.keyLines)
    }
}

/// The lines of a rule's keys (`pattern`, `unless[0]`…), for messages: a handful per rule, kept in
/// one array sorted by key. Every bundled rule gets one at start-up, where a `Dictionary` per rule
/// was a quarter of decoding the snapshot (callgrind). Compares and looks up as a dictionary does.
struct KeyLines: Hashable, Sendable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    struct Entry: Hashable, Sendable {
        var key: String
        var line: Int
    }

    /// Sorted by key, each key once.
    private(set) var entries: [Entry] = []

    init(dictionaryLiteral elements: (String, Int)...) {
        for (key, line) in elements { self[key] = line }
    }

    /// Entries already sorted by key without repeats (as the snapshot writes them); nil when they
    /// are not.
    init?(sorted entries: [Entry]) {
        guard zip(entries, entries.dropFirst()).allSatisfy({ $0.key < $1.key }) else { return nil }
        self.entries = entries
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The position of `key`, or where it would go.
    private func position(of key: String) -> (index: Int, found: Bool) {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return (low, low < entries.count && entries[low].key == key)
    }

    /// The line of `key`; setting nil removes the key.
    subscript(key: String) -> Int? {
        get {
            let (index, found) = position(of: key)
            return found ? entries[index].line : nil
        }
        set {
            let (index, found) = position(of: key)
            switch (found, newValue) {
            case (true, let line?): entries[index].line = line
            case (true, nil): entries.remove(at: index)
            case (false, let line?): entries.insert(Entry(key: key, line: line), at: index)
            case (false, nil): break
            }
        }
    }

    var description: String { "[" + entries.map { "\($0.key): \($0.line)" }.joined(separator: ", ") + "]" }
}

/// What a rule decides; the classifier gives it meaning (POLICY.md).
public enum RuleLabel: String, Sendable, Hashable, CaseIterable, Codable {
    /// Immediate risk to life.
    case emergency
    /// Asks for harmful content; the rule's `type` says which kind.
    case harmful
    /// A look-alike that is safe: suppresses the harmful matches it overlaps.
    case safe
    /// Inside a profile's scope; the rule's `topic` says which topic.
    case inScope
}

/// How grave a match of the rule is.
public enum RuleSeverity: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case low
    case medium
    case high
    case critical

    private var rank: Int {
        switch self {
        case .low: 0
        case .medium: 1
        case .high: 2
        case .critical: 3
        }
    }

    public static func < (lhs: RuleSeverity, rhs: RuleSeverity) -> Bool { lhs.rank < rhs.rank }
}

/// The language a rule is written for.
public enum RuleLanguage: String, Sendable, Hashable, CaseIterable, Codable {
    case en
    case tr
    /// Language-neutral (numbers, URLs, emoji…).
    case any

    /// The locale language to normalise this rule's examples with: Turkish rules get Turkic folding.
    public var localeLanguage: Language? {
        switch self {
        case .en: .en
        case .tr: .tr
        case .any: nil
        }
    }
}

/// The examples a rule carries; both lists are non-empty in a loaded rule.
public struct RuleExamples: Sendable, Hashable {
    /// Texts the rule must fire on.
    public var match: [Example]
    /// Texts the rule must not fire on.
    public var noMatch: [Example]

    public init(match: [Example], noMatch: [Example]) {
        self.match = match
        self.noMatch = noMatch
    }

    /// Builds examples from plain strings (no source lines), for rules made in code.
    public init(match: [String], noMatch: [String]) {
        self.init(match: match.map { Example($0) }, noMatch: noMatch.map { Example($0) })
    }

    /// One example text and the line it is written on.
    public struct Example: Sendable, Hashable {
        public var text: String
        /// The line of the example in the rule file, or 0 when unknown.
        public var line: Int

        public init(_ text: String, line: Int = 0) {
            self.text = text
            self.line = line
        }
    }
}

/// A place in a rule file.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    /// The file as shown to users: the path given on the command line, or `Resources/rules/…` for
    /// a bundled file.
    public var file: String
    /// 1-based line, or 0 when unknown.
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`.
    public var description: String { "\(file):\(line)" }
}
