import Foundation
import Testing
import TextNormalization

@testable import RuleEngine

/// Views behind a shut gate (`ViewGates`) are neither built nor scanned: a speed-up only. The
/// matches must be those of building and scanning every view, and the property the gates rest on
/// (ASCII letters of folded and skeleton survive, consecutive, into ascii) must hold.
@Suite struct ViewGateTests {
    static func corpusPrompts(_ language: String) throws -> [String] {
        let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Corpus/\(language).jsonl")
        return try String(contentsOf: corpus, encoding: .utf8).split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return try #require(object?["text"] as? String)
        }
    }

    /// Texts that exercise the gated rule and the stages between folded and ascii: Turkish letters
    /// next to the gate words, look-alikes, marks, digits in disguised words, invisible characters.
    static let edgeCases = [
        "pazartesiye kadar ölmüş olucam", "ÖLMÜŞ OLACAĞIM", "ölmüş\u{00A0}olacam", "yorgunluktan ölmüş olacağım",
        "ölmüş olıcam", "o\u{308}lmu\u{308}s\u{327} olucam", "ölmüş оlucam", "ölmüş olu\u{200B}cam", "olucamş", "şolucam",
        "ölmüş ol\u{0456}cam", "ölmüş olucam1", "kі1l olucam", "ölmüş OLUCAM", "ölmüş \u{212A}olucam", "ölmüş olu\u{17F}cam",
    ]

    /// Whether `bytes` hold `word` anywhere, as the gate compares (ASCII case ignored).
    static func contains(_ bytes: UnsafeBufferPointer<UInt8>, _ word: [UInt8]) -> Bool {
        word.isEmpty || bytes.indices.contains { ViewGates.holds(bytes, word, at: $0) }
    }

    @Test func theBundledRulesGateFoldedAndSkeleton() throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        // If a rule reading these views loses its plain-letter requirement, the gate goes and
        // every non-ASCII prompt pays for two more views: this test says so.
        #expect(rules.viewGates.gatedViews == [.folded, .skeleton])
    }

    @Test(arguments: ["en", "tr"])
    func gatedMatchingFindsWhatMatchingEveryViewFinds(language: String) throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        let gated = rules.makeMatcher()
        let everything = rules.makeMatcher()
        everything.usesViewGates = false
        var differences: [String] = []
        var shut = 0
        for text in try Self.corpusPrompts(language) + Self.edgeCases {
            let lean = rules.normalize(bytes: Array(text.utf8))
            if lean.viewIfBuilt(.folded) == nil { shut += 1 }
            let a = gated.match(lean).matches.map { "\($0.rule.id) \($0.view) \($0.viewRange)" }
            let full = rules.normalize(text)
            let b = everything.match(full).matches.map { "\($0.rule.id) \($0.view) \($0.viewRange)" }
            let c = gated.match(full).matches.map { "\($0.rule.id) \($0.view) \($0.viewRange)" }
            if a != b || c != b { differences.append("\(text.prefix(80)): gated \(a), gated on all views \(c), every view \(b)") }
        }
        #expect(differences.isEmpty, "\(differences.prefix(10).joined(separator: "\n"))")
        // The gates must actually shut on ordinary prompts.
        #expect(shut > 100)
    }

    @Test(arguments: ["en", "tr"])
    func asciiLettersOfFoldedAndSkeletonSurviveIntoAscii(language: String) throws {
        var problems: [String] = []
        for text in try Self.corpusPrompts(language) + Self.edgeCases {
            let normalized = NormalizedText(text)
            let ascii = normalized.view(.ascii).utf8
            for name in [ViewName.folded, .skeleton] {
                // Every maximal run of ASCII letters, lowercased, must occur in ascii (any case).
                var run: [UInt8] = []
                for byte in normalized.view(name).utf8 + [0x20] {
                    if (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) {
                        run.append(byte | 0x20)
                    } else {
                        if !run.isEmpty && !ascii.withUnsafeBufferPointer({ Self.contains($0, run) }) {
                            problems.append("\(name) of \(text.prefix(60)): \(String(decoding: run, as: UTF8.self))")
                        }
                        run = []
                    }
                }
                // The literal scan reads U+212A and U+017F as k and s: they must not survive folding.
                let view = normalized.view(name).text
                if view.unicodeScalars.contains(where: { $0.value == 0x212A || $0.value == 0x17F }) {
                    problems.append("\(name) of \(text.prefix(60)) holds U+212A or U+017F")
                }
            }
        }
        #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
    }

    @Test func gateWordsAreFoundWithoutRegardToCase() {
        func holds(_ text: String, _ word: String) -> Bool {
            Array(text.utf8).withUnsafeBufferPointer { Self.contains($0, Array(word.utf8)) }
        }
        #expect(holds("ölmüş OLUCAM", "olucam"))
        #expect(holds("xolucamx", "olucam"))
        #expect(holds("olucam", "olucam"))
        #expect(!holds("olucа", "olucam"))
        #expect(!holds("oluca", "olucam"))
        #expect(!holds("ol@cam", "olucam"))  // "@" | 0x20 is "`", not "u"
        #expect(!holds("", "olucam"))
    }
}
