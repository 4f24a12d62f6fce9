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
    /// Prompt size bound and what to do when a classification is incomplete.
    public let policy: ClassificationPolicy

    public init(
        rules: CompiledRuleSet, profile: Profile = .general, limits: MatchLimits = .default,
        policy: ClassificationPolicy = ClassificationPolicy()
    ) {
        self.rules = rules
        self.defaultProfile = profile
        self.limits = limits
        self.policy = policy
    }

    /// A classifier for one thread or task.
    public func makeSession() -> Session { Session(classifier: self) }

    /// How much a decision's evidence holds.
    public enum Evidence: Sendable, Hashable {
        /// The matches that can decide the label: rules that cannot change it are not searched.
        case decisive
        /// Every rule's matches.
        case all
    }

    /// When several harm types fire with the same severity, the first of these wins.
    public static let typeOrder: [RefusalType] = [.selfHarm, .violence, .explicit, .illegal, .hateSpeech, .misinformation]

    /// Classifies prompts on one thread; not `Sendable`.
    public final class Session {
        public let classifier: SafetyClassifier
        let matcher: RuleMatcher
        private var scopeCache: (topics: Set<String>, selection: RuleSelection)?
        // What every prompt reads of the shared classifier, held so that reading it retains
        // nothing another thread retains (an atomic write to a cache line both cores write: with
        // two threads on short prompts, a few of those per prompt cost each thread time): the
        // rule set unretained (the classifier keeps it), the default profile and the normaliser's
        // view sets as copies of the session's own.
        private let rules: Unmanaged<CompiledRuleSet>
        private let defaultProfile: Profile
        private let normalizer: CompiledRuleSet.Normalizer

        init(classifier: SafetyClassifier) {
            self.classifier = classifier
            matcher = classifier.rules.makeMatcher(limits: classifier.limits)
            rules = Unmanaged.passUnretained(classifier.rules)
            defaultProfile = classifier.defaultProfile.ownCopy()
            normalizer = classifier.rules.makeNormalizer()
        }

        /// Classifies a prompt given as a string.
        public func classify(
            _ text: String, profile: Profile? = nil, localeLanguage: Language? = nil, evidence: Evidence = .decisive
        ) -> Decision {
            classify(bytes: Array(text.utf8), profile: profile, localeLanguage: localeLanguage, evidence: evidence)
        }

        /// Classifies a prompt given as raw bytes (invalid UTF-8 is repaired, and flagged).
        ///
        /// A prompt longer than the policy's `maxPromptBytes` is classified on two windows, its
        /// first and its last `maxPromptBytes / 2` bytes (cut at character boundaries), and the
        /// decision says so in `truncation`; spans refer to the whole prompt.
        public func classify(
            bytes: [UInt8], profile: Profile? = nil, localeLanguage: Language? = nil, evidence: Evidence = .decisive
        ) -> Decision {
            let profile = profile ?? defaultProfile
            let limit = classifier.policy.maxPromptBytes
            guard bytes.count > limit else {
                return decide(normalizer.normalize(bytes: bytes, localeLanguage: localeLanguage), profile: profile, evidence: evidence)
            }
            let head = Self.characterBoundary(in: bytes, atOrBefore: limit / 2)
            let tail = Self.characterBoundary(in: bytes, atOrBefore: bytes.count - limit / 2)
            let headText = normalizer.normalize(bytes: Array(bytes[0..<head]), localeLanguage: localeLanguage)
            let tailText = normalizer.normalize(bytes: Array(bytes[tail...]), localeLanguage: localeLanguage)
            var result = evidence == .all ? matcher.match(headText) : stagedResult(headText, profile: profile)
            let tailResult = evidence == .all ? matcher.match(tailText) : stagedResult(tailText, profile: profile)
            result.append(tailResult, shiftingOriginalBy: tail)
            var decision = Decision.make(
                language: headText.language, hadInvalidUTF8: headText.hadInvalidUTF8 || tailText.hadInvalidUTF8, result: result,
                profile: profile)
            decision.truncation = Truncation(totalBytes: bytes.count, limit: limit, classified: [0..<head, tail..<bytes.count])
            rules._withUnsafeGuaranteedRef { decision.applyPolicy(classifier.policy, rules: $0) }
            return decision
        }

        /// The start of the UTF-8 character at or before `offset` (continuation bytes are skipped
        /// backwards, at most three).
        static func characterBoundary(in bytes: [UInt8], atOrBefore offset: Int) -> Int {
            var offset = min(max(offset, 0), bytes.count)
            var steps = 0
            while offset > 0, offset < bytes.count, bytes[offset] & 0xC0 == 0x80, steps < 3 {
                offset -= 1
                steps += 1
            }
            return offset
        }

        /// Decides on an already normalised prompt (its views must include those the rules read).
        ///
        /// With `.decisive` evidence (the default) rules are searched in stages and a stage runs
        /// only when it can change the label: emergency rules; then harmful rules; safe look-alike
        /// rules only when something harmful fired (they can only suppress); `inScope` rules only
        /// for a scoped profile when nothing harmful stands. The label and deciding rules are the
        /// same as with `.all`, which searches every rule (for `explain`-style evidence).
        public func decide(_ text: NormalizedText, profile: Profile, evidence: Evidence = .decisive) -> Decision {
            let result = evidence == .all ? matcher.match(text) : stagedResult(text, profile: profile)
            var decision = Decision.make(
                language: text.language, hadInvalidUTF8: text.hadInvalidUTF8, result: result, profile: profile)
            rules._withUnsafeGuaranteedRef { decision.applyPolicy(classifier.policy, rules: $0) }
            return decision
        }

        /// The matches of the stages that can decide `text`'s label under `profile`.
        func stagedResult(_ text: NormalizedText, profile: Profile) -> RuleMatchResult {
            matcher.begin(text)
            var result = RuleMatchResult()
            matcher.match(label: .emergency, into: &result)
            if result.matches.isEmpty {
                matcher.match(label: .harmful, into: &result)
                // A safe look-alike only suppresses harmful matches it overlaps: none can start
                // after the last of them ends.
                if let end = result.matches.map(\.originalRange.upperBound).max() {
                    matcher.match(label: .safe, into: &result, startingBefore: end)
                }
            }
            if let topics = profile.topics,
                Decision.make(language: text.language, hadInvalidUTF8: false, result: result, profile: profile).classification
                    == .offTopic
            {
                matcher.match(scopeSelection(profile: profile, topics: topics), into: &result)
            }
            return result
        }

        /// The inScope rules of a profile's topics, computed once per profile.
        private func scopeSelection(profile: Profile, topics: Set<String>) -> RuleSelection {
            if let cached = scopeCache, cached.topics == topics { return cached.selection }
            let selection = classifier.rules.selection(inScopeTopics: topics)
            scopeCache = (topics, selection)
            return selection
        }

        /// Match counters of this session.
        public var counters: MatchCounters { matcher.counters }

        /// When set, every search is appended to it, timed (`RuleMatcher.searchLog`).
        public var searchLog: [SearchLogEntry]? {
            get { matcher.searchLog }
            set { matcher.searchLog = newValue }
        }

        /// With `searchLog` set: how long the literal scans of the last prompt took.
        public var lastScanDuration: Duration? { matcher.lastBeginDuration }
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
    /// Set when the prompt was longer than the policy allows and only windows of it were classified.
    public var truncation: Truncation?
    /// True when the label could be too mild — the prompt was truncated, or an emergency or
    /// harmful rule's search was cut short by a limit or failed, and the label is `safe` or
    /// `offTopic` — and the policy fails closed: callers must not treat the prompt as cleared
    /// (`classify` writes an error record, the gateway refuses to forward it).
    public var failedClosed = false

    /// The ids of the deciding rules, without repeats, in order.
    public var decidingRuleIDs: [String] {
        var seen: Set<String> = []
        return decidingRules.map(\.rule.id).filter { seen.insert($0).inserted }
    }

    /// Whether every search ran to the end over the whole prompt.
    public var isComplete: Bool { limitHits.isEmpty && failures.isEmpty && truncation == nil }

    /// Whether the label may be too mild: it is `safe` or `offTopic`, and the prompt was truncated
    /// or an emergency or harmful rule could not be searched to the end. (A cut-short `safe` or
    /// `inScope` rule can only make a label milder, so it never makes the result uncertain.)
    public func isUncertain(rules: CompiledRuleSet) -> Bool {
        switch classification {
        case .emergency, .harmful: return false
        case .safe, .offTopic: break
        }
        if truncation != nil { return true }
        let cut = limitHits.map(\.ruleID) + failures.map(\.ruleID)
        return cut.contains { id in
            guard let label = rules.rule(id: id)?.label else { return true }
            return label == .emergency || label == .harmful
        }
    }

    /// A human-readable reason for an incomplete classification, naming the cause.
    public var incompleteReason: String? {
        var reasons: [String] = []
        if let truncation {
            reasons.append(
                "the prompt is \(truncation.totalBytes) bytes, over the \(truncation.limit)-byte limit: only its first and last \(truncation.limit / 2) bytes were classified")
        }
        for hit in limitHits.prefix(3) { reasons.append("rule \(hit.ruleID) stopped at a limit (\(hit.reason.rawValue)) on view \(hit.view.rawValue)") }
        for failure in failures.prefix(3) { reasons.append("rule \(failure.ruleID) failed on view \(failure.view.rawValue): \(failure.message)") }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    mutating func applyPolicy(_ policy: ClassificationPolicy, rules: CompiledRuleSet) {
        failedClosed = policy.failure == .failClosed && isUncertain(rules: rules)
    }

    static func make(language: Language, hadInvalidUTF8: Bool, result: RuleMatchResult, profile: Profile) -> Decision {
        let matches = result.matches
        var decision = Decision(
            classification: .safe, language: language, decidingRules: [], matches: matches, suppressed: [],
            limitHits: result.limitHits, failures: result.failures, hadInvalidUTF8: hadInvalidUTF8,
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

/// Windows of a prompt longer than `ClassificationPolicy.maxPromptBytes`.
public struct Truncation: Sendable, Hashable {
    /// The prompt's length in bytes.
    public var totalBytes: Int
    /// The bound in force (`ClassificationPolicy.maxPromptBytes`).
    public var limit: Int
    /// The byte ranges that were classified (the head and the tail).
    public var classified: [Range<Int>]
    /// Bytes classified in all.
    public var classifiedBytes: Int { classified.reduce(0) { $0 + $1.count } }
}

/// How big a prompt may be, and what happens when a classification cannot be completed.
///
/// Fail closed (the default): a prompt whose label could be too mild — a rule that might have
/// flagged it hit a PCRE2 limit or failed, or the prompt was too long to classify whole — is not
/// cleared: `Decision.failedClosed` is set, `classify` writes an error record (exit 65) and the
/// gateway refuses to forward the prompt with a typed error. Fail open: the label found is used as
/// it is, marked incomplete.
public struct ClassificationPolicy: Sendable, Hashable {
    public enum Failure: String, Sendable, Hashable, CaseIterable {
        case failClosed = "closed"
        case failOpen = "open"
    }

    /// Prompts longer than this many bytes are classified on their first and last half of it.
    public var maxPromptBytes: Int
    public var failure: Failure

    /// 256 KiB: about 60 pages of text; matching costs roughly a millisecond per few kilobytes.
    public static let defaultMaxPromptBytes = 256 * 1024

    public init(maxPromptBytes: Int = Self.defaultMaxPromptBytes, failure: Failure = .failClosed) {
        self.maxPromptBytes = max(maxPromptBytes, 2)
        self.failure = failure
    }
}
