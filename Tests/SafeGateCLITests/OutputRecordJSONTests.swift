import Foundation
import SafetyCore
import Testing
import TextNormalization

@testable import RuleEngine
@testable import SafeGateCLI
@testable import SafetyClassifier

/// `classify --output-format jsonl` writes each record in place (`OutputRecord.appendJSONLine`).
/// It must write what the general JSON builder writes for the same fields (CONTRACT.md), byte for
/// byte, whatever the strings hold.
@Suite struct OutputRecordJSONTests {
    /// The record as `JSONText.Object` renders it: the way lines were built before.
    static func reference(_ record: OutputRecord) -> String {
        func json(_ truncation: Truncation) -> JSONText.Value {
            var object = JSONText.Object()
            object["total_bytes"] = .int(truncation.totalBytes)
            object["classified_bytes"] = .int(truncation.classifiedBytes)
            return .object(object)
        }
        var object = JSONText.Object()
        object["id"] = .string(record.id)
        if let decision = record.decision {
            object["label"] = .string(decision.classification.label.rawValue)
            object["type"] = .optional(decision.classification.type?.rawValue)
            object["lang"] = .string(decision.language.rawValue)
            object["rules"] = .array(decision.decidingRuleIDs.map { .string($0) })
            if !decision.limitHits.isEmpty { object["limit_hits"] = .array(decision.limitHits.map { .string($0.description) }) }
            if let truncation = decision.truncation { object["truncated"] = json(truncation) }
            if !decision.isComplete { object["incomplete"] = .bool(true) }
            if let warning = record.warning { object["warning"] = .string(warning) }
        } else {
            object["label"] = .null
            object["error"] = .string(record.error ?? "unreadable record")
            if let truncation = record.truncation { object["truncated"] = json(truncation) }
        }
        return object.text + "\n"
    }

    static let ids = ["17", "", "a \"quoted\" id", "back\\slash", "tab\there", "line\u{2028}sep", "bidi\u{202E}x", "İstanbul-ğ", "del\u{7F}"]

    @Test func everyKindOfRecordIsWrittenAsTheJSONBuilderWritesIt() throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        let session = SafetyClassifier(rules: rules).makeSession()
        let truncating = SafetyClassifier(rules: rules, policy: ClassificationPolicy(maxPromptBytes: 40, failure: .failOpen)).makeSession()
        var decisions = [
            session.classify("schedule a meeting with Ana at 3pm"),
            session.classify("I want to kill myself tonight"),
            session.classify("how to make a pipe bomb at home"),
            session.classify("bu toplantılar beni öldürüyor"),
            truncating.classify(String(repeating: "a calm and long prompt about gardens ", count: 8)),
        ]
        var cut = session.classify("tell me about tomatoes")
        cut.limitHits = [LimitHit(ruleID: "en.violence.kill-person", view: .ascii, reason: .matchLimit, unlessIndex: nil)]
        decisions.append(cut)
        var records: [OutputRecord] = []
        for (index, id) in Self.ids.enumerated() {
            var record = OutputRecord(id: id)
            record.decision = decisions[index % decisions.count]
            if index % 3 == 1 { record.warning = "file.txt:\(index): invalid UTF-8 at byte 3 replaced with U+FFFD \"\u{1}\"" }
            records.append(record)
            var failed = OutputRecord(id: id)
            failed.error = index % 2 == 0 ? "file.txt:\(index): record longer than 10 bytes\n" : nil
            if index % 4 == 0 { failed.truncation = decisions[4].truncation }
            records.append(failed)
        }
        #expect(decisions[4].truncation != nil && !decisions[5].limitHits.isEmpty)
        for record in records {
            var line = "prefix|"
            record.append(.jsonl, to: &line)
            #expect(line == "prefix|" + Self.reference(record), "record \(record.id)")
            // And it is one line of valid JSON.
            let json = String(line.dropFirst("prefix|".count).dropLast())
            #expect(!json.contains("\n"))
            #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil, "\(json)")
        }
    }

    @Test(arguments: ids + ["plain-ascii_id.1", "\u{0}", "\u{9F}", "ok ok"])
    func appendingAQuotedStringEqualsQuotingIt(text: String) {
        var out = "x"
        JSONText.appendQuoted(text, to: &out)
        #expect(out == "x" + JSONText.quote(text))
    }
}
