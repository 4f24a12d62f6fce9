import SafetyCore

/// Settings of `safegate rules lint`.
public struct LintOptions: Sendable, Hashable {
    /// Size of each generated input.
    public var inputBytes: Int
    /// Each input is timed at a tenth of `inputBytes`, then (when that was fast) at full size. A
    /// search slower than this at a tenth of the size is reported; at full size, when it also grows
    /// faster than the input or takes ten times this.
    public var slowThreshold: Duration
    /// Limits the searches run under (the product's, by default).
    public var limits: MatchLimits
    public init(
        inputBytes: Int = 100_000, slowThreshold: Duration = .milliseconds(1), limits: MatchLimits = .default
    ) {
        self.inputBytes = inputBytes
        self.slowThreshold = slowThreshold
        self.limits = limits
    }
}

/// Something lint found wrong with a rule.
///
/// Prints as `file:line: rule-id: pattern: …`.
public struct LintFinding: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable, Hashable {
        /// A search took longer than the threshold.
        case slow
        /// A search hit a PCRE2 limit or the time budget.
        case limitHit
        /// A search ended with another PCRE2 error.
        case failure
        /// The pattern matches the empty string, so it fires on almost anything.
        case matchesEmpty
    }

    public let kind: Kind
    public let rule: Rule
    /// `pattern` or `unless[i]`.
    public let patternName: String
    public let message: String

    public var description: String {
        "\(rule.location(ofKey: patternName)): \(rule.id): \(patternName): \(message)"
    }
}

/// What lint did and found.
public struct LintReport: Sendable {
    public var rulesChecked = 0
    public var patternsChecked = 0
    public var searchesTimed = 0
    public var findings: [LintFinding] = []
    /// The slowest search seen: rule, pattern, input, time.
    public var slowest: (ruleID: String, patternName: String, input: String, duration: Duration)?

    public init() {}

    /// One line: counts, findings and the slowest search.
    public var summary: String {
        var text = "\(rulesChecked) rule\(rulesChecked == 1 ? "" : "s"), \(patternsChecked) patterns, "
        text += "\(searchesTimed) adversarial inputs: \(findings.count) finding\(findings.count == 1 ? "" : "s")"
        if let slowest {
            text += "; slowest \(slowest.ruleID) \(slowest.patternName) \(RuleLinter.format(slowest.duration)) on \(slowest.input)"
        }
        return text
    }
}

/// Times every pattern of a rule set against generated adversarial input.
public enum RuleLinter {
    /// Lints every rule (disabled ones too: they may be enabled later).
    public static func lint(_ ruleSet: CompiledRuleSet, options: LintOptions = LintOptions()) -> LintReport {
        let matcher = ruleSet.makeMatcher(limits: options.limits)
        var report = LintReport()
        var slowestNanos: UInt64 = 0
        let threshold = nanoseconds(options.slowThreshold)
        let size = options.inputBytes
        let smallSize = max(1, size / 10)
        precondition(size >= 10, "inputs of at least 10 bytes")
        for compiled in ruleSet.compiled {
            report.rulesChecked += 1
            let patterns = [("pattern", compiled.pattern)] + compiled.unless.enumerated().map { ("unless[\($0)]", $1) }
            for (name, pattern) in patterns {
                report.patternsChecked += 1
                if name == "pattern" && pattern.minimumLength == 0 && matchesEmpty(pattern, matcher) {
                    report.findings.append(
                        LintFinding(
                            kind: .matchesEmpty, rule: compiled.rule, patternName: name,
                            message: "matches the empty string, so it fires on almost any text"))
                }
                for input in AdversarialInputs.generate(for: pattern.source) {
                    report.searchesTimed += 1
                    // A tenth of the size first: a bad pattern shows there in milliseconds, where the
                    // full size could take seconds (one PCRE2 call cannot be interrupted).
                    let small = bestTime(pattern, on: input.bytes(size: smallSize), matcher: matcher, threshold: threshold)
                    var timed = (outcome: small.0, elapsed: small.1, size: smallSize)
                    if small.0.isMatch || small.0 == .noMatch, small.1 <= threshold {
                        let full = bestTime(pattern, on: input.bytes(size: size), matcher: matcher, threshold: threshold)
                        timed = (full.0, full.1, size)
                    }
                    let description = input.description(size: timed.size)
                    if timed.elapsed > slowestNanos {
                        slowestNanos = timed.elapsed
                        report.slowest = (compiled.rule.id, name, description, .nanoseconds(Int64(timed.elapsed)))
                    }
                    switch timed.outcome {
                    case .limit(let reason):
                        report.findings.append(
                            LintFinding(
                                kind: .limitHit, rule: compiled.rule, patternName: name,
                                message: "hits the \(reason.rawValue) after \(format(timed.elapsed)) on \(description) (catastrophic backtracking?)"))
                    case .failure(let code, let message):
                        report.findings.append(
                            LintFinding(
                                kind: .failure, rule: compiled.rule, patternName: name,
                                message: "PCRE2 error \(code) (\(message)) on \(description)"))
                    case .match, .noMatch:
                        guard timed.elapsed > threshold else { break }
                        // Slow at a tenth of the size, or slow at full size and either growing faster
                        // than the input or far over. A linear scan of 100 kB costs up to ~1-2 ms with
                        // UCP here, and is not a backtracking problem.
                        let superlinear = timed.size == size && timed.elapsed > small.1 * UInt64(2 * size / smallSize)
                        if timed.size == smallSize || superlinear || timed.elapsed > 10 * threshold {
                            var message = "took \(format(timed.elapsed)) on \(description)"
                            if timed.size == size { message += ", \(format(small.1)) at \(smallSize / 1000) kB" }
                            if superlinear { message += " (grows faster than the input)" }
                            report.findings.append(
                                LintFinding(
                                    kind: .slow, rule: compiled.rule, patternName: name,
                                    message: message + "; limit \(format(threshold))"))
                        }
                    }
                    // One finding per pattern is enough to act on.
                    if report.findings.last?.rule.id == compiled.rule.id, report.findings.last?.patternName == name,
                        report.findings.last?.kind != .matchesEmpty
                    {
                        break
                    }
                }
            }
        }
        return report
    }

    private static func matchesEmpty(_ pattern: CompiledPattern, _ matcher: RuleMatcher) -> Bool {
        for text in ["", " ", "a", "zzz qqq"] {
            let bytes = Array(text.utf8)
            let outcome = bytes.withUnsafeBufferPointer { matcher.resources.search(pattern, in: $0, from: 0) }
            if case .match(let range) = outcome, range.isEmpty { return true }
        }
        return false
    }

    /// Times one search with the plain pattern (as short subjects are matched); when it is over
    /// `threshold` (and not stopped by a limit), times it twice more and keeps the best, so that one
    /// preempted run is not reported.
    private static func bestTime(
        _ pattern: CompiledPattern, on bytes: [UInt8], matcher: RuleMatcher, threshold: UInt64
    ) -> (SearchOutcome, UInt64) {
        func once() -> (SearchOutcome, UInt64) {
            bytes.withUnsafeBufferPointer { subject in
                let began = PCRE2Info.now()
                let outcome = matcher.resources.search(pattern, in: subject, from: 0)
                return (outcome, PCRE2Info.now() - began)
            }
        }
        var (outcome, elapsed) = once()
        if elapsed > threshold, outcome == .noMatch || outcome.isMatch {
            for _ in 0..<2 { elapsed = min(elapsed, once().1) }
        }
        return (outcome, elapsed)
    }

    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    static func format(_ nanoseconds: UInt64) -> String {
        let ms = Double(nanoseconds) / 1e6
        if ms >= 10 { return "\(Int(ms.rounded())) ms" }
        return "\((ms * 100).rounded() / 100) ms"
    }

    static func format(_ duration: Duration) -> String { format(nanoseconds(duration)) }
}

/// One generated input: `prefix`, then `unit` repeated to fill the size, then `suffix`.
struct AdversarialInput: Hashable {
    let unit: String
    let prefix: String
    let suffix: String

    /// The input at `size` bytes (or a little under).
    func bytes(size: Int) -> [UInt8] {
        let room = size - prefix.utf8.count - suffix.utf8.count
        let count = max(1, room / max(1, unit.utf8.count))
        var bytes = Array(prefix.utf8)
        bytes.reserveCapacity(size)
        let unitBytes = Array(unit.utf8)
        for _ in 0..<count { bytes += unitBytes }
        bytes += Array(suffix.utf8)
        return bytes
    }

    /// `"kill " then 100 kB of "a " repeated then "!"`.
    func description(size: Int) -> String {
        var text = "\(size / 1000) kB of \(AdversarialInputs.short(unit)) repeated"
        if !prefix.isEmpty { text = "\(AdversarialInputs.short(prefix)) then " + text }
        if !suffix.isEmpty { text += " then \(AdversarialInputs.short(suffix))" }
        return text
    }
}

/// Builds inputs that make backtracking patterns slow: long runs of what the pattern repeats,
/// near-misses of its literals, and long runs after a literal prefix.
enum AdversarialInputs {
    static let maximumInputs = 40

    static func generate(for pattern: String) -> [AdversarialInput] {
        var inputs: [AdversarialInput] = []
        func add(_ unit: String, prefix: String = "", suffix: String = "") {
            guard !unit.isEmpty, inputs.count < maximumInputs else { return }
            let input = AdversarialInput(unit: unit, prefix: prefix, suffix: suffix)
            if !inputs.contains(input) { inputs.append(input) }
        }

        let node = LiteralAnalysis.parse(pattern)
        var repeated: [String] = []
        var literals: [String] = []
        if let node {
            collect(node, repeated: &repeated, literals: &literals)
        }
        let whole = node.map { samples($0).first ?? "" } ?? ""
        let lead = literals.first ?? ""

        // What the pattern repeats, alone, followed by a character that breaks the match, and after its first literal.
        // PCRE2 gives up at once when a required character is absent, so the breaking character
        // is followed by a whole sample of the pattern: every attempt then runs to the end.
        for unit in repeated.prefix(8) {
            add(unit)
            add(unit, suffix: "!")
            add(unit, suffix: "!" + whole)
            add(unit + " ", suffix: "!" + whole)
            if !lead.isEmpty {
                add(unit, prefix: lead + " ", suffix: "!")
                add(unit, prefix: lead + " ", suffix: "!" + whole)
            }
        }
        // Near-misses of each literal.
        for literal in literals.prefix(6) where literal.count >= 2 {
            let miss = String(literal.dropLast())
            add(miss + " ")
            add(literal)
            add(literal + " ", suffix: "!")
            add("a ", prefix: literal + " ", suffix: "!")
            add(miss + String(literal.last!) + String(literal.last!) + " ")
        }
        // The whole pattern's own sample, repeated and cut short.
        if !whole.isEmpty {
            add(whole)
            add(whole + " ")
            if whole.count > 1 { add(String(whole.dropLast())) }
        }
        // Generic runs.
        for unit in ["a", "a ", "ab", " ", "1", "é", "a.", "aa!", "k.i.l.l "] { add(unit) }
        add("a", suffix: "!")
        return inputs
    }

    static func short(_ text: String) -> String {
        let limited = text.count > 24 ? String(text.prefix(24)) + "…" : text
        return JSONText.quote(limited)
    }

    /// Bodies of unbounded or multiple repetitions, and maximal literal runs.
    static func collect(_ node: PatternNode, repeated: inout [String], literals: inout [String]) {
        switch node {
        case .empty, .wordBoundary, .characters, .character, .other:
            break
        case .alternation(let branches):
            for branch in branches { collect(branch, repeated: &repeated, literals: &literals) }
        case .concatenation(let nodes):
            var run = ""
            for node in nodes {
                if case .characters(let set) = node, let first = set.sorted().first, first != String(LiteralAnalysis.separator) {
                    run += first
                    continue
                }
                if run.count >= 2, !literals.contains(run) { literals.append(run) }
                run = ""
                collect(node, repeated: &repeated, literals: &literals)
            }
            if run.count >= 2, !literals.contains(run) { literals.append(run) }
        case .repetition(let body, _, let max):
            if max == nil || max! > 1 {
                for sample in samples(body) where !sample.isEmpty && !repeated.contains(sample) { repeated.append(sample) }
            }
            collect(body, repeated: &repeated, literals: &literals)
        }
    }

    /// A few strings the node matches (best effort).
    static func samples(_ node: PatternNode) -> [String] {
        switch node {
        case .empty, .wordBoundary: return [""]
        case .characters(let set):
            return set.sorted().prefix(3).map { $0 == String(LiteralAnalysis.separator) ? "ş" : $0 }
        case .character(_, let samples), .other(let samples): return samples.isEmpty ? ["a"] : Array(samples.prefix(3))
        case .alternation(let branches): return Array(branches.compactMap { samples($0).first }.prefix(3))
        case .concatenation(let nodes):
            let parts = nodes.map { samples($0) }
            let first = parts.map { $0.first ?? "" }.joined()
            let last = parts.map { $0.last ?? "" }.joined()
            return first == last ? [first] : [first, last]
        case .repetition(let body, let min, _):
            let times = Swift.max(1, Swift.min(min, 3))
            return samples(body).map { String(repeating: $0, count: times) }
        }
    }
}

extension SearchOutcome {
    var isMatch: Bool {
        if case .match = self { return true }
        return false
    }
}
