import SafetyCore
import Testing

@testable import TextNormalization

/// The pure-ASCII fast path of `NormalizedText` must give exactly what the general path gives:
/// the same views, maps, language and flags, for every set of views and with or without the
/// Turkish locale (Turkic folding makes `I` non-ASCII, so that text must leave the fast path).
@Suite struct ASCIIFastPathTests {
    static let adversarial: [String] = [
        "", " ", "a", "I", "i", "II", "Hello World", "HELLO WORLD", "please kill him",
        "I WANT TO DIE", "Istanbul'a gidiyorum", "ISTIYORUM", "bugun kendimi oldurmek istiyorum", "BUGUN ICIN",
        "k1ll", "K1LL", "k.i.l.l him", "k i l l", "k-1-l-l", "k.i.l.l h.i.m", "k . i . l . l", "a.b", "a.b.c",
        "kiiiill", "KIIIILL", "sooooo", "aAa", "aaa", "...", "!!!", "3pm", "10am", "2nd", "5km", "30min", "at 5",
        "2024", "5uicide", "$uicide", "@ll", "h@te", "don't", "i'm", "'quoted'", "\"quoted\"", "it's", "can't",
        "tab\there", "line\nbreak", "cr\rlf\r\n", "vt\u{B}ff\u{C}", "esc\u{1B}[0m", "nul\u{0}byte", "k\u{0}i\u{0}l\u{0}l",
        "hello\u{0}kill", "del\u{7F}", "bs\u{8}", "\u{1F}", "\u{1}\u{2}", "ki\u{1B}ll", "I\u{0}I",
        "~`!@#$%^&*()_+-=[]{}|;:,.<>/?\\", "0123456789", "1 2 3", "a 1 b", "x y z", "@ $ @", "a.a.a",
        String(repeating: "I have been feeling tired lately and my calendar is packed with meetings all week. ", count: 13),
        String(repeating: "Bu hafta cok yogunum, toplantilari ogleden sonraya kaydirabilir misin? Tesekkurler. ", count: 13),
        String(repeating: "ISTANBUL ", count: 130), String(repeating: "k.i.l.l ", count: 150), String(repeating: "x", count: 1500),
    ]

    @Test(arguments: adversarial)
    func adversarialText(text: String) {
        FastPathCases.expectEveryViewSetAndLocale(text)
    }

    /// Pieces of generated text: words, evasions, Turkish typed in ASCII, controls and whitespace.
    static let pieces: [String] = [
        "kill", "KILL", "Kill", "him", "I", "i", "the", "and", "you", "istiyorum", "ISTIYORUM", "Istiyorum", "icin",
        "bugun", "artik", "k1ll", "k.i.l.l", "k i l l", "kiiiill", "diiiie", "3pm", "10am", "5uicide", "h@te", "$",
        "@", "0", "1", "3", "7", "don't", "i'm", "'", "\"", " ", " ", " ", ".", ",", "-", "!", "?", "\t", "\n", "\r",
        "\u{1B}", "\u{0}", "\u{7F}", "\u{1F}", "a", "b", "x", "Z", "AAA", "aaa", "lol", "ok",
    ]

    static func generated(seed: Int) -> [UInt8] {
        var rng = SplitMix64(seed: UInt64(seed) &* 104_729)
        var bytes: [UInt8] = []
        let count = seed % 10 == 0 ? 400 : Int(rng.next() % 40)
        for _ in 0..<count {
            if rng.next() % 6 == 0 {
                bytes.append(UInt8(rng.next() % 128))
            } else {
                bytes += Array(pieces[Int(rng.next() % UInt64(pieces.count))].utf8)
            }
        }
        return bytes
    }

    @Test(arguments: 0..<400)
    func generatedText(seed: Int) {
        let bytes = Self.generated(seed: seed)
        // Each text with all views and with one more set, in turn, under each locale.
        for views in [Set(ViewName.allCases), FastPathCases.viewSets[seed % FastPathCases.viewSets.count]] {
            for locale in FastPathCases.locales {
                expectFastPathMatchesGeneralPath(bytes, options: NormalizationOptions(localeLanguage: locale, views: views))
            }
        }
    }

    /// The byte-level test of whether squashing has work answers as the one over units does.
    @Test(arguments: 0..<400)
    func squashingNeedsWorkOnBytes(seed: Int) {
        let bytes = Self.generated(seed: seed)
        let units = bytes.withUnsafeBufferPointer { UTF8Encoding.decode($0).units }
        let onBytes = bytes.withUnsafeBufferPointer { Squashing.needsWork(ascii: $0) }
        #expect(onBytes == Squashing.needsWork(units), "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
    }

    @Test(arguments: adversarial)
    func squashingNeedsWorkOnAdversarialBytes(text: String) {
        let bytes = Array(text.utf8)
        let units = bytes.withUnsafeBufferPointer { UTF8Encoding.decode($0).units }
        #expect(bytes.withUnsafeBufferPointer { Squashing.needsWork(ascii: $0) } == Squashing.needsWork(units))
    }

    /// The language score of ASCII bytes is the score of their units.
    @Test(arguments: 0..<400)
    func languageScoreOnBytes(seed: Int) {
        let bytes = Self.generated(seed: seed)
        let units = bytes.withUnsafeBufferPointer { UTF8Encoding.decode($0).units }
        let onBytes = bytes.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) }
        let onUnits = LanguageGuess.score(units)
        #expect(onBytes.turkishLetters == onUnits.turkishLetters)
        #expect(onBytes.turkishWords == onUnits.turkishWords)
        #expect(onBytes.englishWords == onUnits.englishWords)
    }

    @Test func identityMapEqualsTheSameNumbers() {
        let identity = OffsetMap.identity(originalCount: 4)
        let explicit = OffsetMap(starts: [0, 1, 2, 3], ends: [1, 2, 3, 4], originalCount: 4)
        #expect(identity == explicit)
        #expect(explicit == identity)
        #expect(identity == OffsetMap.identity(originalCount: 4))
        #expect(identity.starts == explicit.starts && identity.ends == explicit.ends)
        #expect(identity != OffsetMap.identity(originalCount: 5))
        #expect(identity != OffsetMap(starts: [0, 1, 2, 3], ends: [1, 2, 3, 5], originalCount: 5))
        #expect(identity != OffsetMap(starts: [0, 1, 1, 3], ends: [1, 2, 3, 4], originalCount: 4))
        #expect(identity != OffsetMap(starts: [0, 1, 2], ends: [1, 2, 4], originalCount: 4))
        #expect(OffsetMap.identity(originalCount: 0) == OffsetMap(starts: [], ends: [], originalCount: 0))
        for lower in 0...4 {
            for upper in lower...4 {
                #expect(identity.originalRange(of: lower..<upper) == explicit.originalRange(of: lower..<upper))
            }
        }
    }
}
