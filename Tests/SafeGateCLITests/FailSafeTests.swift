import ArgumentParser
import Assistant
import Foundation
import SafetyClassifier
import SafetyCore
import Testing

@testable import SafeGateCLI

/// The fail-safe policy through every command (DEVELOPERS.md "Fail-safe policy"): prompts over
/// `--max-prompt-bytes` are classified on a head and a tail window and never silently cleared; a
/// rule that could have flagged a prompt but stopped at a match limit makes a `safe` label
/// uncertain; by default such prompts fail closed (classify: error record, exit 65; respond and
/// chat: a typed `unchecked` error, nothing sent to the model), `--fail-open` labels them, marked
/// incomplete. A rule set that does not load stops every command with 78.
@Suite struct FailSafeTests {
    /// A harmful rule, and one with nested quantifiers that hits PCRE2's match limit on
    /// `steal xxx…x! y` (on the ascii view: the squashed view would shorten the run of x).
    static let rulesYAML = """
        language: en
        rules:
          - id: t.violence.kill
            label: harmful
            type: violence
            views: [ascii]
            pattern: '\\bkill\\s+him\\b'
            examples:
              match: ["kill him"]
              no_match: ["skill him"]
            note: A test rule.
          - id: t.illegal.runaway
            label: harmful
            type: illegal
            views: [ascii]
            pattern: '\\bsteal(?:\\s*(?:x+)+)+y\\b'
            examples:
              match: ["steal xy"]
              no_match: ["steal nothing"]
            note: Catastrophic backtracking on purpose.
        """

    /// 108 bytes of safe text.
    static let filler = String(repeating: "the weather is nice today. ", count: 4)
    /// Harm in the middle: outside both 50-byte windows of `--max-prompt-bytes 100`.
    static let middle = filler + "kill him " + filler
    /// Harm at the end: inside the tail window.
    static let tail = filler + filler + "I will kill him"
    /// Hits the match limit of `t.illegal.runaway`.
    static let runaway = "steal " + String(repeating: "x", count: 60) + "! y"

    /// A fresh scratch directory with `files` (removed when the test process exits).
    static func directory(_ files: [String: String]) throws -> String {
        let directory = try TestScratch.directory()
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return directory.path
    }

    static func rules() throws -> String { try directory(["en.yaml": rulesYAML]) }

    static func input(_ lines: [String], name: String = "prompts.txt") throws -> String {
        try directory([name: lines.joined(separator: "\n") + "\n"]) + "/" + name
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not JSON: \(text)")
    }

    static func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { try json(String($0)) }
    }

    // MARK: classify

    @Test func harmInTheUnclassifiedMiddleFailsClosedAsAnErrorRecord() async throws {
        let rules = try Self.rules()
        let file = try Self.input(["hello", Self.middle, "kill him"])
        let summaryPath = rules + "/summary.json"
        let result = await runCLI([
            "classify", file, "--rules", rules, "--max-prompt-bytes", "100", "--output-format", "jsonl",
            "--summary-json", summaryPath,
        ])
        #expect(result.status == 65, "\(result.err)")
        let records = try Self.records(result.out)
        #expect(records.count == 3)
        #expect(records.map { $0["id"] as? String } == ["1", "2", "3"])
        #expect(records[0]["label"] as? String == "safe")
        #expect(records[0]["truncated"] == nil && records[0]["incomplete"] == nil)
        #expect(records[1]["label"] is NSNull)
        let error = try #require(records[1]["error"] as? String)
        #expect(error.contains("over the 100-byte limit"))
        #expect(error.contains("--fail-open"))
        let truncated = try #require(records[1]["truncated"] as? [String: Any])
        #expect(truncated["total_bytes"] as? Int == Self.middle.utf8.count)
        #expect(truncated["classified_bytes"] as? Int == 100)
        #expect(records[2]["label"] as? String == "harmful")
        #expect(result.err.contains("failed closed"))
        let summary = try Self.json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: summaryPath)), as: UTF8.self))
        #expect(summary["failed_closed"] as? Int == 1)
        #expect(summary["errors"] as? Int == 1)
        #expect(summary["records"] as? Int == 3)
    }

    @Test func failOpenLabelsTheTruncatedRecordAndSaysSo() async throws {
        let rules = try Self.rules()
        let file = try Self.input(["hello", Self.middle])
        let result = await runCLI([
            "classify", file, "--rules", rules, "--max-prompt-bytes", "100", "--fail-open", "--output-format", "jsonl",
        ])
        #expect(result.status == 0, "\(result.err)")
        let records = try Self.records(result.out)
        #expect(records.count == 2)
        #expect(records[1]["label"] as? String == "safe")
        #expect(records[1]["error"] == nil)
        #expect(records[1]["incomplete"] as? Bool == true)
        let truncated = try #require(records[1]["truncated"] as? [String: Any])
        #expect(truncated["total_bytes"] as? Int == Self.middle.utf8.count)
        #expect(truncated["classified_bytes"] as? Int == 100)
    }

    @Test func harmInTheTailWindowIsHarmfulAndMarkedTruncated() async throws {
        let rules = try Self.rules()
        let file = try Self.input([Self.tail])
        let result = await runCLI(["classify", file, "--rules", rules, "--max-prompt-bytes", "100", "--output-format", "jsonl"])
        #expect(result.status == 0, "\(result.err)")
        let records = try Self.records(result.out)
        #expect(records.count == 1)
        #expect(records[0]["label"] as? String == "harmful")
        #expect(records[0]["type"] as? String == "violence")
        #expect((records[0]["truncated"] as? [String: Any])?["total_bytes"] as? Int == Self.tail.utf8.count)
    }

    @Test func theDefaultBoundClassifiesOrdinaryPromptsWhole() async throws {
        let rules = try Self.rules()
        let file = try Self.input([Self.middle])
        let result = await runCLI(["classify", file, "--rules", rules, "--output-format", "jsonl"])
        #expect(result.status == 0, "\(result.err)")
        let records = try Self.records(result.out)
        #expect(records.first?["label"] as? String == "harmful")
        #expect(records.first?["truncated"] == nil)
    }

    @Test func aMatchLimitHitFailsClosedAndFailOpenMarksItIncomplete() async throws {
        let rules = try Self.rules()
        let file = try Self.input([Self.runaway, "kill him"])
        let closed = await runCLI(["classify", file, "--rules", rules, "--output-format", "jsonl"])
        #expect(closed.status == 65, "\(closed.err)")
        let records = try Self.records(closed.out)
        #expect(records.count == 2)
        #expect(records[0]["label"] is NSNull)
        let error = try #require(records[0]["error"] as? String)
        #expect(error.contains("t.illegal.runaway"))
        #expect(error.contains("limit"))
        #expect(records[1]["label"] as? String == "harmful")

        let open = await runCLI(["classify", file, "--rules", rules, "--output-format", "jsonl", "--fail-open"])
        #expect(open.status == 0, "\(open.err)")
        let openRecords = try Self.records(open.out)
        #expect(openRecords[0]["label"] as? String == "safe")
        #expect(openRecords[0]["incomplete"] as? Bool == true)
        #expect(openRecords[0]["truncated"] == nil)
    }

    @Test func csvAndTableShowIncompleteRecords() async throws {
        let rules = try Self.rules()
        let file = try Self.input([Self.middle])
        let csv = await runCLI([
            "classify", file, "--rules", rules, "--max-prompt-bytes", "100", "--fail-open", "--output-format", "csv",
        ])
        #expect(csv.status == 0)
        let lines = csv.out.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix("1,safe,") == true)
        #expect(lines.last?.contains("incomplete: classified 100 of \(Self.middle.utf8.count) bytes") == true)

        let table = await runCLI([
            "classify", file, "--rules", rules, "--max-prompt-bytes", "100", "--fail-open", "--output-format", "table",
        ])
        #expect(table.out.contains("(incomplete: classified 100 of"))

        let closed = await runCLI(["classify", file, "--rules", rules, "--max-prompt-bytes", "100", "--output-format", "csv"])
        #expect(closed.status == 65)
        #expect(closed.out.split(separator: "\n").last?.hasPrefix("1,,,,,") == true)
    }

    // MARK: flags

    @Test(arguments: ["1", "0"]) func tooSmallABoundIsAUsageError(value: String) async throws {
        let result = await runCLI(["classify", "--max-prompt-bytes", value, "--rules", try Self.rules()])
        #expect(result.status == 64)
        #expect(result.err.contains("--max-prompt-bytes must be at least 2"))
        #expect(result.out.isEmpty)
    }

    @Test func suffixesAreAccepted() throws {
        let options = try PolicyOptions.parse(["--max-prompt-bytes", "64K"])
        #expect(options.policy.maxPromptBytes == 64 * 1024)
        #expect(options.policy.failure == .failClosed)
        #expect(try PolicyOptions.parse(["--max-prompt-bytes", "1M", "--fail-open"]).policy.failure == .failOpen)
        #expect(try PolicyOptions.parse([]).policy.maxPromptBytes == 256 * 1024)
    }

    @Test(arguments: ["classify", "eval", "explain", "respond", "chat"]) func theFlagsAreInTheHelp(command: String) {
        let text = SafeGate.helpMessage(for: Self.commandType(command), columns: 200)
        #expect(text.contains("--max-prompt-bytes"))
        #expect(text.contains("--fail-open"))
    }

    static func commandType(_ name: String) -> any ParsableCommand.Type {
        switch name {
        case "classify": SafeGate.Classify.self
        case "eval": SafeGate.Eval.self
        case "explain": SafeGate.Explain.self
        case "respond": SafeGate.Respond.self
        default: SafeGate.Chat.self
        }
    }

    // MARK: eval

    @Test func evalCountsAndListsRecordsThatFailedClosed() async throws {
        let rules = try Self.rules()
        func record(_ id: String, _ text: String, _ label: String, _ type: String?) throws -> String {
            let object: [String: Any] = ["id": id, "text": text, "lang": "en", "label": label, "type": type ?? NSNull()]
            return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
        }
        let corpus = try Self.input(
            [
                try record("mid", Self.middle, "harmful", "violence"), try record("ok", "hello there", "safe", nil),
                try record("run", Self.runaway, "harmful", "illegal"),
            ], name: "corpus.jsonl")
        let closed = await runCLI(["eval", corpus, "--rules", rules, "--max-prompt-bytes", "100", "--format", "json"])
        #expect(closed.status == 65, "\(closed.err)")
        let report = try Self.json(closed.out)
        #expect(report["failed_closed"] as? Int == 2)
        #expect(report["incomplete"] as? Int == 2)
        #expect(report["records"] as? Int == 1, "failed-closed records are not counted as safe")
        let listed = try #require(report["incomplete_records"] as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == ["mid", "run"])
        #expect(closed.err.contains("mid: not classified in full"))

        let text = await runCLI(["eval", corpus, "--rules", rules, "--max-prompt-bytes", "100"])
        #expect(text.out.contains("not classified in full: 2 (failed closed, not in the figures: 2)"))

        let open = await runCLI([
            "eval", corpus, "--rules", rules, "--max-prompt-bytes", "100", "--fail-open", "--format", "json",
        ])
        #expect(open.status == 0, "\(open.err)")
        let openReport = try Self.json(open.out)
        #expect(openReport["failed_closed"] as? Int == 0)
        #expect(openReport["incomplete"] as? Int == 2)
        #expect(openReport["records"] as? Int == 3)
    }

    // MARK: explain

    @Test func explainShowsTheTruncationAndTheReason() async throws {
        let rules = try Self.rules()
        let json = await runCLI(["explain", Self.middle, "--rules", rules, "--max-prompt-bytes", "100", "--json"])
        #expect(json.status == 0, "\(json.err)")
        let object = try Self.json(json.out)
        #expect(object["label"] is NSNull)
        #expect(object["failed_closed"] as? Bool == true)
        #expect((object["truncated"] as? [String: Any])?["classified_bytes"] as? Int == 100)
        #expect((object["incomplete_reason"] as? String)?.contains("over the 100-byte limit") == true)

        let text = await runCLI(["explain", Self.runaway, "--rules", rules])
        #expect(text.out.contains("incomplete: rule t.illegal.runaway stopped at a limit"))
        #expect(text.out.contains("label:    none — failed closed"))

        let whole = await runCLI(["explain", Self.middle, "--rules", rules, "--json"])
        let wholeObject = try Self.json(whole.out)
        #expect(wholeObject["label"] as? String == "harmful")
        #expect(wholeObject["truncated"] == nil)
    }

    // MARK: respond and the gateway

    @Test func respondNeverForwardsAPromptThatFailedClosed() async throws {
        let rules = try Self.rules()
        // Every backend call would fail: were the prompt forwarded, the error would be backendFailed (69).
        let failures = ["--fake-failures", "unavailable,unavailable,unavailable,unavailable", "--max-attempts", "1"]
        let result = await runCLI(["respond", Self.runaway, "--rules", rules, "--json", "--no-log"] + failures)
        #expect(result.status == 65, "\(result.err)")
        let object = try Self.json(result.out)
        #expect(object["label"] is NSNull)
        #expect(object["reply"] is NSNull)
        #expect(object["incomplete"] as? Bool == true)
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["code"] as? String == "unchecked")
        #expect(error["title"] as? String == "Message not checked")
        #expect((error["message"] as? String)?.contains("different words") == true)
        #expect(error["recovery"] as? [String] == ["dismiss"])

        let open = await runCLI(["respond", Self.runaway, "--rules", rules, "--json", "--no-log", "--fail-open"])
        #expect(open.status == 0, "\(open.err)")
        #expect(try Self.json(open.out)["label"] as? String == "safe")
    }

    @Test func respondAsksToShortenATruncatedPromptInTheUsersLanguage() async throws {
        let rules = try Self.rules()
        let english = await runCLI(["respond", Self.middle, "--rules", rules, "--max-prompt-bytes", "100", "--json", "--no-log"])
        #expect(english.status == 65)
        let error = try #require(try Self.json(english.out)["error"] as? [String: Any])
        #expect((error["message"] as? String)?.contains("Shorten it to under 100 B") == true)

        let longTurkish = String(repeating: "bugün hava çok güzel, yarın da öyle olacakmış. ", count: 6)
        let turkish = await runCLI([
            "respond", longTurkish, "--rules", rules, "--max-prompt-bytes", "100", "--locale", "tr-TR", "--no-log",
        ])
        #expect(turkish.status == 65)
        #expect(turkish.out.contains("Mesaj denetlenemedi"))
        #expect(turkish.out.contains("100 B sınırının altına kısaltıp"))
    }

    @Test func theGatewayDoesNotCallTheBackendForAPromptThatFailedClosed() async throws {
        let options = try SafeGate.Respond.parse([Self.runaway, "--rules", try Self.rules(), "--no-log"])
        let classifier = try options.classifierOptions.makeClassifier()
        let (gateway, backend) = try GatewayFactory.make(
            classifier: classifier, fake: options.fakeOptions, turn: options.turnOptions, console: Console.current)
        let turn = await gateway.respond(to: Self.runaway)
        #expect(turn.error?.code == "unchecked")
        #expect(turn.reply == nil)
        #expect(backend.calls == 0)
        let safe = await gateway.respond(to: "hello there")
        #expect(safe.reply != nil)
        #expect(backend.calls == 1)
    }

    // MARK: a rule set that does not load

    static let brokenRules = """
        language: en
        rules:
          - id: t.violence.broken
            label: harmful
            type: violence
            views: [ascii]
            pattern: '\\bkill(\\s+him'
            examples:
              match: ["kill him"]
              no_match: ["skill him"]
            note: An unclosed group.
        """

    @Test func respondWithABrokenRuleSetExits78NamingTheFile() async throws {
        let rules = try Self.directory(["broken.yaml": Self.brokenRules])
        let result = await runCLI(["respond", "hello there", "--rules", rules, "--json", "--no-log"])
        #expect(result.status == 78)
        #expect(result.out.isEmpty, "no turn was answered")
        #expect(result.err.contains("broken.yaml:"))
    }

    @Test func chatWithABrokenRuleSetExits78AndNeverStarts() throws {
        let rules = try Self.directory(["broken.yaml": Self.brokenRules])
        let result = try ChatEndToEndTests.run(
            ["chat", "--rules", rules, "--no-log"], input: "hello there\n/quit\n", environment: ["NO_COLOR": "1"])
        #expect(result.status == 78)
        #expect(!result.out.contains("safegate chat"), "no conversation starts")
        #expect(result.err.contains("broken.yaml:"))
    }

    @Test func chatRefusesToForwardAPromptThatFailedClosed() throws {
        let rules = try Self.rules()
        let result = try ChatEndToEndTests.run(
            ["chat", "--rules", rules, "--no-log", "--fake-failures", "unavailable,unavailable,unavailable,unavailable",
             "--max-attempts", "1"],
            input: Self.runaway + "\nd\n/quit\n", environment: ["NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out.contains("Message not checked"))
        #expect(!result.out.contains("The AI ran into a problem"))
    }
}
