import Foundation
import RuleEngine
import SafetyCore
import TextNormalization
import Testing

/// Every kind of problem a rule file can have is reported with its file, line and rule, all at once.
@Suite struct LoadingTests {
    static let validRule = """
          - id: en.test.ok
            label: harmful
            type: violence
            views: [squashed]
            pattern: 'kill'
            examples:
              match: ["kill"]
              no_match: ["k"]
            note: Fine.
        """

    @Test func aValidFileLoadsWithEveryField() throws {
        let set = try YAMLRules.load(
            """
            language: tr
            views: [ascii]
            rules:
              - id: tr.test.full
                label: inScope
                topic: scheduling
                severity: critical
                language: en
                pattern: 'toplant[ıi]'
                unless: ['iptal', 'ertele']
                examples:
                  match: ["toplantı"]
                  no_match: ["yok"]
                note: Every key.
                disabled: true
            """)
        let rule = try #require(set.rule(id: "tr.test.full"))
        #expect(rule.label == .inScope)
        #expect(rule.topic == "scheduling")
        #expect(rule.views == [.ascii])
        #expect(rule.severity == .critical)
        #expect(rule.language == .en)
        #expect(rule.unless == ["iptal", "ertele"])
        #expect(rule.disabled)
        #expect(rule.location.description == "test.yaml:4")
        #expect(rule.examples.match.first?.line == 12)
        #expect(set.enabledRules.isEmpty)
    }

    @Test(arguments: [
        ("rules:\n  - id: [oops\n", RuleProblem.Kind.yamlSyntax, nil as String?, "YAML:"),
        ("language: en\nversion: 2\nrules: []\n", .unknownKey, nil, "unknown key `version`"),
        ("rules:\n" + validRule.replacingOccurrences(of: "note:", with: "nots:"), .unknownKey, "en.test.ok", "unknown key `nots` (did you mean `note`?)"),
        ("rules:\n" + validRule.replacingOccurrences(of: "    pattern: 'kill'\n", with: ""), .missingKey, "en.test.ok", "missing key `pattern`"),
        ("rules:\n" + validRule.replacingOccurrences(of: "type: violence", with: "type: "), .missingKey, "en.test.ok", "missing key `type`"),
        ("rules:\n" + validRule.replacingOccurrences(of: "[squashed]", with: "squashed"), .wrongType, "en.test.ok", "`views` must be a list"),
        ("rules:\n" + validRule.replacingOccurrences(of: "'kill'", with: "[kill]"), .wrongType, "en.test.ok", "`pattern` must be a string, not a list"),
        ("rules:\n" + validRule.replacingOccurrences(of: "label: harmful", with: "label: bad"), .badValue, "en.test.ok", "bad label `bad`"),
        ("rules:\n" + validRule.replacingOccurrences(of: "type: violence", with: "type: gore"), .badValue, "en.test.ok", "bad type `gore`"),
        ("rules:\n" + validRule.replacingOccurrences(of: "[squashed]", with: "[squished]"), .badValue, "en.test.ok", "bad view `squished`"),
        ("rules:\n" + validRule + "\n    severity: huge", .badValue, "en.test.ok", "bad severity `huge`"),
        ("rules:\n" + validRule.replacingOccurrences(of: "en.test.ok", with: "En Test"), .badValue, "En Test", "id `En Test` must be lowercase"),
        ("rules:\n" + validRule.replacingOccurrences(of: "'kill'", with: "'(kill'"), .badRegex, "en.test.ok", "pattern: missing closing parenthesis at offset 5"),
        ("rules:\n" + validRule + "\n    unless: ['[z-a]']", .badRegex, "en.test.ok", "unless[0]: range out of order in character class at offset 3"),
        ("rules:\n" + validRule + "\n" + validRule, .duplicateID, "en.test.ok", "duplicate id: also defined at test.yaml:2"),
        ("rules:\n" + validRule.replacingOccurrences(of: "      no_match: [\"k\"]\n", with: ""), .badExamples, "en.test.ok", "missing `examples.no_match`"),
        ("rules:\n" + validRule.replacingOccurrences(of: #"match: ["kill"]"#, with: "match: []"), .badExamples, "en.test.ok", "`examples.match` is empty"),
    ])
    func eachKindOfProblemIsReported(yaml: String, kind: RuleProblem.Kind, rule: String?, message: String) throws {
        let problems = YAMLRules.problems(yaml)
        let problem = try #require(problems.first { $0.kind == kind }, "no \(kind) problem in \(problems) for:\n\(yaml)")
        // A misspelt key also leaves the real one missing; nothing else may be reported.
        #expect(problems.count == (kind == .unknownKey && rule != nil ? 2 : 1), "\(problems)")
        #expect(problem.kind == kind)
        #expect(problem.ruleID == rule)
        #expect(problem.message.contains(message), "\(problem.message)")
        #expect(problem.location.file == "test.yaml")
        #expect(problem.location.line > 0)
        #expect(problem.description.hasPrefix("test.yaml:\(problem.location.line): " + (rule.map { "\($0): " } ?? "")))
    }

    @Test func theLineIsTheLineOfTheOffendingNode() throws {
        let problems = YAMLRules.problems(
            """
            rules:
              - id: en.test.lines
                label: harmful
                type: violence
                views: [squashed]
                pattern: '(kill'
                examples:
                  match: ["kill"]
                  no_match: ["k"]
                note: Line 6 has the bad pattern.
            """)
        #expect(problems.map(\.description) == ["test.yaml:6: en.test.lines: pattern: missing closing parenthesis at offset 5"])
    }

    @Test func aFileWithSeveralProblemsReportsThemAllInLineOrder() throws {
        let problems: [RuleProblem]
        do {
            _ = try CompiledRuleSet.load(from: .directory(Fixtures.path("malformed/several.yaml")))
            Issue.record("several.yaml loaded")
            return
        } catch {
            problems = error.problems
        }
        let file = Fixtures.path("malformed/several.yaml")
        #expect(problems.map(\.description) == [
            "\(file):3: en.test.several-one: missing key `type` (required when label is harmful: violence, illegal, hateSpeech, selfHarm, explicit, misinformation)",
            "\(file):6: en.test.several-one: pattern: missing closing parenthesis at offset 9",
            "\(file):13: en.test.several-two: bad view `sideways`: expected raw, folded, skeleton, ascii, squashed",
            "\(file):15: en.test.several-two: unless[0]: range out of order in character class at offset 3",
            "\(file):17: en.test.several-two: missing `examples.no_match`: give at least one example",
            "\(file):19: rules[2]: missing key `id`",
        ])
    }

    @Test func duplicateIDsAcrossFilesNameBothPlaces() {
        do {
            _ = try CompiledRuleSet.load(from: .directory(Fixtures.path("malformed/duplicate")))
            Issue.record("duplicate ids loaded")
        } catch {
            let a = Fixtures.path("malformed/duplicate/a.yaml"), b = Fixtures.path("malformed/duplicate/b.yaml")
            #expect(error.problems.map(\.description) == ["\(b):11: en.test.twice: duplicate id: also defined at \(a):3"])
        }
    }

    @Test func aMissingDirectoryOrOneWithoutRuleFilesIsAProblem() {
        #expect(throws: RuleSetError.self) { try CompiledRuleSet.load(from: .directory("/nonexistent/safegate-rules")) }
        #expect(throws: RuleSetError.self) { try CompiledRuleSet.load(from: .directory(Fixtures.root + "/../../SafeGateCLITests")) }
    }

    @Test func theBundledRulesLoad() {
        do {
            // Compiling every pattern: the product compiles bundled patterns at their first search.
            let set = try CompiledRuleSet.load(from: .bundled, checkingPatterns: true)
            #expect(set.rules.allSatisfy { $0.location.file.hasPrefix("Resources/rules/") })
        } catch {
            Issue.record("the bundled rules do not load:\n\(error)")
        }
    }
}

@Suite struct RuleSetErrorTests {
    @Test func convertsToAConfigurationGatewayErrorThatExits78() {
        let problems = YAMLRules.problems("rules:\n  - id: [oops\n")
        let error = RuleSetError(problems: problems).gatewayError
        #expect(error.code == "configuration")
        #expect(error.exitStatus == 78)
        guard case .configuration(let file, let line, let reason) = error.kind else {
            Issue.record("not a configuration error: \(error.kind)")
            return
        }
        #expect(file == "test.yaml")
        #expect(line == problems.first?.location.line)
        #expect(reason.hasPrefix("test.yaml:"))
    }
}
