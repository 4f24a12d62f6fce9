import Foundation
import Testing
import TextNormalization

@testable import RuleEngine

/// A rule whose pattern matched nowhere on the ascii view is searched on the squashed view only
/// where a match attempt reads a byte that squashing changed (`RuleMatcher.skipsUnchangedRegions`):
/// a speed-up only, so every match must be what searching the whole squashed view finds.
@Suite struct UnchangedRegionTests {
    // MARK: Where the views differ

    /// `changedRegions` over an ascii view (identity map) and a squashed view built by hand.
    static func regions(ascii: String, squashed: String, starts: [UInt32], ends: [UInt32]) -> [Range<Int>] {
        let a = Array(ascii.utf8)
        let s = Array(squashed.utf8)
        return a.withUnsafeBufferPointer { a in
            s.withUnsafeBufferPointer { s in
                starts.withUnsafeBufferPointer { starts in
                    ends.withUnsafeBufferPointer { ends in
                        RuleMatcher.changedRegions(a, aStarts: nil, aEnds: nil, s, sStarts: starts, sEnds: ends, into: [])
                    }
                }
            }
        }
    }

    @Test func theSameBytesFromTheSameOriginalBytesHaveNoRegion() {
        let text = "kill him now"
        let identity = (0..<UInt32(text.utf8.count)).map { $0 }
        #expect(Self.regions(ascii: text, squashed: text, starts: identity, ends: identity.map { $0 + 1 }) == [])
    }

    @Test func eachChangeIsARegionWithTheBytesOnEitherSide() {
        // "x k.i.l.l y" squashed to "x kill y": each removed dot is a seam between two squashed bytes.
        let regions = Self.regions(
            ascii: "x k.i.l.l y", squashed: "x kill y", starts: [0, 1, 2, 4, 6, 8, 9, 10], ends: [1, 2, 3, 5, 7, 9, 10, 11])
        #expect(regions == [2..<4, 3..<5, 4..<6])
        // "see th3 end": a leet digit mapped to a letter, the same original byte.
        let leet = Self.regions(
            ascii: "see th3 end", squashed: "see the end", starts: (0..<11).map { $0 }, ends: (1..<12).map { $0 })
        #expect(leet == [5..<8])
        // "a loooong b" squashed to "a long b": one byte stands for four.
        let stretched = Self.regions(
            ascii: "a loooong b", squashed: "a long b", starts: [0, 1, 2, 3, 7, 8, 9, 10], ends: [1, 2, 3, 7, 8, 9, 10, 11])
        #expect(stretched == [2..<5])
    }

    @Test func anAsciiViewThatGoesOnMakesTheEndOfTheSquashedViewARegion() {
        let regions = Self.regions(ascii: "kill h", squashed: "kill", starts: [0, 1, 2, 3], ends: [1, 2, 3, 4])
        #expect(regions == [3..<5])
    }

    // MARK: How far an attempt reads

    @Test(arguments: [
        // pattern, ahead (characters, word runs, space runs, non-word runs, any runs), behind; [] when unbounded
        (#"\bkill\b"#, [5, 0, 0, 0, 0], [1, 0, 0, 0, 0]),
        (#"kill\s+him"#, [8, 0, 1, 0, 0], [1, 0, 0, 0, 0]),
        (#"kill(?=\s+the)"#, [8, 0, 1, 0, 0], [1, 0, 0, 0, 0]),
        (#"(?<!not\s)kill"#, [5, 0, 0, 0, 0], [5, 0, 0, 0, 0]),
        (#"(?:\w+\W+){0,3}kill"#, [5, 3, 0, 3, 0], [1, 0, 0, 0, 0]),
        (#"kill.*him"#, [8, 0, 0, 0, 1], [1, 0, 0, 0, 0]),
        (#"(\w)\1kill"#, [], []),
        (#"kill(?=(?:a|bb)+)"#, [], []),
        (#"kill(*SKIP)him"#, [], []),
    ] as [(String, [Int], [Int])])
    func inspectionBounds(pattern: String, ahead: [Int], behind: [Int]) {
        let bound = LiteralAnalysis.inspectionBound(of: pattern)
        func terms(_ b: LengthBound?) -> [Int] { b.map { [$0.characters, $0.wordRuns, $0.spaceRuns, $0.nonWordRuns, $0.anyRuns] } ?? [] }
        #expect(terms(bound?.ahead) == ahead, "\(pattern)")
        #expect(terms(bound?.behind) == behind, "\(pattern)")
    }

    // MARK: The same matches

    static let patterns = PrefilterTests.patterns + [
        #"\bkill\s+(?:him|her)\b"#, #"(?<=\s)kill"#, #"kill(?!\s+the)"#, #"k\w{0,3}l"#, #"\bi\s+want\s+to\s+die\b"#,
        #"(?:\w+\s+){0,2}kill"#, #"e\s?n\s?d"#, #"\w{2}\b"#,
    ]

    static let texts = [
        "i want to k.i.l.l him", "i want to kill him and k i l l her", "k1ll the process", "we will kiiiiill",
        "please d.i.e and then i want to die", "i w4nt to d1e", "kill him", "not kill", "x k-i-l-l", "s.k.i.l.l",
        "i want to d i e", "end it all, e n d it, 3nd", "k\u{200B}ill him", "ki\u{0000}ll k\u{0000}i\u{0000}l\u{0000}l",
        String(repeating: "filler words here. ", count: 30) + "k.i.l.l h.i.m" + String(repeating: " and more", count: 20),
        "k.i.l.l " + String(repeating: "word ", count: 60) + "kill",
    ]

    @Test func patternsFindTheSameMatchesWithAndWithoutSkipping() throws {
        for (index, pattern) in Self.patterns.enumerated() {
            for unless in [[], [#"not\s+\w+"#]] {
                let set = try YAMLRules.single(id: "test.u\(index)", pattern: pattern, unless: unless, views: [.ascii, .squashed])
                let skipping = set.makeMatcher()
                let whole = set.makeMatcher()
                whole.skipsUnchangedRegions = false
                for prefix in emojiPrefixes {
                    for text in Self.texts {
                        let a = skipping.match(prefix + text).matches
                        let b = whole.match(prefix + text).matches
                        #expect(a == b, "pattern \(pattern) unless \(unless) on \(prefix + text)")
                    }
                }
            }
        }
    }

    /// Every bundled rule on corpus prompts made adversarial (spaced-out, dotted and leetspeak
    /// words, stretched letters, zero-width characters) and on long texts of them: every match is
    /// the same, and fewer rule-view pairs are searched.
    @Test(arguments: ["en", "tr"])
    func bundledRulesFindTheSameMatchesOnAdversarialCorpusTexts(language: String) throws {
        let prompts = try corpusPrompts(language)
        try #require(prompts.count > 500)
        /// One word of the prompt made adversarial, chosen by the prompt's position.
        func disguise(_ prompt: String, _ seed: Int) -> String {
            var words = prompt.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            guard !words.isEmpty else { return prompt }
            let index = seed % words.count
            let word = words[index]
            switch seed % 5 {
            case 0: words[index] = word.map(String.init).joined(separator: ".")
            case 1: words[index] = word.map(String.init).joined(separator: " ")
            case 2: words[index] = String(word.map { $0 == "e" ? "3" : $0 == "i" ? "1" : $0 == "o" ? "0" : $0 })
            case 3: words[index] = word.map(String.init).joined(separator: "\u{200B}")
            default: words[index] = word + String(repeating: String(word.last ?? "a"), count: 3)
            }
            return words.joined(separator: " ")
        }
        var texts = prompts.enumerated().map { disguise($0.element, $0.offset) }
        for start in stride(from: 0, to: prompts.count - 12, by: 12) {
            texts.append(prompts[start..<(start + 12)].enumerated().map { disguise($0.element, $0.offset + start) }.joined(separator: ". "))
        }
        let rules = try CompiledRuleSet.load(from: .bundled)
        let skipping = rules.makeMatcher()
        let whole = rules.makeMatcher()
        whole.skipsUnchangedRegions = false
        let differences = matchDifferences(rules, skipping, whole, on: texts)
        #expect(differences.isEmpty, "\(differences.prefix(10).joined(separator: "\n"))")
        #expect(skipping.counters.ruleViewsSearched < whole.counters.ruleViewsSearched)
    }
}
