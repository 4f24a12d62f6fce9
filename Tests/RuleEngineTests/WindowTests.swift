import Foundation
import Testing
import Resilience
import TextNormalization

@testable import RuleEngine

/// Searching a rule only from just before its anchor words (`AnchorAnalysis`, windows with
/// PCRE2's offset limit) is a speed-up only: the matches must be those of searching whole views.
@Suite struct WindowTests {
    // MARK: The analysis

    @Test(arguments: [
        // pattern, anchor literals, bound (characters, word runs, space runs, non-word runs, any runs)
        (#"\bkill\b"#, [#"\bkill\b"#], [0, 0, 0, 0, 0]),
        // The rarer word is the anchor, though further in: "kill", not the common "want"/"need".
        (#"\b(?:i|we)\s+(?:want|need)\s+to\s+kill"#, ["kill"], [8, 0, 3, 0, 0]),
        (#"the\s+walking\s+dead"#, ["walking"], [3, 0, 1, 0, 0]),
        (#"(?:want|need)\s+to\s+kill"#, ["kill"], [6, 0, 2, 0, 0]),
        // ... unless the window before it would span the text: a run of anything costs too much.
        (#"want\s.*kill"#, ["want"], [0, 0, 0, 0, 0]),
        (#"(?:i|we)\s*\w+\s+kill"#, ["kill"], [2, 1, 2, 0, 0]),
        (#"(?:\w+\W+){0,3}kill"#, ["kill"], [0, 3, 0, 3, 0]),
        (#".*kill"#, ["kill"], [0, 0, 0, 0, 1]),
        (#"[^.!?\n]{0,80}kill"#, ["kill"], [80, 0, 0, 0, 0]),
        (#"(?:kill|murder)\s+him"#, ["kill", "murder"], [0, 0, 0, 0, 0]),
        (#"\w?\w?\w?kill"#, ["kill"], [3, 0, 0, 0, 0]),
        (#"ab?c?kill"#, ["abckill", "abkill", "ackill", "akill"], [0, 0, 0, 0, 0]),
        (#"(?<!not )(?=k)kill"#, ["kill"], [0, 0, 0, 0, 0]),
        (#"[a-z_0-9]+kill"#, ["kill"], [0, 1, 0, 0, 0]),
        (#"[\s-]+kill"#, ["kill"], [0, 0, 0, 1, 0]),
        (#"(?:gonna|going\s+to)\s+die"#, ["die"], [7, 0, 2, 0, 0]),
        // Two-letter words only as a last resort: no longer word, or its window spans the text.
        (#"\brp\b(?:\W++\w++){0,8}?\W++h\W?o\W?r\W?n\W?y"#, [#"\brp\b"#], [0, 0, 0, 0, 0]),
        (#"(?:\+\s?18|\b18\s?\+)\s*+(?:[^\s.!?]++\s++){0,6}?(?:anlat|yaz)\b"#, ["18", #"\b18"#], [2, 0, 0, 0, 0]),
        (#"\bin\s+(?:[^\s.!?]++\s++){0,6}?kill"#, [#"\bin"#], [0, 0, 0, 0, 0]),
        (#"\bmy\s+kill"#, ["kill"], [2, 0, 1, 0, 0]),
        (#"(?:a|bb)+kill"#, [], [-1]),
        (#"(\w)\1kill"#, [], [-1]),
        (#"\Xkill"#, [], [-1]),
        (#"\Rkill"#, [], [-1]),
        (#"(?x) k i l l"#, [], [-1]),
        (#"ki+ll"#, ["ll"], [1, 1, 0, 0, 0]),
        (#"k\w+l"#, [], [-1]),
    ] as [(String, [String], [Int])])
    func anchors(pattern: String, literals: [String], bound: [Int]) {
        let anchor = AnchorAnalysis.anchor(of: pattern)
        if bound == [-1] {
            #expect(anchor == nil, "\(pattern): \(String(describing: anchor))")
            return
        }
        #expect(anchor?.literals.map(\.description).sorted() == literals.sorted(), "\(pattern)")
        let p = anchor?.prefix
        #expect([p?.characters, p?.wordRuns, p?.spaceRuns, p?.nonWordRuns, p?.anyRuns] == bound.map { $0 }, "\(pattern)")
    }

    @Test func runStatsCountNonASCIIBytesInEveryKindOfRun() {
        // "é" (two bytes) could be a letter, a space or neither under UCP: it lengthens every run.
        let stats = Array("ab  cd\t\t\t!?é x".utf8).withUnsafeBufferPointer { RunStats($0) }
        #expect(stats.longestWordRun == 2)  // "ab", "cd", "é"
        #expect(stats.longestSpaceRun == 3)  // "\t\t\t", "é "
        #expect(stats.longestNonWordRun == 8)  // "\t\t\t!?é "
        #expect(stats.count == 15)
    }

    @Test func runStatsAgreeWithCountingRunByRun() {
        // The table-driven scan against the definition, on random bytes weighted towards the
        // boundaries between kinds (letters, spaces, punctuation, UTF-8 bytes).
        var generator = SplitMix64(seed: 0x5EED)
        let alphabet: [UInt8] = Array("ab_9 \t\n.,!-".utf8) + [0xC3, 0xA9, 0xE2, 0x80, 0x8B, 0x7F, 0x00]
        for length in [0, 1, 2, 3, 17, 64, 300] {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
                func longest(_ extends: (UInt8) -> Bool) -> Int {
                    var best = 0
                    var run = 0
                    for byte in bytes {
                        run = extends(byte) ? run + 1 : 0
                        best = max(best, run)
                    }
                    return best
                }
                let stats = bytes.withUnsafeBufferPointer { RunStats($0) }
                #expect(stats.longestWordRun == longest { $0 >= 0x80 || LiteralAnalysis.isWordByte($0) }, "\(bytes)")
                #expect(stats.longestSpaceRun == longest { $0 >= 0x80 || AnchorAnalysis.isSpaceByte($0) }, "\(bytes)")
                #expect(stats.longestNonWordRun == longest { $0 >= 0x80 || !LiteralAnalysis.isWordByte($0) }, "\(bytes)")
                #expect(stats.count == length)
            }
        }
    }

    /// The literal scan measures the runs in its own pass (the windows use those): they must be
    /// `RunStats` of the same bytes, also where it reads U+212A or U+017F as one ASCII letter.
    @Test func theScanMeasuresTheRunsOfWhatItScans() throws {
        let set = try YAMLRules.single(id: "test.scan", pattern: #"\bkill\s+him|sus"#, views: [.ascii])
        let prefilter = set.prefilter
        var record = ScanState(literalCount: prefilter.literalCount)
        var candidates = [UInt64](repeating: 0, count: RuleBits.words(for: set.compiled.count))
        var generator = SplitMix64(seed: 0x5CA9)
        let pieces: [[UInt8]] = ["kill", " ", "him", "\t\t", ".", "_", "9", "\u{212A}", "\u{17F}", "é", "sus", "--", "\u{212A}ill"].map { Array($0.utf8) }
        for length in [0, 1, 2, 5, 20, 80] {
            for _ in 0..<40 {
                let bytes = (0..<length).flatMap { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }
                record.clear()
                bytes.withUnsafeBufferPointer { b in candidates.withUnsafeMutableBufferPointer { prefilter.scan(b, into: &record, candidates: $0) } }
                #expect(record.runs == bytes.withUnsafeBufferPointer { RunStats($0) }, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            }
        }
    }

    // MARK: Same results

    /// Patterns whose anchors sit after bounded but variable prefixes, on texts with long runs,
    /// filler before the anchor, mapped letters (U+212A counts as k) and several occurrences.
    static let patterns = [
        #"\b(?:i|we)\s+(?:want|need)\s+to\s+kill\b"#, #"(?:\w+\W+){0,3}kill"#, #"[^.!?\n]{0,30}kill"#, #"(?:i|we)\s*\w+\s+kill"#,
        #"(?<!not )kill\s+him"#, #"ab?c?kill"#, #".*kill"#, #"[\s-]+kill"#, #"(?:gonna|going\s+to)\s+die"#, #"kill(?=\s+him)"#,
        #"\bkill\b"#, #"(?:kill|murder)s?\s+\w+"#, #"x{0,5}\s*kill"#, #"k\x{131}ll|kill"#, #"\w{2,4}kill"#,
    ]
    static let texts = [
        "i want to kill", "we   \t  need to kill him", "I WANT TO KILL", "i want to \u{212A}ill", "\u{212A}ill him",
        "aa, bb; cc. kill", "one two three four kill", "x x x x x x x kill", "not kill him", "abckill", "ckill", "bkill",
        "word word. word word word word word word word kill", "gonna die", "going    to   die", "kill kill kill", "xxxxx kill",
        "murders everyone", "şşş kill", "éé\u{00A0}\u{00A0}\u{00A0}kill", "abcdkill", "kıll", "İ want to kill",
        String(repeating: "filler text without the word ", count: 40) + "i want to kill" + String(repeating: " and more", count: 30),
        String(repeating: "kill ", count: 50), String(repeating: " ", count: 300) + "kill",
        // Over 16 KiB: searched with the guarded twin under a deadline, in windows too.
        String(repeating: "filler words, ", count: 1_300) + "we need to kill him" + String(repeating: " kill", count: 3),
    ]

    @Test func windowsFindWhatWholeViewsFind() throws {
        for (index, pattern) in Self.patterns.enumerated() {
            let set = try YAMLRules.single(id: "test.w\(index)", pattern: pattern, views: ViewName.allCases)
            let windowed = set.makeMatcher()
            let whole = set.makeMatcher()
            whole.usesWindows = false
            for prefix in emojiPrefixes {
                for text in Self.texts {
                    let a = windowed.match(prefix + text).matches
                    let b = whole.match(prefix + text).matches
                    #expect(a == b, "pattern \(pattern) on \(prefix + text)")
                }
            }
            #expect(windowed.counters.searches > 0)
        }
    }

    /// Every bundled rule on every corpus prompt, and on long texts made of corpus prompts (where
    /// windows matter most): every match (all of them, not just the first per rule) is the same.
    @Test(arguments: ["en", "tr"])
    func bundledRulesFindTheSameMatchesOnTheCorpus(language: String) throws {
        let prompts = try corpusPrompts(language)
        try #require(prompts.count > 500)
        // Long texts: 12 prompts joined, some with the punctuation removed.
        var texts = prompts
        for start in stride(from: 0, to: prompts.count - 12, by: 12) {
            let joined = prompts[start..<(start + 12)].joined(separator: start % 24 == 0 ? " " : ". ")
            texts.append(joined)
        }
        let rules = try CompiledRuleSet.load(from: .bundled)
        let windowed = rules.makeMatcher()
        let whole = rules.makeMatcher()
        whole.usesWindows = false
        let differences = matchDifferences(rules, windowed, whole, on: texts)
        #expect(differences.isEmpty, "\(differences.prefix(10).joined(separator: "\n"))")
        // And the windows must save work: fewer bytes scanned shows as fewer matches attempted…
        // which PCRE2 does not report; the searches skipped because no anchor word occurs do show.
        #expect(windowed.counters.ruleViewsSearched < whole.counters.ruleViewsSearched)
    }
}

/// `match(_:into:startingBefore:)` looks only for matches whose original text starts before an
/// offset (the classifier's safe stage), with and without windows, on a view that maps several
/// original bytes to one (the squashed "k.i.l.l").
@Suite struct StartLimitTests {
    static let rules = [
        DeferredCompilationTests.rule("t.kill", #"\bkill\b"#, views: [.squashed]),
        DeferredCompilationTests.rule("t.any", #"k\w*"#, views: [.squashed]),
    ]

    @Test(arguments: [true, false])
    func matchesStartingAtOrAfterTheLimitAreNotLookedFor(windows: Bool) throws {
        let set = try CompiledRuleSet(rules: Self.rules)
        let matcher = set.makeMatcher()
        matcher.usesWindows = windows
        // "kill" at 0, "k.i.l.l" at 9 (squashed to "kill" at 9), "kill" at 21.
        let text = set.normalize("kill and k.i.l.l and kill")
        func starts(before limit: Int?) -> [String] {
            matcher.begin(text)
            var result = RuleMatchResult()
            matcher.match(set.selection(ids: ["t.kill"]), into: &result, startingBefore: limit)
            return result.matches.map { "\($0.originalRange)" }
        }
        #expect(starts(before: nil) == ["0..<4", "9..<16", "21..<25"])
        #expect(starts(before: 22) == ["0..<4", "9..<16", "21..<25"])
        #expect(starts(before: 21) == ["0..<4", "9..<16"])
        // Inside the squashed letters: the match starts at original 9, before 12.
        #expect(starts(before: 12) == ["0..<4", "9..<16"])
        #expect(starts(before: 9) == ["0..<4"])
        #expect(starts(before: 1) == ["0..<4"])
        #expect(starts(before: 0) == [])
        // The limit holds for one call only.
        matcher.begin(text)
        var result = RuleMatchResult()
        matcher.match(set.selection(ids: ["t.kill"]), into: &result, startingBefore: 1)
        matcher.match(set.selection(ids: ["t.any"]), into: &result)
        #expect(result.matches.map(\.rule.id) == ["t.kill", "t.any", "t.any", "t.any"])
    }
}

/// A window is searched only when each of the rule's other required words occurs within a
/// match's reach of it (`LiteralPrefilter.windowsNearGroups`, in views of 256 bytes or more):
/// a speed-up only, so windowed matchers must find what whole-view matchers find.
@Suite struct ProximityTests {
    static let patterns = [
        #"\bkill\s+(?:\w+\s+){0,3}?(?:child|kid)\b"#,
        #"(?:want|need)\s+to\s+(?:die+|disappear)"#,
        #"\bsteal\b[^.]{0,40}\bcars?\b"#,
        #"(?:kill|shoot)\s+(?:him|her)|(?:stab|hurt)\s+(?:him|her)"#,
        #"(?<=\bi\s)want\s+to\s+die(?=\s+now)"#,
    ]
    static let pieces = [
        "kill ", "child ", "kid", "want to ", "need  to ", "die ", "diee ", "disappear", "steal ", "car ", "cars ", ". ", "him ",
        "her ", "stab ", "\u{212A}ill ", "é ", "filler words here ", "i ", "now ", "\n", "kıll ",
    ]
    static let filler = String(repeating: "nothing to see in these words ", count: 12)

    static func texts() -> [String] {
        var generator = SplitMix64(seed: 0x9EA2)
        var texts = [
            "kill " + filler + "the child", "kill the child " + filler, filler + "kill my child", "want to " + filler + "die",
            "steal " + filler + "car", "steal my car " + filler, "stab " + filler + "him", filler + "i want to die now",
            "i want to " + filler + "die now", "\u{212A}ill " + filler + "child", "\u{212A}ill the child " + filler,
            // More than 64 windows: those past the 64th are kept unchecked.
            String(repeating: "kill nothing to see in these words ", count: 100) + "the child",
            "the child " + String(repeating: "kill nothing to see in these words ", count: 100) + "kill my kid",
        ]
        for _ in 0..<300 {
            var text = ""
            while text.utf8.count < 300 + Int(generator.next() % 900) {
                text += pieces[Int(generator.next() % UInt64(pieces.count))]
                if generator.next() % 4 == 0 { text += "some filler words " }
            }
            texts.append(text)
        }
        return texts
    }

    @Test func windowsNearTheOtherWordsFindWhatWholeViewsFind() throws {
        let texts = Self.texts()
        for (index, pattern) in Self.patterns.enumerated() {
            let set = try YAMLRules.single(id: "test.p\(index)", pattern: pattern, views: ViewName.allCases)
            let windowed = set.makeMatcher()
            let whole = set.makeMatcher()
            whole.usesWindows = false
            let differences = matchDifferences(set, windowed, whole, on: texts.map { emojiPrefixes[index % 2] + $0 })
            #expect(differences.isEmpty, "\(pattern): \(differences.prefix(5).joined(separator: "\n"))")
        }
    }

    @Test func wordsFarApartInALongPromptAreNotSearched() throws {
        let set = try YAMLRules.single(pattern: Self.patterns[0], views: [.ascii])
        #expect(set.requiredLiterals(ofRule: "test.rule")?.count == 2)
        let matcher = set.makeMatcher()
        #expect(matcher.match("kill " + Self.filler + "the child").matches.isEmpty)
        #expect(matcher.counters.ruleViewsSearched == 0)
        #expect(matcher.match("kill the child " + Self.filler).matches.count == 1)
        #expect(matcher.counters.ruleViewsSearched == 1)
        // A short prompt is searched as before: recording where every word occurs costs more there.
        #expect(matcher.match("kill, nothing else. the child").matches.isEmpty)
        #expect(matcher.counters.ruleViewsSearched == 2)
    }
}

/// The scan writes occurrences into a buffer with room for one per byte and scans again when
/// several words ending at each byte need more: every occurrence must be recorded either way.
@Suite struct OccurrenceRecordingTests {
    @Test(arguments: [10, 100, 400])
    func moreOccurrencesThanBytesAreAllRecorded(length: Int) {
        let words = ["aaa", "aaaa", "aaaaa"].map { RequiredLiteral(text: $0) }
        let prefilter = LiteralPrefilter(requirements: [[words]], anchors: [Anchor(literals: words, prefix: LengthBound())])
        var record = ScanState(literalCount: prefilter.literalCount)
        var candidates = [UInt64](repeating: 0, count: 1)
        // A first, shorter text leaves a buffer too small for the next one.
        for text in [Array("aaaa".utf8), Array(repeating: UInt8(ascii: "a"), count: length)] {
            record.clear()
            text.withUnsafeBufferPointer { bytes in
                candidates.withUnsafeMutableBufferPointer { prefilter.scan(bytes, into: &record, candidates: $0) }
            }
        }
        #expect(record.occurrenceCount == (length - 2) + (length - 3) + (length - 4))
        #expect(candidates[0] == 1)
        // Each word's chain, last first, starts at every offset the word fits at.
        for (id, word) in words.enumerated() {
            var starts: [Int32] = []
            var index = record.lastOccurrence[id]
            while index >= 0 {
                starts.append(record.occurrences[Int(index)].latest)
                index = record.occurrences[Int(index)].previous
            }
            #expect(starts == Array((0...Int32(length - word.text.count)).reversed()), "\(word)")
        }
    }
}
