import Foundation
import Testing

/// `safegate classify` per CONTRACT.md: one output record per input record, in order; malformed
/// records become error records and the run exits 65 at the end.
@Suite struct ClassifyCommandTests {
    /// A file in a fresh scratch directory (removed when the test process exits).
    static func temporaryFile(_ name: String, _ bytes: [UInt8]) throws -> String {
        let directory = try TestScratch.directory()
        let path = directory.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func lines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? ["unparsed": String(line)]
        }
    }

    @Test func brokenJSONLRecordsEachGetAnErrorRecordInOrder() async throws {
        var bytes = Array("{\"text\": \"schedule lunch with Ana\", \"id\": \"a\"}\n".utf8)
        bytes += Array("{\"text\": \"broken\n".utf8)  // not JSON
        bytes += Array("{\"prompt\": \"no text field\", \"id\": \"c\"}\n".utf8)
        bytes += Array("{\"text\": \"bad ".utf8) + [0xFF, 0xFE] + Array(" bytes\", \"id\": \"d\"}\n".utf8)
        bytes += Array("{\"text\": \"last one, no newline\", \"id\": \"e\"}".utf8)
        let path = try Self.temporaryFile("prompts.jsonl", bytes)
        let result = await runCLI(["classify", path, "--id-field", "id", "--rules", Self.fixtureRules])
        #expect(result.status == 65)
        let records = Self.lines(result.out)
        try #require(records.count == 5)
        // A line that is not JSON (or not UTF-8) has no readable id: the record number stands in.
        #expect(records.map { $0["id"] as? String } == ["a", "2", "c", "4", "e"])
        #expect(records[0]["label"] as? String == "safe")
        #expect(records[0]["error"] == nil)
        for index in 1...3 {
            #expect(records[index]["label"] is NSNull)
            #expect((records[index]["error"] as? String)?.contains("prompts.jsonl:\(index + 1)") == true)
        }
        #expect((records[1]["error"] as? String)?.contains("not valid JSON") == true)
        #expect((records[2]["error"] as? String)?.contains("\"text\" is missing") == true)
        #expect((records[3]["error"] as? String)?.contains("invalid UTF-8") == true)
        #expect(records[4]["label"] as? String == "safe")
        #expect(result.err.contains("3 of 5 records"))
    }

    @Test func csvWithQuotedCommasAndNewlines() async throws {
        let csv = """
            key,text,lang\r
            k1,"hello, world",en\r
            k2,"a prompt ""quoted""
            over two lines",en\r
            k3,plain,en\r

            """
        let path = try Self.temporaryFile("prompts.csv", Array(csv.utf8))
        let result = await runCLI(["classify", path, "--id-field", "key", "--rules", Self.fixtureRules])
        #expect(result.status == 0)
        let records = Self.lines(result.out)
        #expect(records.map { $0["id"] as? String } == ["k1", "k2", "k3"])
        #expect(records.allSatisfy { $0["label"] as? String == "safe" })
    }

    @Test func csvWithUnclosedQuoteIsAnErrorRecord() async throws {
        let path = try Self.temporaryFile("bad.csv", Array("text\nfine\n\"never closed\n".utf8))
        let result = await runCLI(["classify", path, "--rules", Self.fixtureRules])
        #expect(result.status == 65)
        let records = Self.lines(result.out)
        #expect(records.count == 2)
        #expect((records[1]["error"] as? String)?.contains("not closed") == true)
    }

    @Test func textLinesAndCSVOutput() async throws {
        let path = try Self.temporaryFile("prompts.txt", Array("first, line\nsecond \"line\"\n".utf8))
        let result = await runCLI(["classify", path, "--output-format", "csv", "--rules", Self.fixtureRules])
        #expect(result.status == 0)
        #expect(result.out.split(separator: "\n").count == 3)
        #expect(result.out.hasPrefix("id,label,type,lang,rules,error\n1,safe,"))
    }

    @Test func missingFileExits66() async {
        let result = await runCLI(["classify", "/nonexistent/prompts.txt", "--rules", Self.fixtureRules])
        #expect(result.status == 66)
        #expect(result.err.contains("/nonexistent/prompts.txt"))
    }

    @Test func directoryInsteadOfFileExits66() async {
        let result = await runCLI(["classify", FileManager.default.temporaryDirectory.path, "--rules", Self.fixtureRules])
        #expect(result.status == 66)
        #expect(result.err.contains("directory"))
    }

    @Test func harmfulAndEmergencyWithDecidingRules() async throws {
        let path = try Self.temporaryFile("prompts.txt", Array("please k.i.l.l him\nI want to d1e\n".utf8))
        let result = await runCLI(["classify", path, "--rules", Self.fixtureRules])
        #expect(result.status == 0)
        let records = Self.lines(result.out)
        #expect(records[0]["label"] as? String == "harmful")
        #expect(records[0]["type"] as? String == "violence")
        #expect(records[0]["rules"] as? [String] == ["test.violence.kill-person"])
        #expect(records[1]["label"] as? String == "emergency")
        #expect(records[1]["type"] is NSNull)
    }

    /// A small rule set that belongs to these tests, so they do not depend on the shipped rules.
    static let fixtureRules: String = {
        let yaml = """
            language: en
            rules:
              - id: test.violence.kill-person
                label: harmful
                type: violence
                views: [squashed]
                pattern: '\\bkil+\\s+(?:him|her|them)\\b'
                examples: {match: ["kill him"], no_match: ["kill the process"]}
                note: Test rule.
              - id: test.emergency.want-to-die
                label: emergency
                views: [squashed]
                pattern: '\\bi\\s+want\\s+to\\s+die\\b'
                examples: {match: ["I want to die"], no_match: ["I want to dine"]}
                note: Test rule.
            """
        return (try? temporaryFile("rules.yaml", Array(yaml.utf8))) ?? "/nonexistent"
    }()
}
