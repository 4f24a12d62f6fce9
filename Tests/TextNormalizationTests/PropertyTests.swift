import SafetyCore
import Testing

@testable import TextNormalization

/// Seeded random text — invalid UTF-8, combining marks, emoji ZWJ sequences, right-to-left text,
/// invisible characters, up to 100,000 characters — must never crash the normaliser, every offset
/// map must be monotonic and in bounds, and every view must be a fixed point of its own stage.
@Suite struct PropertyTests {
    /// Pieces random text is built from, each a list of byte sequences.
    static let pieces: [[[UInt8]]] = [
        ["a", "k", "I", "i", "l", " ", ".", "-", "_", "1", "0", "3", "@", "$", "\n", "Z"].map { Array($0.utf8) },
        ["ş", "ğ", "ı", "İ", "ç", "ö", "ü", "Ş", "Ğ", "Ö", "é", "ß", "ø", "æ"].map { Array($0.utf8) },
        ["а", "е", "о", "і", "р", "с", "к", "т", "п", "ж", "Ѐ", "α", "ο", "Ω"].map { Array($0.utf8) },
        ["\u{301}", "\u{308}", "\u{327}", "\u{306}", "\u{307}", "\u{334}", "\u{20DD}"].map { Array($0.utf8) },
        ["👩‍💻", "❤️‍🔥", "👍🏽", "🏳️‍🌈", "\u{200D}", "🔥", "1️⃣", "🇹🇷"].map { Array($0.utf8) },
        ["שלום", "مرحبا", "\u{202E}", "\u{202D}", "\u{2066}", "\u{200F}", "\u{61C}"].map { Array($0.utf8) },
        ["\u{200B}", "\u{200C}", "\u{2060}", "\u{FEFF}", "\u{AD}", "\u{FE0F}", "\u{E0041}", "\u{180E}"].map {
            Array($0.utf8)
        },
        ["ｋ", "１", "Ｉ", "ｌ", "ﬁ", "½", "㎏", "Ⅻ", "ǅ", "ﷺ", "\u{1D400}"].map { Array($0.utf8) },
        [[0xFF], [0xC0, 0x80], [0x80], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F]],
    ]

    static func randomBytes(length: Int, using rng: inout SplitMix64) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length * 2)
        var count = 0
        while count < length {
            if rng.next() % 8 == 0 {
                // Any valid scalar at all.
                var value = UInt32(truncatingIfNeeded: rng.next() % 0x110000)
                if (0xD800..<0xE000).contains(value) { value = 0xFFFD }
                UTF8Encoding.encode(value, into: &bytes)
            } else {
                let group = pieces[Int(rng.next() % UInt64(pieces.count))]
                bytes += group[Int(rng.next() % UInt64(group.count))]
            }
            count += 1
        }
        return bytes
    }

    static func checkMaps(_ text: NormalizedText) {
        for view in text.builtViews {
            let map = view.map
            #expect(map.count == view.utf8.count, "\(view.name) map length")
            let starts = map.starts
            let ends = map.ends
            #expect(starts.count == map.count && ends.count == map.count, "\(view.name) starts and ends")
            var lastStart: UInt32 = 0
            var lastEnd: UInt32 = 0
            for i in 0..<min(starts.count, ends.count) {
                let start = starts[i]
                let end = ends[i]
                guard start >= lastStart, end >= lastEnd, start < end, Int(end) <= text.original.count else {
                    Issue.record("\(view.name) map not monotonic or out of bounds at byte \(i): \(start)..<\(end)")
                    return
                }
                lastStart = start
                lastEnd = end
            }
            #expect(String(validating: view.utf8, as: UTF8.self) != nil, "\(view.name) is valid UTF-8")
        }
    }

    static func checkIdempotent(_ text: NormalizedText) {
        let options = NormalizationOptions(localeLanguage: text.turkicFolding ? .tr : .en)
        for view in text.builtViews {
            let again = NormalizedText(bytes: view.utf8, options: options).view(view.name).utf8
            guard again != view.utf8 else { continue }
            let at = (0..<min(again.count, view.utf8.count)).first { again[$0] != view.utf8[$0] } ?? min(again.count, view.utf8.count)
            let lo = max(0, at - 24)
            Issue.record("""
                \(view.name) is not idempotent; first difference at byte \(at):
                once:  \(escaped(view.utf8[lo..<min(view.utf8.count, at + 24)]))
                twice: \(escaped(again[lo..<min(again.count, at + 24)]))
                """)
        }
    }

    static func escaped(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).unicodeScalars.map {
            $0.isASCII && $0.value >= 0x20 ? String($0) : "\\u{\(String($0.value, radix: 16))}"
        }.joined()
    }

    @Test(arguments: 0..<300)
    func shortRandomText(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed) &* 7919)
        let bytes = Self.randomBytes(length: Int(rng.next() % 200), using: &rng)
        let text = NormalizedText(bytes: bytes)
        Self.checkMaps(text)
        Self.checkIdempotent(text)
        if text.isASCII { expectFastPathMatchesGeneralPath(bytes, options: NormalizationOptions(), "seed \(seed)") }
    }

    @Test(arguments: [1, 2, 3])
    func longRandomText(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        let bytes = Self.randomBytes(length: 100_000, using: &rng)
        let text = NormalizedText(bytes: bytes)
        Self.checkMaps(text)
        Self.checkIdempotent(text)
    }

    @Test func longASCIIText() {
        var rng = SplitMix64(seed: 42)
        let letters = Array("abcdefghij klmnop.q-r_s1t0u3v@w$x".utf8)
        let bytes = (0..<100_000).map { _ in letters[Int(rng.next() % UInt64(letters.count))] }
        let text = NormalizedText(bytes: bytes)
        #expect(text.isASCII)
        Self.checkMaps(text)
        Self.checkIdempotent(text)
        expectFastPathMatchesGeneralPath(bytes, options: NormalizationOptions())
    }
}
