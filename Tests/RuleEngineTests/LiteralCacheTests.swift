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
        let anchor = Anchor(
            literals: [RequiredLiteral(text: "kill", wordStart: true), RequiredLiteral(text: "a:b.c", wordEnd: true)],
            prefix: LengthBound(characters: 7, wordRuns: 1, spaceRuns: 2, nonWordRuns: 3, anyRuns: 4))
        for (pattern, value) in [("p1", requirement), ("p2", nil)] {
            for anchor in [anchor, nil] {
                let entry = LiteralCache.Entry(requirement: value, anchor: anchor)
                let parsed = LiteralCache.parse(LiteralCache.line(for: pattern, entry: entry))
                #expect(parsed[LiteralCache.Key(pattern)] == entry)
            }
        }
    }

    @Test func aPatternMissingFromTheCacheIsAnalysedAtLoad() throws {
        let pattern = #"\bzzqx(?:alpha|beta)\s+gammaword"#
        #expect(LiteralCache.bundled[LiteralCache.Key(pattern)] == nil)
        let set = try YAMLRules.single(pattern: pattern)
        #expect(set.requiredLiterals(ofRule: "test.rule") == [["gammaword"], [#"\bzzqxalpha"#, #"\bzzqxbeta"#]])
    }
}
