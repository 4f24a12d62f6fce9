import Foundation
import Testing

/// `safegate rules test|lint|list` and `explain --rules`, in-process.
@Suite struct RulesCommandTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../RuleEngineTests/Fixtures").standardizedFileURL.path

    /// A temporary directory holding `files`, removed when `body` returns.
    func withRuleDirectory<T>(_ files: [String: String], _ body: (String) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("safegate-rules-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(name)) }
        return try await body(directory.path)
    }

    @Test func rulesTestPassesOnTheFixtures() async {
        let result = await runCLI(["rules", "test", "--rules", Self.fixtures + "/valid"])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.out == "rules test: 6 rules, 27 examples: 27 passed, 0 failed, 1 disabled rule skipped\n")
    }

    @Test func rulesTestFailsNamingFileLineRuleAndEscapedExample() async throws {
        let yaml = """
            language: en
            rules:
              - id: en.test.failing
                label: harmful
                type: violence
                views: [squashed]
                pattern: '\\bkill\\b'
                examples:
                  match: ["kill", "slay\\u001B]0;x\\u0007"]
                  no_match: ["kill it"]
                note: Two failing examples.
            """
        try await withRuleDirectory(["en.yaml": yaml]) { dir in
            let result = await runCLI(["rules", "test", "--rules", dir])
            #expect(result.status == 1)
            #expect(result.out.split(separator: "\n").map(String.init) == [
                #"\#(dir)/en.yaml:9: en.test.failing: example "slay\u001b]0;x\u0007" should match"#,
                #"\#(dir)/en.yaml:10: en.test.failing: example "kill it" should not match (matched "kill" on squashed)"#,
                "rules test: 1 rule, 3 examples: 1 passed, 2 failed",
            ])
            #expect(!result.out.contains("\u{1B}"))
        }
    }

    @Test func rulesLintFlagsCatastrophicBacktrackingAndExitsOne() async throws {
        let yaml = """
            rules:
              - id: test.redos.temporary
                label: harmful
                type: illegal
                views: [raw]
                pattern: '(a+)+$'
                examples:
                  match: ["aaa"]
                  no_match: ["aaa!"]
                note: Nested quantifiers.
            """
        try await withRuleDirectory(["redos.yml": yaml]) { dir in
            let result = await runCLI(["rules", "lint", "--rules", dir])
            #expect(result.status == 1)
            #expect(result.out.hasPrefix("\(dir)/redos.yml:6: test.redos.temporary: pattern: hits the matchLimit"), "\(result.out)")
            #expect(result.out.contains("rules lint: 1 rule, 1 patterns"))
        }
    }

    @Test func rulesLintPassesOnTheFixturesWithAGenerousThreshold() async {
        let result = await runCLI(["rules", "lint", "--rules", Self.fixtures + "/valid", "--threshold-ms", "20"])
        #expect(result.status == 0, "\(result.out)")
    }

    @Test func rulesListPrintsAnAlignedTableAndJSONLines() async throws {
        let table = await runCLI(["rules", "list", "--rules", Self.fixtures + "/valid"])
        #expect(table.status == 0)
        let lines = table.out.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("ID ") == true)
        let row = try #require(lines.first { $0.hasPrefix("en.violence.kill-person ") })
        let cells = row.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(cells == ["en.violence.kill-person", "harmful", "violence", "squashed", "\(Self.fixtures)/valid/en.yaml:4"])
        // Aligned: every row's file starts under the FILE header.
        let column = try #require(lines.first?.range(of: "FILE")).lowerBound.utf16Offset(in: lines[0])
        #expect(row.range(of: Self.fixtures)?.lowerBound.utf16Offset(in: row) == column)
        #expect(lines.contains { $0.hasPrefix("en.test.disabled (disabled) ") })
        #expect(lines.last == "7 rules in 2 files")

        let json = await runCLI(["rules", "list", "--rules", Self.fixtures + "/valid", "--json"])
        let objects = try json.out.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(objects.count == 7)
        let first = try #require(objects.first)
        #expect(first["id"] as? String == "en.violence.kill-person")
        #expect(first["label"] as? String == "harmful")
        #expect(first["type"] as? String == "violence")
        #expect(first["views"] as? [String] == ["squashed"])
        #expect(first["line"] as? Int == 4)
        #expect(objects.contains { $0["topic"] as? String == "scheduling" })
    }

    /// One malformed file per kind of problem: exit 78 and `file:line: rule-id: message` on stderr.
    @Test(arguments: [
        ("yaml-syntax.yaml", ":7: YAML: found unexpected end of stream"),
        ("unknown-key-file.yaml", ":2: unknown key `version`"),
        ("unknown-key-rule.yaml", ":6: en.test.unknown-key: unknown key `patern` (did you mean `pattern`?)"),
        ("missing-key.yaml", ":3: en.test.missing-pattern: missing key `pattern`"),
        ("wrong-type.yaml", ":5: en.test.wrong-type: `views` must be a list"),
        ("bad-label.yaml", ":4: en.test.bad-label: bad label `dangerous`: expected emergency, harmful, safe, inScope"),
        ("bad-type.yaml", ":5: en.test.bad-type: bad type `murder`"),
        ("bad-view.yaml", ":5: en.test.bad-view: bad view `lowercase`"),
        ("bad-severity.yaml", ":6: en.test.bad-severity: bad severity `extreme`"),
        ("bad-regex.yaml", ":6: en.test.bad-regex: pattern: missing closing parenthesis at offset 20"),
        ("missing-examples.yaml", ":3: en.test.missing-examples: missing key `examples`"),
        ("empty-examples.yaml", ":8: en.test.empty-examples: `examples.no_match` is empty"),
    ])
    func malformedRuleFilesExit78NamingFileLineAndRule(file: String, expected: String) async {
        let path = Self.fixtures + "/malformed/" + file
        for command in [["rules", "test"], ["rules", "lint"], ["rules", "list"], ["explain", "x"]] {
            let result = await runCLI(command + ["--rules", path])
            #expect(result.status == 78, "\(command)")
            let lines = result.err.split(separator: "\n").map(String.init)
            #expect(lines.first == path + expected || lines.first?.hasPrefix(path + expected) == true, "\(result.err)")
            #expect(lines.count == 2)
            #expect(result.out.isEmpty)
        }
    }

    @Test func duplicateIDsExit78NamingBothPlaces() async {
        let dir = Self.fixtures + "/malformed/duplicate"
        let result = await runCLI(["rules", "test", "--rules", dir])
        #expect(result.status == 78)
        #expect(result.err.hasPrefix("\(dir)/b.yaml:11: en.test.twice: duplicate id: also defined at \(dir)/a.yaml:3\n"))
    }

    @Test func aFileWithSeveralProblemsReportsAllOfThem() async {
        let path = Self.fixtures + "/malformed/several.yaml"
        let result = await runCLI(["rules", "test", "--rules", path])
        #expect(result.status == 78)
        let lines = result.err.split(separator: "\n").map(String.init)
        #expect(lines.count == 7)
        #expect(lines.prefix(6).map { String($0.dropFirst(path.count)) } == [
            ":3: en.test.several-one: missing key `type` (required when label is harmful: violence, illegal, hateSpeech, selfHarm, explicit, misinformation)",
            ":6: en.test.several-one: pattern: missing closing parenthesis at offset 9",
            ":13: en.test.several-two: bad view `sideways`: expected raw, folded, skeleton, ascii, squashed",
            ":15: en.test.several-two: unless[0]: range out of order in character class at offset 3",
            ":17: en.test.several-two: missing `examples.no_match`: give at least one example",
            ":19: rules[2]: missing key `id`",
        ])
        #expect(lines.last?.hasPrefix("safegate: the rule set does not load (6 problems)") == true)
    }

    @Test func aMissingRulesDirectoryExits78() async {
        let result = await runCLI(["rules", "list", "--rules", "/nonexistent/safegate"])
        #expect(result.status == 78)
        #expect(result.err.hasPrefix("/nonexistent/safegate:0: no such directory\n"))
    }

    /// `explain` lists every match with its span in the original text, in UTF-8 bytes.
    @Test(arguments: ["", "👩‍💻 "])
    func explainListsMatchesWithOriginalByteSpans(prefix: String) async throws {
        let shift = prefix.utf8.count
        let result = await runCLI(["explain", prefix + "please k.i.l.l him", "--json", "--rules", Self.fixtures + "/valid"])
        #expect(result.status == 0, "\(result.err)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let matches = try #require(object["matches"] as? [[String: Any]])
        let spans = matches.map { "\($0["rule"] as? String ?? "?") \($0["view"] as? String ?? "?") \($0["start"] as? Int ?? -1) \($0["end"] as? Int ?? -1)" }
        #expect(spans == [
            "en.violence.kill-person squashed \(7 + shift) \(18 + shift)",
            "en.test.kill-word squashed \(7 + shift) \(14 + shift)",
        ])
        #expect(object["label"] as? String == "harmful")
        #expect((object["limit_hits"] as? [Any])?.isEmpty == true)

        let text = await runCLI(["explain", prefix + "please k.i.l.l him", "--rules", Self.fixtures + "/valid"])
        #expect(text.out.contains("en.test.kill-word        squashed  bytes \(7 + shift)..<\(14 + shift)  \"k.i.l.l\""), "\(text.out)")
    }

    @Test func explainWithoutMatchesSaysSo() async {
        let result = await runCLI(["explain", "what a lovely day", "--rules", Self.fixtures + "/valid"])
        #expect(result.out.contains("matches:  none (6 rules)"), "\(result.out)")
    }
}
