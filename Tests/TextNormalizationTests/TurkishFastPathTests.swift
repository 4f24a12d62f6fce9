import SafetyCore
import Testing

@testable import TextNormalization

/// The Turkish fast path of `NormalizedText` (ASCII and the Turkish letters, `ascii` and
/// `squashed` views) must give exactly what the general path gives: views, maps, language and
/// flags, for every set of views and locale; and it must actually be taken for Turkish prompts.
@Suite struct TurkishFastPathTests {
    static let examples: [String] = [
        "", "ş", "İ", "ı", "I", "İNTİHAR ETMEK İSTİYORUM", "intihar etmek istiyorum", "ıntıhar", "INTIHAR",
        "Bugün kendimi öldürmek istiyorum", "Yarın saat 15:00'te toplantı var mı?", "ÇOK ÜZGÜNÜM", "çok üzgünüm",
        "Istanbul'a gidiyorum", "ISTANBUL'A GİDİYORUM", "k1ll ı", "kı1l", "ı1", "1ı", "ıi1l0", "a1ı b1", "I1", "İ1",
        "şşş", "ğğğ", "kııııl", "k.ı.l.l", "k ı l l", "ş.ş.ş", "ölüm 3 gün", "5ş", "ş5", "$ş", "ş@", "ö-ö-ö",
        "Ali'nin kitabı", "tab\tşey", "satır\nsonu", "CR\r\nLF ğ", "ÇĞİÖŞÜ çğıöşü", "Iİıi", "IIII ıııı",
        // Texts the path declines: other letters, controls, combining marks, other scripts.
        "café", "naïve ş", "ş\u{0}", "ş\u{1B}[0m", "s\u{0327}", "ı\u{0307}", "kіll ş", "ｋill ş", "zero\u{200B}width ş",
        "ş\u{FEFF}", "ş\u{AD}", "\u{FF}", "ş\u{C3}", "\u{C4}",
        String(repeating: "Bu hafta çok yoğunum, toplantıları öğleden sonraya kaydırabilir misin? Teşekkürler. ", count: 13),
        String(repeating: "İSTANBUL 34 ", count: 100), String(repeating: "ı1 ", count: 300),
    ]

    @Test(arguments: examples)
    func examplesMatchTheGeneralPath(text: String) {
        FastPathCases.expectEveryViewSetAndLocale(text)
    }

    /// Pieces of generated text: Turkish and English words, every Turkish letter, digits that
    /// imitate letters (in words with ı they become letters), evasions and separators.
    static let pieces: [String] = [
        "ç", "Ç", "ğ", "Ğ", "ı", "I", "İ", "i", "ö", "Ö", "ş", "Ş", "ü", "Ü", "öldür", "ÖLDÜR", "kendimi", "KENDİMİ",
        "ıntıhar", "İNTİHAR", "istiyorum", "İSTİYORUM", "için", "İÇİN", "bugün", "artık", "ARTIK", "yarın", "toplantı",
        "kill", "KILL", "him", "the", "and", "you", "0", "1", "3", "5", "7", "10", "k1ll", "kı1l", "ı1", "k.ı.l.l",
        "k ı l l", "kıııl", "h@te", "$", "@", "don't", "Ali'nin", "'", "\"", " ", " ", " ", " ", ".", ",", "-", "!",
        "?", ":", "\t", "\n", "\r", "a", "x", "Z", "aaa", "é", "\u{200B}", "\u{0}",
    ]

    static func generated(seed: Int) -> [UInt8] {
        var rng = SplitMix64(seed: UInt64(seed) &* 7_919 &+ 17)
        var bytes: [UInt8] = []
        let count = seed % 10 == 0 ? 300 : Int(rng.next() % 30)
        // One text in five may hold a piece the path declines (é, a zero-width space, NUL).
        let pieceCount = seed % 5 == 0 ? pieces.count : pieces.count - 3
        for _ in 0..<count {
            bytes += Array(pieces[Int(rng.next() % UInt64(pieceCount))].utf8)
        }
        return bytes
    }

    @Test(arguments: 0..<500)
    func generatedTextMatchesTheGeneralPath(seed: Int) {
        let bytes = Self.generated(seed: seed)
        let lean: Set<ViewName> = [.ascii, .squashed]
        for views in [lean, [.ascii], [.squashed], FastPathCases.viewSets[seed % FastPathCases.viewSets.count]] {
            for locale in FastPathCases.locales {
                expectFastPathMatchesGeneralPath(bytes, options: NormalizationOptions(localeLanguage: locale, views: views))
            }
        }
    }

    /// The path is taken for Turkish prompts (it would be easy to decline everything and pass the
    /// tests above), and declined for what it does not cover.
    @Test func takesTurkishTextAndDeclinesTheRest() {
        let lean = NormalizationOptions(views: [.ascii, .squashed])
        for text in ["Bugün kendimi öldürmek istiyorum", "İNTİHAR", "Istanbul'a gidiyorum", "kı1l", "ölüm 3 gün", "ş"] {
            let fast = NormalizedText(turkishLatin: Array(text.utf8), options: lean)
            #expect(fast != nil, "\(text)")
        }
        #expect(NormalizedText(turkishLatin: Array("kı1l".utf8), options: lean)?.view(.ascii).text == "kill")
        #expect(NormalizedText(turkishLatin: Array("İNTİHAR".utf8), options: lean)?.view(.ascii).text == "intihar")
        #expect(NormalizedText(turkishLatin: Array("İNTİHAR".utf8), options: lean)?.language == .tr)
        for text in ["café", "ş\u{0}", "kıııl", "k.ı.l.l", "s\u{0327}", "kіll"] {
            #expect(NormalizedText(turkishLatin: Array(text.utf8), options: lean) == nil, "\(text.debugDescription)")
        }
        #expect(NormalizedText(turkishLatin: Array("ş".utf8), options: NormalizationOptions()) == nil, "all views: general path")
    }

    /// The written-out letter table is what the general path's stages make of each letter.
    @Test func letterTableMatchesTheGeneralPath() {
        let derived = TurkishLetters.derived()
        #expect(derived.fates == TurkishLetters.fates.map { Optional($0) })
        #expect(derived.capitalIIsLookAlikeWhenTurkic == TurkishLetters.capitalIIsLookAlikeWhenTurkic)
        #expect(derived.capitalICovered == TurkishLetters.capitalICovered)
        #expect(derived.asciiChunked)
        #expect(TurkishLetters.fates.count == 12)
    }
}
