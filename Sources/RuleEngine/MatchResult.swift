public import TextNormalization

/// The bounds every search runs under.
///
/// PCRE2 counts the match limit per start position (JIT and interpreter alike), and one unit can
/// scan the rest of the subject, so the limit bounds the backtracking of one attempt on a short
/// text but not the time of a search on a long one. Subjects longer than `longSubjectBytes` bytes
/// are therefore also searched under a wall-clock budget per rule and view, enforced by a PCRE2
/// callout. Subjects up to `longSubjectBytes` bytes (every ordinary prompt) never look at a clock,
/// so their results are deterministic.
public struct MatchLimits: Sendable, Hashable {
    /// PCRE2 match limit. Measured on the project's 2-core box with UTF+UCP+caseless JIT code:
    /// 4–9 ns per unit, so 100,000 units stop a catastrophic attempt after 0.4–0.9 ms
    /// (`(a+)+$` on 100 kB of `a` then `!`: about 0.5 ms). See `docs/RULES.md`.
    public var matchLimit: UInt32
    /// PCRE2 depth limit (interpreter only; the JIT ignores it).
    public var depthLimit: UInt32
    /// PCRE2 heap limit in KiB (interpreter only).
    public var heapLimitKiB: UInt32
    /// Largest JIT stack, in bytes.
    public var jitStackBytes: Int
    /// Subjects longer than this many bytes are searched under `timeBudget`.
    public var longSubjectBytes: Int
    /// Wall-clock budget for one rule on one view of a long subject; `nil` for none.
    public var timeBudget: Duration?

    public init(
        matchLimit: UInt32 = 100_000, depthLimit: UInt32 = 10_000, heapLimitKiB: UInt32 = 16 * 1024,
        jitStackBytes: Int = 1024 * 1024, longSubjectBytes: Int = 16 * 1024, timeBudget: Duration? = .milliseconds(25)
    ) {
        self.matchLimit = matchLimit
        self.depthLimit = depthLimit
        self.heapLimitKiB = heapLimitKiB
        self.jitStackBytes = jitStackBytes
        self.longSubjectBytes = longSubjectBytes
        self.timeBudget = timeBudget
    }

    /// The limits the product runs with.
    public static let `default` = MatchLimits()
}

/// How much to look for.
public enum MatchMode: Sendable, Hashable {
    /// Every match of every rule on every one of its views (for `explain` and overlap decisions).
    case all
    /// Stop each rule at its first accepted match (enough to know which rules fire).
    case firstPerRule
}

/// Where a rule fired: the view, the span in the view's bytes and in the original text's bytes.
public struct RuleMatch: Sendable, Hashable {
    /// The rule that fired.
    public let rule: Rule
    public let view: ViewName
    /// UTF-8 byte offsets into the view's text.
    public let viewRange: Range<Int>
    /// UTF-8 byte offsets into the original text.
    public let originalRange: Range<Int>

    public init(rule: Rule, view: ViewName, viewRange: Range<Int>, originalRange: Range<Int>) {
        self.rule = rule
        self.view = view
        self.viewRange = viewRange
        self.originalRange = originalRange
    }

    public var ruleID: String { rule.id }
}

/// A search stopped by a limit: the rule may or may not match this text.
public struct LimitHit: Sendable, Hashable, CustomStringConvertible {
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        case matchLimit
        case depthLimit
        case heapLimit
        case jitStackLimit
        /// A search on a long subject ran past `MatchLimits.timeBudget`.
        case timeBudget
    }

    public let ruleID: String
    public let view: ViewName
    public let reason: Reason
    /// Which `unless` pattern hit the limit, or `nil` for the rule's own pattern.
    public let unlessIndex: Int?

    public init(ruleID: String, view: ViewName, reason: Reason, unlessIndex: Int? = nil) {
        self.ruleID = ruleID
        self.view = view
        self.reason = reason
        self.unlessIndex = unlessIndex
    }

    public var description: String {
        "\(ruleID) on \(view.rawValue): \(reason.rawValue)" + (unlessIndex.map { " (unless[\($0)])" } ?? "")
    }
}

/// A search that PCRE2 ended with an error other than a limit.
public struct MatchFailure: Sendable, Hashable, CustomStringConvertible {
    public let ruleID: String
    public let view: ViewName
    /// PCRE2's negative return code; for a bundled pattern that PCRE2 rejected at its first use
    /// (bundled patterns are compiled then), its positive compile error code.
    public let code: Int32
    public let message: String

    public init(ruleID: String, view: ViewName, code: Int32, message: String) {
        self.ruleID = ruleID
        self.view = view
        self.code = code
        self.message = message
    }

    public var description: String { "\(ruleID) on \(view.rawValue): error \(code): \(message)" }
}

/// What a rule set found in one text.
public struct RuleMatchResult: Sendable {
    /// Accepted matches, by rule (in rule-set order), then view (pipeline order), then position.
    public internal(set) var matches: [RuleMatch] = []
    /// Searches stopped by a limit. A rule listed here may still have matched on another view.
    public internal(set) var limitHits: [LimitHit] = []
    /// Searches PCRE2 ended with another error.
    public internal(set) var failures: [MatchFailure] = []

    public init() {}

    /// Adds another result's matches, limit hits and failures, with the matches' original spans
    /// moved by `offset` (the other text started `offset` bytes into this one's original).
    public mutating func append(_ other: RuleMatchResult, shiftingOriginalBy offset: Int) {
        matches += other.matches.map {
            RuleMatch(
                rule: $0.rule, view: $0.view, viewRange: $0.viewRange,
                originalRange: ($0.originalRange.lowerBound + offset)..<($0.originalRange.upperBound + offset))
        }
        limitHits += other.limitHits
        failures += other.failures
    }

    /// The rules that fired, each once, in rule-set order.
    public var firedRules: [Rule] {
        var seen = Set<String>()
        return matches.compactMap { seen.insert($0.rule.id).inserted ? $0.rule : nil }
    }

    /// The ids of the rules that fired, each once, in rule-set order.
    public var firedRuleIDs: [String] { firedRules.map(\.id) }

    /// Whether the rule with this id fired.
    public func fired(_ ruleID: String) -> Bool { matches.contains { $0.rule.id == ruleID } }

    /// True when no search was cut short: every rule's verdict is certain.
    public var isComplete: Bool { limitHits.isEmpty && failures.isEmpty }
}

/// Running totals of one matcher, for logs and benchmarks.
public struct MatchCounters: Sendable, Hashable {
    /// Texts matched.
    public var texts = 0
    /// Rule-and-view pairs searched.
    public var ruleViewsSearched = 0
    /// Rule-and-view pairs the literal prefilter ruled out without a search.
    public var ruleViewsSkipped = 0
    /// Calls into PCRE2.
    public var searches = 0
    /// Searches stopped by a limit.
    public var limitHits = 0
    /// Searches ended by another error.
    public var failures = 0

    public init() {}
}
