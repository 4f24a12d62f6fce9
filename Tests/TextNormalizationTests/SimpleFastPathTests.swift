import SafetyCore
import Testing

@testable import TextNormalization

/// The simple-text fast path of `NormalizedText` (ASCII and the scalars of `SimpleScalars`, `ascii`
/// and `squashed` views) must give exactly what the general path gives: views, maps, language and
/// flags, for every set of views and locale; it must actually be taken for the text it covers; and
/// its compiled-in fates must be what the general path's stages make of each scalar.
@Suite struct SimpleFastPathTests {
    static let examples: [String] = [
        "", "ş", "İ", "ı", "I", "İNTİHAR ETMEK İSTİYORUM", "intihar etmek istiyorum", "ıntıhar", "INTIHAR",
        "Bugün kendimi öldürmek istiyorum", "Yarın saat 15:00'te toplantı var mı?", "ÇOK ÜZGÜNÜM", "çok üzgünüm",
        "Istanbul'a gidiyorum", "ISTANBUL'A GİDİYORUM", "k1ll ı", "kı1l", "ı1", "1ı", "ıi1l0", "a1ı b1", "I1", "İ1",
        "şşş", "ğğğ", "kııııl", "k.ı.l.l", "k ı l l", "ş.ş.ş", "ölüm 3 gün", "5ş", "ş5", "$ş", "ş@", "ö-ö-ö",
        "Ali'nin kitabı", "tab\tşey", "satır\nsonu", "CR\r\nLF ğ", "ÇĞİÖŞÜ çğıöşü", "Iİıi", "IIII ıııı",
        // Other simple text: accents, look-alikes, full-width and circled forms, typography, zero-width.
        "café", "naïve ş", "Ærøskøbing", "kіll", "kіll ş", "dіе", "кі1l", "к1ll", "ｋill ş", "ｋｉｌｌ", "ＫＩＬＬ ＭＥ",
        "ＩＮＴＩＨＡＲ", "ⓚⓘⓛⓛ", "zero\u{200B}width ş", "k\u{200B}i\u{200C}l\u{200D}l", "k\u{2060}1ll", "\u{200B}kill",
        "kill\u{200B}", "\u{200B}\u{200B}", "ş\u{FEFF}", "\u{FEFF}hello", "ş\u{AD}", "kil\u{AD}l", "\u{AD}", "I\u{AD}",
        "İ\u{AD}\u{AD}x", "don’t", "“quoted”", "a – b — c", "no\u{A0}break", "ｋ\u{AD}ｉll", "ｋ1ll", "кіlllll",
        "ş\u{200B}\u{AD}", "ı\u{200B}1", "Ｉ1", "ＩＩ", "ⓚ1ll", "ο1", "\u{2019}\u{2019}\u{2019}", "ｋ.ｉ.ｌ.ｌ",
        // Texts the path declines: combining marks, emoji, controls, scalars that stay non-ASCII.
        "ş\u{0}", "ş\u{1B}[0m", "s\u{0327}", "ı\u{0307}", "e\u{301}", "k\u{200B}\u{301}", "\u{FF}", "\u{C4}",
        "ß", "…", "½", "ж", "日本", "👩\u{200D}💻", "©\u{200D}©", "kill ©", "\u{85}", "\u{9F}x", "𝐤𝐢𝐥𝐥", "ﬁ",
        String(repeating: "Bu hafta çok yoğunum, toplantıları öğleden sonraya kaydırabilir misin? Teşekkürler. ", count: 13),
        String(repeating: "İSTANBUL 34 ", count: 100), String(repeating: "ı1 ", count: 300),
        String(repeating: "Plеase rеad thіs ｃａｒｅｆｕｌｌｙ\u{200B}, it’s fіne. ", count: 20),
    ]

    @Test(arguments: examples)
    func examplesMatchTheGeneralPath(text: String) {
        FastPathCases.expectEveryViewSetAndLocale(text)
    }

    /// Bytes that are not valid UTF-8, or encode what the path must not decode.
    @Test func invalidUTF8MatchesTheGeneralPath() {
        let cases: [[UInt8]] = [
            [0xC3], [0xC3, 0x41], [0xE0, 0x80, 0x80], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xE2, 0x80], [0xE2, 0x80, 0x41],
            [0xF0, 0x9F, 0x98, 0x80], [0xFF], [0x6B, 0xE2, 0x80, 0x8B, 0xC3], Array("ş".utf8) + [0x80], [0xC5, 0x9F, 0xF4, 0x90, 0x80, 0x80],
        ]
        for bytes in cases {
            for locale in FastPathCases.locales {
                for views in [[.ascii, .squashed], [.ascii], [ViewName.squashed]] as [Set<ViewName>] {
                    expectFastPathMatchesGeneralPath(bytes, options: NormalizationOptions(localeLanguage: locale, views: views))
                }
            }
        }
    }

    /// Pieces of generated text: Turkish and English words, every Turkish letter, look-alikes,
    /// full-width letters and digits, zero-width characters (which join the chunk before), digits
    /// that imitate letters (in words with a look-alike they become letters), evasions, separators.
    static let pieces: [String] = [
        "ç", "Ç", "ğ", "Ğ", "ı", "I", "İ", "i", "ö", "Ö", "ş", "Ş", "ü", "Ü", "öldür", "ÖLDÜR", "kendimi", "KENDİMİ",
        "ıntıhar", "İNTİHAR", "istiyorum", "İSTİYORUM", "için", "İÇİN", "bugün", "artık", "ARTIK", "yarın", "toplantı",
        "kill", "KILL", "him", "the", "and", "you", "0", "1", "3", "5", "7", "10", "k1ll", "kı1l", "ı1", "k.ı.l.l",
        "k ı l l", "kıııl", "h@te", "$", "@", "don't", "Ali'nin", "'", "\"", " ", " ", " ", " ", ".", ",", "-", "!",
        "?", ":", "\t", "\n", "\r", "a", "x", "Z", "aaa", "é", "É", "æ", "ñ", "е", "і", "о", "к", "Е", "ι", "ο",
        "ｋ", "Ｉ", "ｉ", "１", "ⓚ", "’", "“", "—", "\u{A0}", "\u{200B}", "\u{200C}", "\u{200D}", "\u{2060}", "\u{FEFF}",
        "\u{AD}", "dіе", "ｋｉｌｌ",
        // Declined.
        "\u{0}", "\u{301}", "ß", "👩", "ж",
    ]

    static func generated(seed: Int) -> [UInt8] {
        var rng = SplitMix64(seed: UInt64(seed) &* 7_919 &+ 17)
        var bytes: [UInt8] = []
        let count = seed % 10 == 0 ? 300 : Int(rng.next() % 30)
        // One text in five may hold a piece the path declines.
        let pieceCount = seed % 5 == 0 ? pieces.count : pieces.count - 5
        for _ in 0..<count {
            bytes += Array(pieces[Int(rng.next() % UInt64(pieceCount))].utf8)
        }
        return bytes
    }

    @Test(arguments: 0..<600)
    func generatedTextMatchesTheGeneralPath(seed: Int) {
        let bytes = Self.generated(seed: seed)
        let lean: Set<ViewName> = [.ascii, .squashed]
        for views in [lean, [.ascii], [.squashed], FastPathCases.viewSets[seed % FastPathCases.viewSets.count]] {
            for locale in FastPathCases.locales {
                expectFastPathMatchesGeneralPath(bytes, options: NormalizationOptions(localeLanguage: locale, views: views))
            }
        }
    }

    /// The path is taken for the text it covers (it would be easy to decline everything and pass
    /// the tests above), and declined for the rest.
    @Test func takesSimpleTextAndDeclinesTheRest() {
        let lean = NormalizationOptions(views: [.ascii, .squashed])
        func fast(_ text: String) -> NormalizedText? { NormalizedText(simpleText: Array(text.utf8), options: lean) }
        for text in [
            "Bugün kendimi öldürmek istiyorum", "İNTİHAR", "Istanbul'a gidiyorum", "kı1l", "ölüm 3 gün", "ş", "café", "kіll",
            "ｋｉｌｌ", "k\u{200B}ill", "kil\u{AD}l", "don’t", "Ærø", "kıııl", "k.ı.l.l", "ｋ1ｌｌ",
        ] {
            #expect(fast(text) != nil, "\(text.debugDescription)")
        }
        #expect(fast("kı1l")?.view(.ascii).text == "kill")
        #expect(fast("кі1l")?.view(.ascii).text == "kill")
        #expect(fast("İNTİHAR")?.view(.ascii).text == "intihar")
        #expect(fast("İNTİHAR")?.language == .tr)
        #expect(fast("ＫＩＬＬ ｍｅ")?.view(.ascii).text == "kill me")
        #expect(fast("k\u{200B}i\u{AD}ll")?.view(.ascii).text == "kill")
        // The removed scalars belong to the letter before them.
        #expect(fast("k\u{200B}ill")?.view(.ascii).originalRange(of: 0..<1) == 0..<4)
        #expect(fast("Ærø")?.view(.ascii).text == "aero")
        // Squashing runs on the view's units.
        #expect(fast("k.ı.l.l")?.view(.squashed).text == "kill")
        #expect(fast("ｋ1ｌｌ")?.view(.squashed).text == "kill")
        #expect(fast("ｋ1ｌｌ")?.view(.ascii).text == "k1ll")
        for text in ["ş\u{0}", "s\u{0327}", "e\u{301}", "ß", "…", "ж", "👩\u{200D}💻", "𝐤"] {
            #expect(fast(text) == nil, "\(text.debugDescription)")
        }
        #expect(NormalizedText(simpleText: Array("ş".utf8), options: NormalizationOptions()) == nil, "all views: general path")
    }

    /// The compiled-in fates are what the general path's stages make of each scalar, and the
    /// two-level table answers for every scalar below U+10000 what the list says.
    @Test func fatesMatchTheGeneralPath() {
        let derived = SimpleScalars.derive()
        let compiled = Dictionary(uniqueKeysWithValues: SimpleScalars.parse(GeneratedTables.simpleFates))
        #expect(derived == compiled, "regenerate with `swift run safegate dev generate-tables`")
        for scalar in UInt32(0)..<0x10000 {
            #expect(SimpleScalars.fate(of: scalar) == (compiled[scalar] ?? 0), "U+\(String(scalar, radix: 16))")
        }
        let capitalI = SimpleScalars.derivedCapitalI()
        #expect(capitalI.lookAlikeWhenTurkic == SimpleScalars.capitalIIsLookAlikeWhenTurkic)
        #expect(capitalI.becomesSmallI == SimpleScalars.capitalIBecomesSmallI)
        #expect(SimpleScalars.asciiIsChunked())
        // What the path is for: every Turkish letter, the look-alikes and evasions of the corpus.
        for text in ["çÇğĞıİöÖşŞüÜ", "еаіоѕкурс", "ｅａｔｒｎｉｏｄｈｓＩＯＴ", "\u{200B}\u{200C}\u{200D}\u{2060}\u{FEFF}\u{AD}", "éèêëàâäñ"] {
            for scalar in text.unicodeScalars {
                #expect(compiled[scalar.value] != nil, "U+\(String(scalar.value, radix: 16)) \(scalar)")
            }
        }
    }

    /// A removed scalar that joins the chunk before changes nothing there but where its units end:
    /// folding the pair gives the fold of the first scalar alone, spanning both. (The path relies
    /// on it; ICU could in principle compose across such a scalar.)
    @Test func joiningScalarsChangeOnlyTheSpan() throws {
        let fates = Dictionary(uniqueKeysWithValues: SimpleScalars.parse(GeneratedTables.simpleFates))
        let joining = fates.filter { $0.value & SimpleScalars.joinsChunkBefore != 0 }.keys.sorted()
        #expect(!joining.isEmpty)
        let kept = fates.filter { $0.value & SimpleScalars.joinsChunkBefore == 0 }.keys.sorted()
        let printableASCII = (UInt32(0x20)..<0x7F).map { $0 }
        for first in printableASCII + kept {
            let firstLength = UInt32(UTF8Encoding.length(of: first))
            for x in joining {
                for turkic in [false, true] {
                    var alone = Units()
                    alone.append(first, 0, firstLength)
                    var pair = alone
                    pair.append(x, firstLength, firstLength + UInt32(UTF8Encoding.length(of: x)))
                    let foldedAlone = try Folding.fold(alone, turkic: turkic)
                    let foldedPair = try Folding.fold(pair, turkic: turkic)
                    #expect(foldedPair.scalars == foldedAlone.scalars, "U+\(String(first, radix: 16)) U+\(String(x, radix: 16))")
                    #expect(foldedPair.ends.allSatisfy { $0 == pair.ends[1] }, "U+\(String(first, radix: 16)) U+\(String(x, radix: 16))")
                }
            }
        }
    }
}
