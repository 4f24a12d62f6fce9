import SafetyCore
import Testing
import TextNormalization

@testable import RuleEngine
@testable import SafetyClassifier

/// The fail-safe policy: prompts over the size bound are classified on a head and a tail window
/// and never silently cleared; a search cut short by a limit in a rule that could have flagged the
/// prompt makes a `safe` label uncertain, and the default policy then fails closed.
@Suite struct PolicyTests {
    static let rules: [Rule] = [
        DecisionTests.rule("t.emergency.want-to-die", .emergency, #"\bi\s+want\s+to\s+die\b"#),
        DecisionTests.rule("t.violence.kill", .harmful, type: .violence, #"\bkil+\s+(?:him|her|the\s+\w+)\b"#),
        DecisionTests.rule("t.illegal.runaway", .harmful, type: .illegal, #"\bsteal(?:\s*(?:x+)+)+y\b"#, views: [.ascii]),
        DecisionTests.rule("t.safe.runaway", .safe, #"\bgame(?:\s*(?:x+)+)+y\b"#, views: [.ascii]),
    ]

    static func classifier(maxPromptBytes: Int = 1000, failure: ClassificationPolicy.Failure = .failClosed) -> SafetyClassifier {
        SafetyClassifier(
            rules: try! CompiledRuleSet(rules: rules),
            policy: ClassificationPolicy(maxPromptBytes: maxPromptBytes, failure: failure))
    }

    static let filler = String(repeating: "the weather is nice today. ", count: 100)  // 2,700 bytes

    @Test func harmInTheUnclassifiedMiddleIsNeverClearedSilently() {
        let prompt = Self.filler + "kill him " + Self.filler
        let closed = Self.classifier().makeSession().classify(prompt)
        #expect(closed.classification == .safe)
        #expect(closed.truncation?.totalBytes == prompt.utf8.count)
        #expect(closed.truncation?.classifiedBytes == 1000)
        #expect(!closed.isComplete)
        #expect(closed.failedClosed)
        #expect(closed.incompleteReason?.contains("over the 1000-byte limit") == true)

        let open = Self.classifier(failure: .failOpen).makeSession().classify(prompt)
        #expect(open.classification == .safe)
        #expect(!open.failedClosed)
        #expect(open.truncation != nil)

        let roomy = Self.classifier(maxPromptBytes: 10_000).makeSession().classify(prompt)
        #expect(roomy.classification == .harmful(.violence))
        #expect(roomy.truncation == nil && roomy.isComplete && !roomy.failedClosed)
    }

    @Test func harmInTheTailWindowIsFoundWithSpansInTheWholePrompt() throws {
        let prompt = Self.filler + "then I want to kill him"
        let decision = Self.classifier().makeSession().classify(prompt)
        #expect(decision.classification == .harmful(.violence))
        #expect(!decision.failedClosed)  // a harmful label is never too mild
        let span = try #require(decision.decidingRules.first?.originalRange)
        let bytes = Array(prompt.utf8)
        #expect(String(decoding: bytes[span], as: UTF8.self) == "kill him")
    }

    @Test func windowsAreCutAtCharacterBoundaries() {
        // 3-byte characters all the way: any cut in the middle of one would be invalid UTF-8.
        let prompt = String(repeating: "ş€", count: 700) + " I want to die"
        let decision = Self.classifier().makeSession().classify(prompt)
        #expect(decision.classification == .emergency)
        #expect(!decision.hadInvalidUTF8)
        for range in decision.truncation?.classified ?? [] {
            let bytes = Array(prompt.utf8)
            #expect(range.lowerBound == bytes.count || bytes[range.lowerBound] & 0xC0 != 0x80)
        }
    }

    @Test func aBundledStylePatternThatDoesNotCompileAtFirstUseFailsClosed() throws {
        // Bundled patterns are compiled at their first search (CompiledRuleSet(deferringCompilationOf:)
        // is that path); one PCRE2 rejects must never let a prompt through as safe.
        let rules = [DecisionTests.rule("t.violence.broken", .harmful, type: .violence, #"\bkill\s+(him"#)] + Self.rules
        let classifier = SafetyClassifier(
            rules: try CompiledRuleSet(deferringCompilationOf: rules), policy: ClassificationPolicy(maxPromptBytes: 1000))
        let closed = classifier.makeSession().classify("I will kill him tonight")
        #expect(closed.classification == .harmful(.violence))  // t.violence.kill still fires
        let quiet = classifier.makeSession().classify("him, kill")  // holds every word the broken rule could require
        #expect(quiet.classification == .safe)
        #expect(!quiet.isComplete)
        #expect(quiet.failedClosed)
        #expect(quiet.incompleteReason?.contains("t.violence.broken") == true)
        #expect(quiet.incompleteReason?.contains("does not compile") == true)
    }

    @Test func aHarmfulRuleCutShortByTheMatchLimitFailsClosed() {
        // (The ascii view: the squashed one would shorten the run of x to one.)
        // Nested quantifiers on a run of x not followed by y (a y later keeps PCRE2 from giving up at once).
        let prompt = "steal " + String(repeating: "x", count: 60) + "! y"
        let closed = Self.classifier().makeSession().classify(prompt)
        #expect(closed.classification == .safe)
        #expect(closed.limitHits.contains { $0.ruleID == "t.illegal.runaway" })
        #expect(closed.failedClosed)
        #expect(closed.incompleteReason?.contains("t.illegal.runaway") == true)
        #expect(!Self.classifier(failure: .failOpen).makeSession().classify(prompt).failedClosed)
    }

    @Test func aSafeRuleCutShortCannotMakeTheLabelTooMild() {
        let prompt = "kill him in the game " + String(repeating: "x", count: 60) + "! y"
        let decision = Self.classifier().makeSession().classify(prompt, evidence: .all)
        #expect(decision.limitHits.contains { $0.ruleID == "t.safe.runaway" })
        #expect(decision.classification == .harmful(.violence))
        #expect(!decision.failedClosed)
    }
}
