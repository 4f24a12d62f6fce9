import SafetyCore
import Testing
import TextNormalization

@testable import RuleEngine

/// The bundled rules compile each pattern at its first search. A pattern PCRE2 rejects then must
/// fail every search of its rule (so the classifier fails closed), never crash or pass silently;
/// rules you give are still checked at load; and many threads may compile the same pattern at once.
@Suite struct DeferredCompilationTests {
    static func rule(_ id: String, _ pattern: String, unless: [String] = [], views: [ViewName] = [.raw]) -> Rule {
        Rule(
            id: id, label: .harmful, type: .violence, views: views, language: .en, pattern: pattern, unless: unless,
            examples: RuleExamples(match: ["x"], noMatch: ["y"]), note: "test")
    }

    @Test func aPatternThatDoesNotCompileFailsEverySearchOfItsRule() throws {
        let set = try CompiledRuleSet(deferringCompilationOf: [
            Self.rule("t.bad.pattern", #"\bkill\s+(him"#),
            Self.rule("t.bad.unless", #"\bkill\s+him\b"#, unless: [#"kill\s+[z-a]"#]),
            Self.rule("t.good", #"\bkill\b"#),
        ])
        let result = set.makeMatcher().match("I will kill him")
        #expect(result.firedRuleIDs == ["t.bad.unless", "t.good"])
        let failures = result.failures.sorted { $0.ruleID < $1.ruleID }
        #expect(failures.map(\.ruleID) == ["t.bad.pattern", "t.bad.unless"])
        #expect(failures.first?.message == "pattern does not compile: missing closing parenthesis at offset 13")
        #expect(failures.last?.message == "pattern does not compile: range out of order in character class at offset 10")
        #expect(failures.allSatisfy { $0.code > 0 })
        #expect(!result.isComplete)
        // Every later search fails the same way; nothing is cached as a no-match.
        #expect(set.makeMatcher().match("kill him now").failures.map(\.ruleID).sorted() == ["t.bad.pattern", "t.bad.unless"])
        // The same rules given as files are refused at load, with file and line.
        #expect(throws: RuleSetError.self) {
            try CompiledRuleSet(rules: [Self.rule("t.bad.pattern", #"\bkill\s+(him"#)])
        }
    }

    @Test func deferredPatternsMatchAsPatternsCompiledAtLoad() throws {
        let rules = [
            Self.rule("t.a", #"\b(kill|murder)\s+(him|her)\b"#, unless: [#"kill\s+her\s+process"#], views: [.squashed, .folded]),
            Self.rule("t.b", #"öldür\w*"#, views: [.folded, .ascii]),
        ]
        let eager = try CompiledRuleSet(rules: rules)
        let deferred = try CompiledRuleSet(deferringCompilationOf: rules)
        for text in ["please k.i.l.l him", "kill her process", "onu öldüreceğim", "MURDER HER", ""] {
            #expect(eager.makeMatcher().match(text).matches == deferred.makeMatcher().match(text).matches, "\(text)")
        }
        #expect(deferred.compiled[0].pattern.minimumLength == eager.compiled[0].pattern.minimumLength)
        #expect(deferred.compiled[0].pattern.patternError == nil)
    }

    /// A search JIT-compiles only the code it runs: the bytes twin for a pure-ASCII view, the UTF
    /// code otherwise (a first prompt pays for one of them, not both).
    @Test func aSearchJITCompilesOnlyTheCodeItRuns() throws {
        let set = try CompiledRuleSet(deferringCompilationOf: [Self.rule("t.k", #"\bkill\b"#)])
        let pattern = set.compiled[0].pattern
        #expect(pattern.jitDone == (false, false))
        #expect(set.makeMatcher().match("kill it").firedRuleIDs == ["t.k"])
        #expect(pattern.jitDone == (false, true))
        #expect(set.makeMatcher().match("kill it, señor").firedRuleIDs == ["t.k"])
        #expect(pattern.jitDone == (true, true))
        let warm = try CompiledRuleSet(deferringCompilationOf: [Self.rule("t.k", #"\bkill\b"#)])
        warm.prepareAll()
        #expect(warm.compiled[0].pattern.jitDone == (true, true))
    }

    @Test func theBundledRulesCompileEveryPatternWhenAskedTo() throws {
        let checked = try CompiledRuleSet.load(from: .bundled, checkingPatterns: true)
        let lazy = try CompiledRuleSet.load(from: .bundled)
        #expect(checked.rules == lazy.rules)
        for rule in lazy.compiled {
            for pattern in [rule.pattern] + rule.unless {
                #expect(pattern.patternError == nil, "\(rule.rule.id): \(pattern.source)")
            }
        }
    }

    @Test func manyThreadsCompileTheSamePatternsAtOnce() async throws {
        let rules = (0..<40).map { Self.rule("t.r\($0)", #"\bword\#($0)\s+(?:a|b)\b"#, unless: [#"word\#($0)\s+b"#]) }
            + [Self.rule("t.bad", #"\bqqq\s+("#)]
        let texts = (0..<40).map { "say word\($0) a and word\($0) b" + ($0 == 1 ? " qqq x" : "") }
        let expected = try CompiledRuleSet(rules: Array(rules.dropLast())).makeMatcher()
        let wanted = texts.map { expected.match($0).matches.map(\.rule.id) }
        let sequential = try CompiledRuleSet(deferringCompilationOf: rules).makeMatcher()
        let wantedFailures = texts.map { sequential.match($0).failures.map(\.ruleID) }
        #expect(wantedFailures[1] == ["t.bad"])
        // A fresh set: every thread races to compile the same patterns first.
        let set = try CompiledRuleSet(deferringCompilationOf: rules)
        let results = await withTaskGroup(of: Bool.self) { group in
            for task in 0..<4 {
                group.addTask {
                    let matcher = set.makeMatcher()
                    return texts.indices.allSatisfy { round in
                        let i = (round + task * 10) % texts.count
                        let result = matcher.match(texts[i])
                        return result.matches.map(\.rule.id) == wanted[i] && result.failures.map(\.ruleID) == wantedFailures[i]
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [true, true, true, true])
    }
}
