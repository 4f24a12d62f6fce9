import Testing

@testable import RuleEngine

/// The load-time cache of required literals must agree with the analysis for every bundled rule
/// (a stale entry only slows loading, but the bundled file should be current), and its encoding
/// must round-trip literals with spaces, punctuation and word boundaries.
@Suite struct LiteralCacheTests {
    @Test func bundledCacheMatchesAFreshAnalysisOfEveryBundledRule() throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        let stale = rules.staleLiteralCacheEntries()
        #expect(
            stale.isEmpty,
            "Resources/rules/literal-cache.tsv is stale for \(stale.count) rules (\(stale.prefix(5).joined(separator: ", "))…): run `swift run safegate dev generate-literal-cache`"
        )
    }

    @Test func linesRoundTrip() {
        let requirement: [[RequiredLiteral]]? = [
            [RequiredLiteral(text: "kill", wordStart: true), RequiredLiteral(text: "elden ring"), RequiredLiteral(text: "a.b,c%", wordEnd: true)],
            [RequiredLiteral(text: "^$x", wordStart: true, wordEnd: true)],
        ]
        for (pattern, value) in [("p1", requirement), ("p2", nil)] {
            let parsed = LiteralCache.parse(LiteralCache.line(for: pattern, requirement: value))
            #expect(parsed[LiteralCache.Key(pattern)] == .some(value))
        }
    }

    @Test func aPatternMissingFromTheCacheIsAnalysedAtLoad() throws {
        let pattern = #"\bzzqx(?:alpha|beta)\s+gammaword"#
        #expect(LiteralCache.bundled[LiteralCache.Key(pattern)] == nil)
        let set = try YAMLRules.single(pattern: pattern)
        #expect(set.requiredLiterals(ofRule: "test.rule") == [["gammaword"], [#"\bzzqxalpha"#, #"\bzzqxbeta"#]])
    }
}
