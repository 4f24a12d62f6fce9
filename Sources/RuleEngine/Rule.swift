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
    public var id: String
    /// What the rule decides.
    public var label: RuleLabel
    /// The harm type; set exactly when `label` is `.harmful`.
    public var type: RefusalType?
    /// The topic an `inScope` rule stands for (profiles select topics).
    public var topic: String?
    /// The normalised views the pattern is matched on, in pipeline order, without repeats.
    public var views: [ViewName]
    public var severity: RuleSeverity
    /// The language the rule is written for; `rules test` normalises its examples with that locale.
    public var language: RuleLanguage
    /// The PCRE2 pattern, matched with UTF, UCP and caseless.
    public var pattern: String
    /// Look-alike exceptions: a pattern match that overlaps a match of one of these does not count.
    public var unless: [String]
    /// Texts the rule must fire on, and texts it must not fire on.
    public var examples: RuleExamples
    /// What the rule is for, in a sentence.
    public var note: String
    /// A disabled rule is loaded and checked but never matched, and its examples are not run.
    public var disabled: Bool
    /// Where the rule is written.
    public var location: SourceLocation
    /// Lines of individual keys (`pattern`, `unless[0]`…) when read from a file, for messages.
    var keyLines: [String: Int] = [:]

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
        self.id = id
        self.label = label
        self.type = type
        self.topic = topic
        self.views = Array(Set(views)).sorted()
        self.severity = severity
        self.language = language
        self.pattern = pattern
        self.unless = unless
        self.examples = examples
        self.note = note
        self.disabled = disabled
        self.location = location
    }
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
