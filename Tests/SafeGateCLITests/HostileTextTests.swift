import Foundation
import Testing

/// Issue 8, hostile text: a prompt (or id, file name, backend reply, log line) carrying an OSC
/// title sequence `ESC ] 0 ; pwned BEL`, a right-to-left override, a backspace and a carriage
/// return reaches no output raw, in any command or format. The text is kept, escaped: `\u{1B}` on
/// a terminal, table or CSV, `\u001b` in JSON.
@Suite struct HostileTextTests {
    static let rules = ClassifyCommandTests.fixtureRules

    /// The hostile part; around it the prompts stay readable so the tests can find them.
    static let payload = "\u{1B}]0;pwned\u{07} \u{202E}evil\u{202C} x\u{08}y z\rw \u{2066}iso\u{2069}"
    /// Classified harmful by the fixture rules.
    static let harmful = "please kill him " + payload
    /// Classified safe: the fake backend answers it, echoing its first words.
    static let safe = "tell me \u{1B}]0;pwned\u{07} \u{202E}about\u{202C} cats\u{08} \u{2067}today\u{2069}\rnow"

    /// Fails when `text` holds ESC, BEL, BS, CR, the bidi embeddings/overrides U+202A–U+202E or
    /// the isolates U+2066–U+2069, and names the first one found.
    static func expectClean(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let bad = text.unicodeScalars.first { scalar in
            switch scalar.value {
            case 0x1B, 0x07, 0x08, 0x0D, 0x202A...0x202E, 0x2066...0x2069: true
            default: false
            }
        }
        #expect(bad == nil, "\(what) holds raw U+\(String(bad?.value ?? 0, radix: 16, uppercase: true))", sourceLocation: sourceLocation)
    }

    static func expectClean(_ result: CLIResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        expectClean(result.out, "\(what) stdout", sourceLocation: sourceLocation)
        expectClean(result.err, "\(what) stderr", sourceLocation: sourceLocation)
    }

    static let terminalForm = "\\u{1B}]0;pwned\\u{7}"
    static let jsonForm = "\\u001b]0;pwned\\u0007"

    /// `text` as a JSON string literal (Foundation's encoder, not the one under test).
    static func jsonString(_ text: String) -> String {
        let array = String(decoding: try! JSONSerialization.data(withJSONObject: [text]), as: UTF8.self)
        return String(array.dropFirst().dropLast())
    }

    // MARK: classify

    @Test(arguments: ["jsonl", "csv", "table"])
    func classifyEscapesPromptsIdsAndErrors(format: String) async throws {
        // Text input: a hostile prompt. JSONL input: a hostile id and a hostile broken record.
        let text = try ClassifyCommandTests.temporaryFile("hostile.txt", Array((Self.harmful + "\n" + Self.safe + "\n").utf8))
        let jsonl = try ClassifyCommandTests.temporaryFile(
            "hostile.jsonl",
            Array(("{\"id\":\(Self.jsonString(Self.payload)),\"text\":\(Self.jsonString(Self.harmful))}\n"
                + "{\"id\":\"broken\",\"text\":\"\(Self.payload)\"}\n").utf8))
        let result = await runCLI(["classify", text, jsonl, "--id-field", "id", "--output-format", format, "--rules", Self.rules])
        // The JSONL file's second line holds raw control characters, which JSON does not allow: an
        // error record (65) whose message quotes nothing raw; all four records are written.
        #expect(result.status == 65)
        Self.expectClean(result, "classify \(format)")
        let rows = result.out.split(separator: "\n").filter { !$0.hasPrefix("id,") && !$0.hasPrefix("ID") }
        #expect(rows.count == 4)
        switch format {
        case "jsonl": #expect(result.out.contains(Self.jsonForm))
        default: #expect(result.out.contains(Self.terminalForm))
        }

        // Without an id field the text file's prompts are classified; the table shows them escaped.
        let plain = await runCLI(["classify", text, "--output-format", format, "--rules", Self.rules])
        #expect(plain.status == 0)
        Self.expectClean(plain, "classify \(format), prompts")
        if format == "table" {
            #expect(plain.out.contains("harmful"))
            #expect(plain.out.contains("please kill him \\u{1B}]0;pwned"))
        }
    }

    @Test func fileNamesCarryingEscapesAreShownEscaped() async throws {
        let name = "bad\u{1B}]0;pwned\u{07}\u{202E}.jsonl"
        let path = try ClassifyCommandTests.temporaryFile(name, Array("not json\n".utf8))
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let missing = directory + "/missing\u{1B}[2J\u{202E}.txt"
        for format in ["jsonl", "csv", "table"] {
            let result = await runCLI(["classify", path, missing, "--output-format", format, "--rules", Self.rules])
            #expect(result.status == 66)
            Self.expectClean(result, "classify \(format) with hostile file names")
            #expect(result.err.contains("cannot open \(directory)/missing\\u{1B}[2J\\u{202E}.txt"))
            #expect(result.out.contains("pwned"), "the error record names the file")
        }
        let eval = await runCLI(["eval", path, "--rules", Self.rules])
        #expect(eval.status == 65)
        Self.expectClean(eval, "eval with a hostile file name")
    }

    // MARK: explain

    @Test func explainTextAndJSON() async throws {
        let text = await runCLI(["explain", Self.harmful, "--rules", Self.rules])
        #expect(text.status == 0)
        Self.expectClean(text, "explain")
        #expect(text.out.contains(Self.terminalForm))
        #expect(text.out.contains("test.violence.kill-person"))

        let json = await runCLI(["explain", Self.harmful, "--json", "--rules", Self.rules])
        #expect(json.status == 0)
        Self.expectClean(json, "explain --json")
        #expect(json.out.contains(Self.jsonForm))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let views = try #require(object["views"] as? [String: String])
        #expect(views.values.contains { $0.contains("\u{202E}") }, "JSON escaping keeps the text's meaning")
    }

    // MARK: eval

    @Test(arguments: ["text", "json"])
    func evalMissesAndProblems(format: String) async throws {
        let corpus = [
            "{\"id\":\(Self.jsonString("id" + Self.payload)),\"text\":\(Self.jsonString(Self.safe)),\"label\":\"emergency\"}",
            "{\"id\":\"ok\",\"text\":\(Self.jsonString(Self.harmful)),\"label\":\"harmful\",\"type\":\"violence\"}",
            "{\"id\":\"bad\",\"text\":\(Self.jsonString(Self.payload)),\"label\":\(Self.jsonString(Self.payload))}",
        ].joined(separator: "\n") + "\n"
        let path = try ClassifyCommandTests.temporaryFile("corpus.jsonl", Array(corpus.utf8))
        let result = await runCLI(["eval", path, "--format", format, "--rules", Self.rules])
        #expect(result.status == 65, "the third record's label is not a label")
        Self.expectClean(result, "eval \(format)")
        #expect(result.out.contains(format == "json" ? Self.jsonForm : "id" + Self.terminalForm), "the miss is listed")
        #expect(result.out.contains("misclassified"))
    }

    // MARK: respond

    @Test func respondTextAndJSONEscapeTheBackendsEcho() async throws {
        let text = await runCLI(["respond", Self.safe, "--no-log", "--rules", Self.rules])
        #expect(text.status == 0)
        Self.expectClean(text, "respond")
        #expect(text.out.contains("In short"), "the fake backend answered")
        #expect(text.out.contains(Self.terminalForm), "its echo of the prompt is escaped")

        let json = await runCLI(["respond", Self.safe, "--json", "--no-log", "--rules", Self.rules])
        #expect(json.status == 0)
        Self.expectClean(json, "respond --json")
        #expect(json.out.contains(Self.jsonForm))
        #expect(json.out.contains("\\u202e"))

        let refused = await runCLI(["respond", Self.harmful, "--json", "--no-log", "--rules", Self.rules])
        Self.expectClean(refused, "respond --json, refusal")
    }

    @Test func respondErrorCardAndLogLines() async throws {
        let log = try ClassifyCommandTests.temporaryFile("placeholder", []) + ".log/errors.jsonl"
        for json in [false, true] {
            let result = await runCLI(
                ["respond", Self.safe, "--fake-failures", "timeout,malformed", "--max-attempts", "2", "--retry-delay-ms", "0",
                 "--log-file", log, "--log-prompts", "--rules", Self.rules] + (json ? ["--json"] : []))
            #expect(result.status == 69)
            Self.expectClean(result, "respond error card (json: \(json))")
        }
        let lines = try String(contentsOfFile: log, encoding: .utf8)
        Self.expectClean(lines, "error log")
        let events = lines.split(separator: "\n")
        #expect(events.count >= 4, "two failed attempts per run, each a line")
        #expect(events.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "one event per line")
        #expect(lines.contains(Self.jsonForm), "the prompt is logged, escaped")
        #expect(lines.contains("\\r"))
    }

    // MARK: chat, through the binary

    @Test func chatThroughAPipe() throws {
        let log = try ClassifyCommandTests.temporaryFile("placeholder", []) + ".chat/errors.jsonl"
        let input = [
            Self.safe,
            "/explain",
            Self.harmful,
            "/explain",
            "/fail " + Self.payload,
            "/profile " + Self.payload,
            "/locale " + Self.payload,
            "/" + Self.payload,
            "/fail unavailable",
            Self.safe,
            "d" + Self.payload,
            "d",
            "/quit",
        ].joined(separator: "\n") + "\n"
        let result = try ChatEndToEndTests.run(
            ["chat", "--log-file", log, "--log-prompts", "--max-attempts", "1", "--rules", Self.rules], input: input,
            environment: ["NO_COLOR": "1"])
        #expect(result.status == 0)
        Self.expectClean(result.out, "chat stdout")
        Self.expectClean(result.err, "chat stderr")
        #expect(result.out.contains("In short"))
        #expect(result.out.contains("test.violence.kill-person"), "/explain ran")
        #expect(result.out.contains("script not changed"))
        #expect(result.out.contains(Self.terminalForm))
        let lines = try String(contentsOfFile: log, encoding: .utf8)
        Self.expectClean(lines, "chat error log")
        #expect(lines.contains(Self.jsonForm))
    }
}
