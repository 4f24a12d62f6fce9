import Foundation
import RuleEngine
import Testing

/// `safegate rules lint`'s engine: adversarial inputs find catastrophic patterns.
@Suite struct LintTests {
    @Test func nestedQuantifiersAreFlaggedAsALimitHit() throws {
        let set = try CompiledRuleSet.load(from: .directory(Fixtures.path("redos")))
        let report = RuleLinter.lint(set)
        let finding = try #require(report.findings.first)
        #expect(finding.rule.id == "test.redos.nested-plus")
        #expect(finding.kind == .limitHit)
        #expect(finding.description.hasPrefix(Fixtures.path("redos/nested.yaml") + ":7: test.redos.nested-plus: pattern: hits the matchLimit"))
    }

    @Test func quadraticPatternsAndAmbiguousUnlessPatternsAreFlagged() throws {
        let set = try YAMLRules.load(
            """
            rules:
              - id: test.lint.quadratic
                label: harmful
                type: illegal
                views: [raw]
                pattern: '(?:ab)+x'
                examples: {match: ["abx"], no_match: ["ab"]}
                note: Every start position scans the whole run of "ab".
              - id: test.lint.ambiguous-unless
                label: harmful
                type: violence
                views: [raw]
                pattern: '\\bkill\\b'
                unless: ['\\bkill\\s+(a|the)?\\s*process']
                examples: {match: ["kill"], no_match: ["kill the process"]}
                note: '\\s+ then \\s* can split a run of spaces every way.'
            """)
        let report = RuleLinter.lint(set)
        let flagged = Set(report.findings.map { "\($0.rule.id) \($0.patternName)" })
        #expect(flagged == ["test.lint.quadratic pattern", "test.lint.ambiguous-unless unless[0]"], "\(report.findings)")
    }

    @Test func aPatternThatMatchesTheEmptyStringIsFlagged() throws {
        let set = try YAMLRules.single(pattern: "a*")
        let report = RuleLinter.lint(set)
        #expect(report.findings.contains { $0.kind == .matchesEmpty })
    }

    @Test func theFixtureRulesAreClean() {
        // A generous threshold: this checks for limit hits and runaway growth, not the machine's speed.
        let report = RuleLinter.lint(Fixtures.valid, options: LintOptions(slowThreshold: .milliseconds(20)))
        #expect(report.findings.isEmpty, "\(report.findings)")
        #expect(report.rulesChecked == Fixtures.valid.rules.count)
        #expect(report.searchesTimed > 100)
    }
}
