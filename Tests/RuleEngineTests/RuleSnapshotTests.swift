import Foundation
import SafeGateResources
import SafetyCore
import Testing
import TextNormalization

@testable import RuleEngine

/// The bundled rules are loaded from `Resources/rules/rules-snapshot.tsv` instead of YAML: the
/// snapshot must be current, give exactly the `Rule` values Yams gives, and be ignored for any file
/// it does not describe exactly.
@Suite struct RuleSnapshotTests {
    static let bundledFiles = RuleSource.bundled.ruleFiles().files
    static let regenerate = "run `swift run safegate dev generate-literal-cache`"

    @Test func theSnapshotGivesTheRulesYamsGivesForEveryBundledFile() throws {
        let fromSnapshot = RuleSnapshot.bundledRules(for: Self.bundledFiles)
        #expect(!Self.bundledFiles.isEmpty)
        var stale: [String] = []
        var compared = 0
        for file in Self.bundledFiles {
            let parsed = RuleFileParser.parse(file: file.name, text: file.text)
            #expect(parsed.problems.isEmpty, "\(parsed.problems)")
            guard let snapshot = fromSnapshot[file.name] else {
                stale.append(file.name)
                continue
            }
            #expect(snapshot.count == parsed.rules.count, "\(file.name)")
            for (fast, yams) in zip(snapshot, parsed.rules) {
                // Rule's == covers every stored property: examples with lines, key lines, location…
                #expect(fast == yams, "\(file.name): \(yams.id)")
                #expect(fast.keyLines == yams.keyLines && !yams.keyLines.isEmpty, "\(yams.id)")
                compared += 1
            }
        }
        #expect(stale.isEmpty, "Resources/rules/rules-snapshot.tsv is stale for \(stale): \(Self.regenerate)")
        #expect(compared == (try CompiledRuleSet.load(from: .bundled)).rules.count)
    }

    /// The snapshot is checked against fingerprints computed when the binary was built
    /// (`EmbedResourcesTool`): they must be the fingerprints of the embedded texts.
    @Test func buildTimeFingerprintsAreThoseOfTheEmbeddedTexts() throws {
        let paths = BundledResources.paths(under: "")
        #expect(paths.contains("rules/rules-snapshot.tsv"))
        for path in paths {
            let built = try #require(BundledResources.fingerprint(at: path), "\(path)")
            let text = try #require(BundledResources.text(at: path))
            #expect(RuleSnapshot.Fingerprint(hash: built.fnv1a, length: built.length) == RuleSnapshot.Fingerprint(text), "\(path)")
        }
        #expect(BundledResources.fingerprint(at: "rules/no-such-file.yaml") == nil)
    }

    /// What loading uses (decoded once, maybe on a warm-up thread) is the decoding of the files.
    @Test func theSnapshotDecodedOnceIsThatOfTheBundledFiles() throws {
        CompiledRuleSet.startDecodingBundled()
        #expect(RuleSnapshot.bundled == RuleSnapshot.bundledRules(for: Self.bundledFiles))
        #expect(try CompiledRuleSet.load(from: .bundled).rules.count == RuleSnapshot.bundled.values.reduce(0) { $0 + $1.count })
    }

    @Test func theBundledSnapshotIsCurrent() throws {
        let fresh = try CompiledRuleSet.ruleSnapshotText(of: Self.bundledFiles)
        #expect(RuleSnapshot.bundledText == fresh, "Resources/rules/rules-snapshot.tsv is stale: \(Self.regenerate)")
    }

    @Test func awkwardValuesRoundTrip() {
        var rule = Rule(
            id: "en.test.awkward", label: .harmful, type: .violence, topic: "", views: [.squashed, .raw],
            severity: .critical, language: .tr, pattern: #"a\tb\\c\-"# + "\t\n\r", unless: [#"\-"#, "", "x\ty"],
            examples: RuleExamples(
                match: [RuleExamples.Example("tab\there\nnew\r\nline \\ é 👩‍💻 \u{1B}[31m \u{0}", line: 7)],
                noMatch: [RuleExamples.Example("", line: 0), RuleExamples.Example(#"\-"#, line: 9)]),
            note: "note, with = and , and \\", disabled: true, location: SourceLocation(file: "Resources/rules/x.yaml", line: 3))
        rule.keyLines = ["pattern": 4, "unless[0]": 5, "id": 3]
        var plain = Rule(
            id: "en.test.plain", label: .inScope, topic: "scheduling", views: [.ascii], pattern: "kill",
            examples: RuleExamples(match: ["a"], noMatch: ["b"]), note: "n", location: SourceLocation(file: "Resources/rules/x.yaml", line: 20))
        plain.keyLines = [:]
        let file = RuleFile(name: "Resources/rules/x.yaml", text: "any text")
        let text = RuleSnapshot.text(files: [file], rules: [file.name: [rule, plain]])
        let decoded = RuleSnapshot.decode(text, for: [file])[file.name]
        #expect(decoded == [rule, plain])
        #expect(decoded?.first?.keyLines == rule.keyLines)
        #expect(decoded?.first?.topic == "")
        #expect(decoded?.last?.type == nil)
    }

    @Test func aFileThatDiffersFromItsEntryIsParsedFromYAML() throws {
        let file = try #require(Self.bundledFiles.first)
        let text = try #require(RuleSnapshot.bundledText)
        #expect(RuleSnapshot.decode(text, for: [file])[file.name] != nil)
        let edited = RuleFile(name: file.name, text: file.text + "# edited\n")
        #expect(RuleSnapshot.decode(text, for: [edited]).isEmpty)
        let renamed = RuleFile(name: file.name + ".bak", text: file.text)
        #expect(RuleSnapshot.decode(text, for: [renamed]).isEmpty)
    }

    @Test func anEntryThatDoesNotDecodeInFullIsIgnored() throws {
        let file = RuleFile(name: "Resources/rules/x.yaml", text: "t")
        let rules = (1...3).map { index in
            Rule(
                id: "en.test.r\(index)", label: .safe, views: [.raw], pattern: "p\(index)", examples: RuleExamples(match: ["a"], noMatch: ["b"]),
                note: "n", location: SourceLocation(file: file.name, line: index))
        }
        let good = RuleSnapshot.text(files: [file], rules: [file.name: rules])
        #expect(RuleSnapshot.decode(good, for: [file])[file.name] == rules)
        var lines = good.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let last = try #require(lines.lastIndex { $0.hasPrefix("R\t") })
        let broken = [
            // A rule line missing (fewer than announced).
            lines.enumerated().filter { $0.offset != last }.map(\.element),
            // A bad label, a bad escape, a field too many, a count that runs past the line.
            lines.enumerated().map { $0.offset == last ? $0.element.replacingOccurrences(of: "\tsafe\t", with: "\tunsafe\t") : $0.element },
            lines.enumerated().map { $0.offset == last ? $0.element.replacingOccurrences(of: "\tp3\t", with: "\tp\\q\t") : $0.element },
            lines.enumerated().map { $0.offset == last ? $0.element + "\textra" : $0.element },
            lines.enumerated().map { $0.offset == last ? $0.element.replacingOccurrences(of: "\ta\t1\t0\tb", with: "\ta\t9\t0\tb") : $0.element },
        ]
        for variant in broken {
            #expect(variant.joined(separator: "\n") != good)
            #expect(RuleSnapshot.decode(variant.joined(separator: "\n"), for: [file]).isEmpty, "\(variant)")
        }
        #expect(lines[1].hasSuffix("\t3"))
        lines[1] = String(lines[1].dropLast()) + "2"  // announces 2, has 3
        #expect(RuleSnapshot.decode(lines.joined(separator: "\n"), for: [file]).isEmpty)
    }
}

/// `KeyLines` (a rule's key lines in one sorted array) must behave as the dictionary it replaced.
@Suite struct KeyLinesTests {
    @Test func setsGetsAndRemovesAsADictionaryDoes() {
        var lines: KeyLines = [:]
        var model: [String: Int] = [:]
        var seed: UInt64 = 7
        let keys = ["id", "pattern", "unless[0]", "unless[1]", "examples", "views", "note", "é", "Z"]
        for _ in 0..<500 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let key = keys[Int((seed >> 33) % UInt64(keys.count))]
            let value: Int? = (seed >> 20) % 4 == 0 ? nil : Int((seed >> 40) % 100)
            lines[key] = value
            model[key] = value
            #expect(keys.allSatisfy { lines[$0] == model[$0] })
        }
        #expect(lines.entries.map(\.key) == model.keys.sorted())
        #expect(lines.isEmpty == model.isEmpty)
    }

    @Test func equalityIgnoresTheOrderOfAssignment() {
        let a: KeyLines = ["pattern": 4, "id": 3, "unless[0]": 5]
        var b: KeyLines = [:]
        b["unless[0]"] = 5
        b["id"] = 3
        b["pattern"] = 4
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(KeyLines(sorted: [.init(key: "id", line: 3), .init(key: "pattern", line: 4), .init(key: "unless[0]", line: 5)]) == a)
        #expect(KeyLines(sorted: [.init(key: "pattern", line: 4), .init(key: "id", line: 3)]) == nil)
        #expect(KeyLines(sorted: [.init(key: "id", line: 3), .init(key: "id", line: 4)]) == nil)
    }
}
