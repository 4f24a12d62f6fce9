import Foundation
import RuleEngine
import SafetyCore
import TextNormalization

/// Where the test fixtures are: next to this file, whatever the working directory.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    static func path(_ relative: String) -> String { root + "/" + relative }

    /// The fixture rule set that every feature of the format appears in.
    static let valid: CompiledRuleSet = {
        do {
            return try CompiledRuleSet.load(from: .directory(path("valid")))
        } catch {
            fatalError("the valid fixtures do not load:\n\(error)")
        }
    }()
}

/// Builds one-file rule sets from YAML written in the test.
enum YAMLRules {
    static func load(_ yaml: String, file: String = "test.yaml") throws(RuleSetError) -> CompiledRuleSet {
        try CompiledRuleSet.load(from: .files([RuleFile(name: file, text: yaml)]))
    }

    /// The problems a one-file rule set has (empty when it loads).
    static func problems(_ yaml: String, file: String = "test.yaml") -> [RuleProblem] {
        do {
            _ = try load(yaml, file: file)
            return []
        } catch {
            return error.problems
        }
    }

    /// A rule set of one rule in code.
    static func single(
        id: String = "test.rule", pattern: String, unless: [String] = [], views: [ViewName] = [.raw],
        label: RuleLabel = .harmful, type: RefusalType? = .violence, language: RuleLanguage = .en
    ) throws -> CompiledRuleSet {
        try CompiledRuleSet(rules: [
            Rule(
                id: id, label: label, type: label == .harmful ? type : nil, views: views, language: language,
                pattern: pattern, unless: unless, examples: RuleExamples(match: ["x"], noMatch: ["y"]), note: "test")
        ])
    }
}

/// The prefixes every matcher test is run with: byte offsets in the original must shift by exactly
/// the prefix's UTF-8 length (a ZWJ emoji sequence is 11 bytes and several scalars).
let emojiPrefixes = ["", "👩‍💻 "]

/// The prompts of a labelled corpus (`Corpus/LANGUAGE.jsonl`), in file order.
func corpusPrompts(_ language: String) throws -> [String] {
    let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus/\(language).jsonl")
    let lines = try String(contentsOf: corpus, encoding: .utf8).split(separator: "\n")
    return try lines.map { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        guard let text = object?["text"] as? String else { throw CorpusError.noText(String(line.prefix(80))) }
        return text
    }
}

enum CorpusError: Error {
    case noText(String)
}

/// Every text (normalised by `rules`) on which two matchers of `rules` find different matches,
/// each shown with both lists of matches (rule, view, view range).
func matchDifferences(_ rules: CompiledRuleSet, _ first: RuleMatcher, _ second: RuleMatcher, on texts: [String]) -> [String] {
    var differences: [String] = []
    for text in texts {
        let normalized = rules.normalize(text)
        let a = first.match(normalized).matches.map { "\($0.rule.id) \($0.view) \($0.viewRange)" }
        let b = second.match(normalized).matches.map { "\($0.rule.id) \($0.view) \($0.viewRange)" }
        if a != b { differences.append("\(text.prefix(80)): \(a) against \(b)") }
    }
    return differences
}
