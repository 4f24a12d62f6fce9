#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import SafetyCore
public import TextNormalization

/// Matches a compiled rule set against texts, on one thread.
///
/// A matcher owns PCRE2's per-thread state (match data, match context with the limits, JIT stack)
/// and reuses it for every search, so matching allocates nothing but the results. It is not
/// `Sendable`: make one per thread or task with `CompiledRuleSet.makeMatcher()`.
/// ```swift
/// let matcher = rules.makeMatcher()
/// let result = matcher.match(rules.normalize(prompt))
/// result.firedRuleIDs          // ["en.violence.kill-person"]
/// result.limitHits             // searches cut short, if any
/// ```
public final class RuleMatcher {
    public let ruleSet: CompiledRuleSet
    public let limits: MatchLimits
    /// Totals since the matcher was made.
    public private(set) var counters = MatchCounters()
    /// Whether to skip rules whose required words are absent from a view. On by default; results
    /// are the same either way, only the time differs.
    public var usesPrefilter = true
    /// Whether to match views that are pure ASCII with byte-mode code instead of UTF code. On by
    /// default; results are the same either way, only the time differs.
    public var usesBytesMode = true

    let resources: MatchResources
    private var unlessSpans: [Range<Int>] = []
    /// For each view slot, which literals occur in it (`slot * literalCount + id`).
    private var literalFound: [Bool]
    private var viewScanned = [Bool](repeating: false, count: ViewName.allCases.count)

    init(ruleSet: CompiledRuleSet, limits: MatchLimits) {
        self.ruleSet = ruleSet
        self.limits = limits
        resources = MatchResources(limits: limits)
        literalFound = Array(repeating: false, count: ruleSet.prefilter.literalCount * ViewName.allCases.count)
    }

    /// Normalises `text` with the views the rule set reads, then matches it.
    public func match(_ text: String, localeLanguage: Language? = nil, mode: MatchMode = .all) -> RuleMatchResult {
        match(ruleSet.normalize(text, localeLanguage: localeLanguage), mode: mode)
    }

    /// Matches every enabled rule (or only the rules named in `ruleIDs`) against the views of `text`.
    ///
    /// A rule fires when its pattern matches one of its views at a place that overlaps no match of
    /// its `unless` patterns on the same view; rejected matches do not stop the search. The views
    /// the rules read must have been built (see `CompiledRuleSet.normalizationOptions`); a missing
    /// view is reported as a failure of the rules that read it.
    public func match(_ text: NormalizedText, only ruleIDs: Set<String>? = nil, mode: MatchMode = .all) -> RuleMatchResult {
        var result = RuleMatchResult()
        counters.texts += 1
        let prefilter = usesPrefilter ? ruleSet.prefilter : nil
        for i in viewScanned.indices { viewScanned[i] = false }
        // Rules in set order, each on its views in pipeline order: results come out sorted.
        for (index, compiled) in ruleSet.compiled.enumerated() where compiled.enabled {
            if let ruleIDs, !ruleIDs.contains(compiled.rule.id) { continue }
            for (view, slot) in zip(compiled.views, compiled.viewSlots) {
                guard let built = text.viewIfBuilt(view) else {
                    result.failures.append(
                        MatchFailure(ruleID: compiled.rule.id, view: view, code: 0, message: "view \(view.rawValue) was not built"))
                    counters.failures += 1
                    continue
                }
                if let prefilter, let required = prefilter.ruleLiteralIDs[index] {
                    let base = slot * prefilter.literalCount
                    if !viewScanned[slot] {
                        scan(built.utf8, with: prefilter, into: base)
                        viewScanned[slot] = true
                    }
                    if !required.contains(where: { literalFound[base + $0] }) {
                        counters.ruleViewsSkipped += 1
                        continue
                    }
                }
                if search(compiled, on: built, mode: mode, into: &result), mode == .firstPerRule { break }
            }
        }
        return result
    }

    // MARK: Prefilter

    /// Marks the literals found in `bytes` in `literalFound[base ..< base + literalCount]`.
    private func scan(_ bytes: [UInt8], with prefilter: LiteralPrefilter, into base: Int) {
        let count = prefilter.literalCount
        literalFound.withUnsafeMutableBufferPointer { all in
            let slice = UnsafeMutableBufferPointer(rebasing: all[base..<(base + count)])
            slice.update(repeating: false)
            bytes.withUnsafeBufferPointer { prefilter.scan($0, found: slice) }
        }
    }

    // MARK: One rule on one view

    /// Searches one rule on one view; true when it fired there.
    @discardableResult
    private func search(_ compiled: CompiledRule, on view: NormalizedView, mode: MatchMode, into result: inout RuleMatchResult) -> Bool {
        counters.ruleViewsSearched += 1
        var fired = false
        view.utf8.withUnsafeBufferPointer { subject in
            var budget = Budget(limits: limits, subjectLength: subject.count)
            budget.asciiSubject = usesBytesMode && Self.isASCII(subject)
            var unlessReady = compiled.unless.isEmpty
            unlessSpans.removeAll(keepingCapacity: true)
            var start = 0
            while start <= subject.count {
                let outcome = find(compiled.pattern, in: subject, from: start, budget: &budget)
                guard case .match(let range) = outcome else {
                    record(outcome, rule: compiled.rule, view: view.name, unlessIndex: nil, into: &result)
                    return
                }
                if !unlessReady {
                    collectUnlessSpans(compiled, in: subject, view: view.name, budget: &budget, into: &result)
                    unlessReady = true
                }
                if overlapsUnless(range) {
                    start = skipUnless(from: Self.nextCharacter(after: range.lowerBound, in: subject), length: subject.count)
                    continue
                }
                result.matches.append(
                    RuleMatch(rule: compiled.rule, view: view.name, viewRange: range, originalRange: view.originalRange(of: range)))
                fired = true
                if mode == .firstPerRule { return }
                start = range.isEmpty ? Self.nextCharacter(after: range.upperBound, in: subject) : range.upperBound
            }
        }
        return fired
    }

    /// Every match of every `unless` pattern on the subject, in `unlessSpans`, sorted.
    private func collectUnlessSpans(
        _ compiled: CompiledRule, in subject: UnsafeBufferPointer<UInt8>, view: ViewName, budget: inout Budget,
        into result: inout RuleMatchResult
    ) {
        for (index, pattern) in compiled.unless.enumerated() {
            var start = 0
            while start <= subject.count {
                let outcome = find(pattern, in: subject, from: start, budget: &budget)
                guard case .match(let range) = outcome else {
                    record(outcome, rule: compiled.rule, view: view, unlessIndex: index, into: &result)
                    break
                }
                unlessSpans.append(range)
                start = range.isEmpty ? Self.nextCharacter(after: range.upperBound, in: subject) : range.upperBound
            }
        }
        unlessSpans.sort { $0.lowerBound < $1.lowerBound }
    }

    private func overlapsUnless(_ range: Range<Int>) -> Bool {
        for span in unlessSpans {
            if span.lowerBound > range.upperBound { break }
            if range.isEmpty {
                if span.contains(range.lowerBound) { return true }
            } else if range.overlaps(span) {
                return true
            }
        }
        return false
    }

    /// The first position at or after `position` that is not inside an unless span: any match
    /// starting inside one would overlap it.
    private func skipUnless(from position: Int, length: Int) -> Int {
        var position = position
        var moved = true
        while moved {
            moved = false
            for span in unlessSpans where span.contains(position) {
                position = span.upperBound
                moved = true
            }
        }
        return position
    }

    private func record(_ outcome: SearchOutcome, rule: Rule, view: ViewName, unlessIndex: Int?, into result: inout RuleMatchResult) {
        switch outcome {
        case .match, .noMatch:
            break
        case .limit(let reason):
            result.limitHits.append(LimitHit(ruleID: rule.id, view: view, reason: reason, unlessIndex: unlessIndex))
            counters.limitHits += 1
        case .failure(let code, let message):
            result.failures.append(MatchFailure(ruleID: rule.id, view: view, code: code, message: message))
            counters.failures += 1
        }
    }

    // MARK: Searching under the budget

    /// One search from `start`.
    ///
    /// PCRE2's match limit counts per start position, and one unit can scan the rest of the
    /// subject, so on a long subject a single call can run for seconds (`\s+(a|the)?\s*x` on 100 kB
    /// of spaces: about 4 s, under the limit). Subjects longer than `longSubjectBytes` are therefore
    /// searched with the pattern's guarded twin, whose callouts stop the search at the rule's
    /// deadline. Short subjects never look at a clock.
    func find(
        _ pattern: CompiledPattern, in subject: UnsafeBufferPointer<UInt8>, from start: Int, budget: inout Budget
    ) -> SearchOutcome {
        counters.searches += 1
        guard let deadline = budget.deadline else {
            return resources.search(pattern, in: subject, from: start, ascii: budget.asciiSubject && usesBytesMode)
        }
        if PCRE2Info.now() > deadline { return .limit(.timeBudget) }
        return resources.search(pattern, in: subject, from: start, deadline: deadline)
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        while i + 8 <= raw.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < raw.count {
            if raw[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The offset of the next UTF-8 character after the one starting at `position`.
    static func nextCharacter(after position: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var next = position + 1
        while next < bytes.count && bytes[next] & 0xC0 == 0x80 { next += 1 }
        return next
    }
}

/// The time budget of one rule on one long view: a deadline, or none for short subjects.
struct Budget {
    let deadline: UInt64?
    /// Every byte of the subject is ASCII: the bytes twin of each pattern may be used.
    var asciiSubject = false

    init(limits: MatchLimits, subjectLength: Int) {
        if subjectLength > limits.longSubjectBytes, let budget = limits.timeBudget {
            deadline = PCRE2Info.now() + RuleLinter.nanoseconds(budget)
        } else {
            deadline = nil
        }
    }

    /// A deadline this many nanoseconds from now (lint's cap on one timing).
    init(nanoseconds: UInt64) {
        deadline = PCRE2Info.now() + nanoseconds
    }

    static func now() -> UInt64 { PCRE2Info.now() }
}
