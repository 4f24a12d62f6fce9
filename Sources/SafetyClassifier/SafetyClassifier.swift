public import RuleEngine
public import SafetyCore
public import TextNormalization

/// Decides a prompt's label from the rules that fire on its normalised views, per POLICY.md.
///
/// Built once and shared by all threads (the compiled rules are immutable); each thread classifies
/// through its own `Session`, which owns the PCRE2 match state.
/// ```swift
/// let classifier = try SafetyClassifier(rules: CompiledRuleSet.load(from: .bundled))
/// let session = classifier.makeSession()
/// let decision = session.classify("I want to d1e tonight")
/// decision.classification     // .emergency
/// decision.decidingRules      // ["en.emergency.want-to-die"]
/// ```
public final class SafetyClassifier: Sendable {
    public let rules: CompiledRuleSet
    /// The profile used when a call names none.
    public let defaultProfile: Profile
    public let limits: MatchLimits

    public init(rules: CompiledRuleSet, profile: Profile = .general, limits: MatchLimits = .default) {
        self.rules = rules
        self.defaultProfile = profile
        self.limits = limits
    }

    /// A classifier for one thread or task.
    public func makeSession() -> Session { Session(classifier: self) }

    /// When several harm types fire with the same severity, the first of these wins.
    public static let typeOrder: [RefusalType] = [.selfHarm, .violence, .explicit, .illegal, .hateSpeech, .misinformation]

    /// Classifies prompts on one thread; not `Sendable`.
    public final class Session {
        public let classifier: SafetyClassifier
        let matcher: RuleMatcher

        init(classifier: SafetyClassifier) {
            self.classifier = classifier
            matcher = classifier.rules.makeMatcher(limits: classifier.limits)
        }

        /// Classifies a prompt given as a string.
        public func classify(_ text: String, profile: Profile? = nil, localeLanguage: Language? = nil) -> Decision {
            classify(bytes: Array(text.utf8), profile: profile, localeLanguage: localeLanguage)
        }

        /// Classifies a prompt given as raw bytes (invalid UTF-8 is repaired, and flagged).
        public func classify(bytes: [UInt8], profile: Profile? = nil, localeLanguage: Language? = nil) -> Decision {
            let normalized = NormalizedText(
                bytes: bytes, options: classifier.rules.normalizationOptions(localeLanguage: localeLanguage))
            return decide(normalized, profile: profile ?? classifier.defaultProfile)
        }

        /// Decides on an already normalised prompt (its views must include those the rules read).
        public func decide(_ text: NormalizedText, profile: Profile) -> Decision {
            let result = matcher.match(text)
            return Decision.make(text: text, result: result, profile: profile)
        }

        /// Match counters of this session.
        public var counters: MatchCounters { matcher.counters }
    }
}

/// A label with its evidence.
public struct Decision: Sendable {
    /// The label per POLICY.md.
    public var classification: SafetyClassification
    /// The prompt's language, as far as it can be told.
    public var language: Language
    /// The rules that decided the label (for `safe` under a scope: the inScope rules, if any).
    public var decidingRules: [RuleMatch]
    /// Every rule match, deciding or not.
    public var matches: [RuleMatch]
    /// Harmful matches that a `safe` look-alike rule overlapped and so did not count.
    public var suppressed: [RuleMatch]
    /// Searches cut short by a PCRE2 limit: the label may have missed what they would have found.
    public var limitHits: [LimitHit]
    /// Searches that failed for another reason.
    public var failures: [MatchFailure]
    /// The original text was not valid UTF-8 (U+FFFD stands in for the bad bytes).
    public var hadInvalidUTF8: Bool
    /// The profile the decision was made under.
    public var profileName: String

    /// The ids of the deciding rules, without repeats, in order.
    public var decidingRuleIDs: [String] {
        var seen: Set<String> = []
        return decidingRules.map(\.rule.id).filter { seen.insert($0).inserted }
    }

    /// Whether every search ran to the end.
    public var isComplete: Bool { limitHits.isEmpty && failures.isEmpty }

    static func make(text: NormalizedText, result: RuleMatchResult, profile: Profile) -> Decision {
        let matches = result.matches
        var decision = Decision(
            classification: .safe, language: text.language, decidingRules: [], matches: matches, suppressed: [],
            limitHits: result.limitHits, failures: result.failures, hadInvalidUTF8: text.hadInvalidUTF8,
            profileName: profile.name)

        // 1. Emergency: nothing suppresses it.
        let emergencies = matches.filter { $0.rule.label == .emergency }
        if !emergencies.isEmpty {
            decision.classification = .emergency
            decision.decidingRules = emergencies
            return decision
        }

        // 2. Harmful, unless a safe look-alike rule covers the same original text.
        let safeSpans = matches.filter { $0.rule.label == .safe }.map(\.originalRange)
        var harmful: [RuleMatch] = []
        for match in matches where match.rule.label == .harmful {
            if safeSpans.contains(where: { $0.overlaps(match.originalRange) }) {
                decision.suppressed.append(match)
            } else {
                harmful.append(match)
            }
        }
        if let type = strongestType(harmful) {
            decision.classification = .harmful(type)
            decision.decidingRules = harmful.filter { $0.rule.type == type }
            return decision
        }

        // 3. Off topic, for a profile with a scope.
        if let topics = profile.topics {
            let inScope = matches.filter { $0.rule.label == .inScope && topics.contains($0.rule.topic ?? "") }
            decision.classification = inScope.isEmpty ? .offTopic : .safe
            decision.decidingRules = inScope
            return decision
        }

        // 4. Safe.
        return decision
    }

    /// The harm type of the most severe match; ties go by `SafetyClassifier.typeOrder`.
    static func strongestType(_ matches: [RuleMatch]) -> RefusalType? {
        matches.max { a, b in
            if a.rule.severity != b.rule.severity { return a.rule.severity < b.rule.severity }
            let order = SafetyClassifier.typeOrder
            return (order.firstIndex(of: a.rule.type ?? .misinformation) ?? 0)
                > (order.firstIndex(of: b.rule.type ?? .misinformation) ?? 0)
        }?.rule.type
    }
}
