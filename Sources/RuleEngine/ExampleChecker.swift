import SafetyCore
import TextNormalization

/// An example that a rule gets wrong.
///
/// Prints as `file:line: rule-id: example "…" should match` (or `should not match`), with control
/// characters escaped.
public struct ExampleFailure: Sendable, Hashable, CustomStringConvertible {
    public enum Expectation: String, Sendable, Hashable {
        case match
        case noMatch
    }

    public let rule: Rule
    public let example: RuleExamples.Example
    public let expected: Expectation
    /// For a `no_match` example that matched: where.
    public let unexpectedMatch: RuleMatch?
    /// Searches cut short while checking the example (the verdict may be wrong because of them).
    public let limitHits: [LimitHit]
    /// Other errors while checking.
    public let failures: [MatchFailure]

    /// The example's line, or the rule's when unknown.
    public var location: SourceLocation {
        example.line > 0 ? SourceLocation(file: rule.location.file, line: example.line) : rule.location
    }

    public var description: String {
        var text = "\(location): \(rule.id): example \(JSONText.quote(example.text)) "
        text += expected == .match ? "should match" : "should not match"
        if let match = unexpectedMatch {
            let original = Array(example.text.utf8)
            let bytes = original[match.originalRange.clamped(to: 0..<original.count)]
            text += " (matched \(JSONText.quote(String(decoding: bytes, as: UTF8.self))) on \(match.view.rawValue))"
        }
        if !limitHits.isEmpty {
            text += " (limit hit: " + limitHits.map { "\($0.reason.rawValue) on \($0.view.rawValue)" }.joined(separator: ", ") + ")"
        }
        if !failures.isEmpty {
            text += " (error: " + failures.map(\.message).joined(separator: "; ") + ")"
        }
        return text
    }
}

/// The outcome of checking every example of a rule set.
public struct ExampleReport: Sendable {
    /// Enabled rules whose examples were checked.
    public var rulesChecked = 0
    /// Disabled rules, whose examples were skipped.
    public var rulesSkipped = 0
    public var examplesChecked = 0
    public var failures: [ExampleFailure] = []

    public init() {}

    /// `12 rules, 48 examples: 47 passed, 1 failed` (plus skipped rules when any).
    public var summary: String {
        var text = "\(rulesChecked) rule\(rulesChecked == 1 ? "" : "s"), \(examplesChecked) example\(examplesChecked == 1 ? "" : "s"): "
        text += "\(examplesChecked - failures.count) passed, \(failures.count) failed"
        if rulesSkipped > 0 { text += ", \(rulesSkipped) disabled rule\(rulesSkipped == 1 ? "" : "s") skipped" }
        return text
    }
}

extension CompiledRuleSet {
    /// Checks one rule's examples: each is normalised exactly as a real prompt would be (the rule
    /// set's views, the rule's language as the locale) and the rule must fire on every `match`
    /// example and on no `no_match` example.
    ///
    /// This is what `safegate rules test` and the shipped-rules test run:
    /// ```swift
    /// let failures = rules.checkExamples(of: rule, using: rules.makeMatcher())
    /// ```
    public func checkExamples(of rule: Rule, using matcher: RuleMatcher) -> [ExampleFailure] {
        var failures: [ExampleFailure] = []
        let options = NormalizationOptions(
            localeLanguage: rule.language.localeLanguage, views: views.union(rule.views))
        func check(_ example: RuleExamples.Example, expected: ExampleFailure.Expectation) {
            let text = NormalizedText(example.text, options: options)
            let result = matcher.match(text, only: [rule.id], mode: .firstPerRule)
            let fired = result.fired(rule.id)
            if fired != (expected == .match) {
                failures.append(
                    ExampleFailure(
                        rule: rule, example: example, expected: expected,
                        unexpectedMatch: expected == .noMatch ? result.matches.first : nil,
                        limitHits: result.limitHits, failures: result.failures))
            } else if expected == .noMatch && !result.isComplete {
                // "Did not fire" is only an answer when every search ran to the end.
                failures.append(
                    ExampleFailure(
                        rule: rule, example: example, expected: expected, unexpectedMatch: nil,
                        limitHits: result.limitHits, failures: result.failures))
            }
        }
        for example in rule.examples.match { check(example, expected: .match) }
        for example in rule.examples.noMatch { check(example, expected: .noMatch) }
        return failures
    }

    /// Checks the examples of every enabled rule.
    public func checkAllExamples(limits: MatchLimits = .default) -> ExampleReport {
        let matcher = makeMatcher(limits: limits)
        var report = ExampleReport()
        for rule in rules {
            guard !rule.disabled else {
                report.rulesSkipped += 1
                continue
            }
            report.rulesChecked += 1
            report.examplesChecked += rule.examples.match.count + rule.examples.noMatch.count
            report.failures += checkExamples(of: rule, using: matcher)
        }
        return report
    }
}
