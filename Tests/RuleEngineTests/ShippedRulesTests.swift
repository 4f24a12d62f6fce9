import RuleEngine
import Testing

/// One rule of a rule set, as a test argument named by its id and file.
struct RuleCase: Sendable, CustomTestStringConvertible {
    let set: CompiledRuleSet
    let rule: Rule
    var testDescription: String { "\(rule.id) (\(rule.location))" }

    /// Every enabled rule of the bundled rule sets (whatever is shipped today, and the real rule
    /// sets as soon as they land), then every enabled rule of the test fixtures.
    static let all: [RuleCase] = {
        var cases: [RuleCase] = []
        // A bundled set that does not load is reported by LoadingTests.theBundledRulesLoad.
        // checkingPatterns: every bundled pattern is compiled here (the product defers it).
        if let bundled = try? CompiledRuleSet.load(from: .bundled, checkingPatterns: true) {
            cases += bundled.enabledRules.map { RuleCase(set: bundled, rule: $0) }
        }
        cases += Fixtures.valid.enabledRules.map { RuleCase(set: Fixtures.valid, rule: $0) }
        return cases
    }()
}

/// Rules carry their examples, and the examples are tests: the same checker as `safegate rules test`.
@Suite struct ShippedRulesTests {
    @Test(arguments: RuleCase.all)
    func everyExampleOfEveryRuleHolds(_ rule: RuleCase) {
        let failures = rule.set.checkExamples(of: rule.rule, using: rule.set.makeMatcher())
        for failure in failures {
            // Names the file and line, the rule and the example.
            Issue.record(Comment(rawValue: failure.description))
        }
    }

    @Test func aFailingExampleNamesFileLineRuleAndTheEscapedExample() throws {
        let set = try YAMLRules.load(
            """
            language: en
            rules:
              - id: en.test.failing
                label: harmful
                type: violence
                views: [squashed]
                pattern: '\\bkill\\b'
                examples:
                  match: ["murder\\u001B[31m"]
                  no_match: ["kill the process"]
                note: Both examples fail.
            """)
        let report = set.checkAllExamples()
        #expect(report.failures.map(\.description) == [
            #"test.yaml:9: en.test.failing: example "murder\u001b[31m" should match"#,
            #"test.yaml:10: en.test.failing: example "kill the process" should not match (matched "kill" on squashed)"#,
        ])
        #expect(report.summary == "1 rule, 2 examples: 0 passed, 2 failed")
    }

    @Test func turkishExamplesAreNormalisedWithTheTurkishLocale() throws {
        // "KILIÇ" only folds to "kılıç" → "kilic" with Turkic rules; "İ" needs them too.
        let set = try YAMLRules.load(
            """
            language: tr
            rules:
              - id: tr.test.locale
                label: harmful
                type: violence
                views: [folded]
                pattern: '\\bkılıç\\b'
                examples:
                  match: ["KILIÇ"]
                  no_match: ["kilic"]
                note: Turkic case folding.
            """)
        #expect(set.checkAllExamples().failures.isEmpty)
    }
}
