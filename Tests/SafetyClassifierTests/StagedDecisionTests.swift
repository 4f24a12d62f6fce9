import Foundation
import RuleEngine
import SafetyCore
import Testing
import TextNormalization

@testable import SafetyClassifier

/// The classifier searches rules in stages and skips stages that cannot change the label (see
/// `Session.decide`). That is a speed-up only: on every corpus record, under the record's
/// profile, the label and the deciding rules must equal those of searching every rule.
@Suite struct StagedDecisionTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    struct Record: Decodable {
        var id: String
        var text: String
        var profile: String?
    }

    @Test(arguments: ["en", "tr"])
    func stagedDecisionsEqualDecisionsOnEveryRule(language: String) throws {
        let data = try Data(contentsOf: Self.corpus.appendingPathComponent("\(language).jsonl"))
        let records = try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try JSONDecoder().decode(Record.self, from: Data($0.utf8))
        }
        try #require(records.count > 500)
        let classifier = SafetyClassifier(rules: try CompiledRuleSet.load(from: .bundled))
        let calendar = try Profile.load("calendar")
        let session = classifier.makeSession()
        var differences: [String] = []
        for (index, record) in records.enumerated() {
            // Each record under its own profile; every 4th also under the other one.
            let own = record.profile == "calendar" ? calendar : Profile.general
            let other = record.profile == "calendar" ? Profile.general : calendar
            for profile in index % 4 == 0 ? [own, other] : [own] {
                let staged = session.classify(record.text, profile: profile)
                let full = session.classify(record.text, profile: profile, evidence: .all)
                if staged.classification != full.classification || staged.decidingRuleIDs != full.decidingRuleIDs
                    || staged.suppressed.map(\.rule.id) != full.suppressed.map(\.rule.id)
                        && staged.classification != .emergency
                {
                    differences.append(
                        "\(record.id) [\(profile.name)]: staged \(staged.classification) \(staged.decidingRuleIDs), all \(full.classification) \(full.decidingRuleIDs)"
                    )
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(20).joined(separator: "\n"))")
        // The stages must actually save searches on this corpus.
        let counted = classifier.makeSession()
        for record in records.prefix(200) { _ = counted.classify(record.text) }
        let stagedSearches = counted.counters.ruleViewsSearched
        let everything = classifier.makeSession()
        for record in records.prefix(200) { _ = everything.classify(record.text, evidence: .all) }
        #expect(stagedSearches < everything.counters.ruleViewsSearched)
    }

    /// A safe look-alike that overlaps a harmful rule's first match must not hide a later one
    /// (a guard for anyone who would stop harmful rules at their first match: measured, it saved
    /// under 1 % of a harmful 1 KB prompt's instructions, as most fire once).
    @Test func aSuppressedFirstMatchDoesNotHideALaterOne() throws {
        func rule(_ id: String, _ label: RuleLabel, _ pattern: String) -> Rule {
            Rule(
                id: id, label: label, type: label == .harmful ? .violence : nil, views: [.ascii], language: .en, pattern: pattern,
                examples: RuleExamples(match: ["x"], noMatch: ["y"]), note: "test")
        }
        let rules = try CompiledRuleSet(rules: [
            rule("t.kill", .harmful, #"\bkill(?:ing)?\b"#), rule("t.killing-time", .safe, #"\bkilling\s+time\b"#),
        ])
        let session = SafetyClassifier(rules: rules).makeSession()
        for text in ["I was killing time, now I will kill him", "killing time", "I will kill him, killing time"] {
            let staged = session.classify(text)
            let full = session.classify(text, evidence: .all)
            #expect(staged.classification == full.classification, "\(text)")
            #expect(staged.decidingRuleIDs == full.decidingRuleIDs, "\(text)")
            #expect(staged.suppressed.map(\.originalRange) == full.suppressed.map(\.originalRange), "\(text)")
        }
        #expect(session.classify("I was killing time, now I will kill him").classification == .harmful(.violence))
        #expect(session.classify("killing time").classification == .safe)
    }
}
