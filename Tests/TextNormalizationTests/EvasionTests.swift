import SafetyCore
import Testing

@testable import TextNormalization

/// One test per evasion in POLICY.md: the exact text of the view that sees through it, and the
/// span in that view mapped back to the original bytes of the evasion.
@Suite struct EvasionTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let input: String
        let view: ViewName
        let expected: String
        /// A word of `expected` and the original text it must map back to.
        let word: String
        let originalWord: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "Cyrillic і and е", input: "I want to d\u{456}\u{435} now", view: .skeleton,
             expected: "i want to die now", word: "die", originalWord: "d\u{456}\u{435}"),
        Case(name: "Cyrillic с о р", input: "\u{441}\u{43E}\u{440}y her password", view: .skeleton,
             expected: "copy her password", word: "copy", originalWord: "\u{441}\u{43E}\u{440}y"),
        Case(name: "Cyrillic а", input: "build a b\u{43E}mb \u{430}t home", view: .skeleton,
             expected: "build a bomb at home", word: "bomb", originalWord: "b\u{43E}mb"),
        Case(name: "zero-width space", input: "ki\u{200B}ll him", view: .folded,
             expected: "kill him", word: "kill", originalWord: "ki\u{200B}ll"),
        Case(name: "zero-width joiner and non-joiner", input: "su\u{200D}ici\u{200C}de", view: .folded,
             expected: "suicide", word: "suicide", originalWord: "su\u{200D}ici\u{200C}de"),
        Case(name: "word joiner and BOM", input: "\u{FEFF}over\u{2060}dose", view: .folded,
             expected: "overdose", word: "overdose", originalWord: "over\u{2060}dose"),
        Case(name: "bidi override and tag characters", input: "ki\u{202E}l\u{E0041}l", view: .folded,
             expected: "kill", word: "kill", originalWord: "ki\u{202E}l\u{E0041}l"),
        Case(name: "NUL bytes inside a word", input: "k\u{0}i\u{0}l\u{0}l him", view: .folded,
             expected: "kill him", word: "kill", originalWord: "k\u{0}i\u{0}l\u{0}l"),
        Case(name: "NUL bytes between letters read as spaces, then joined", input: "k\u{0}i\u{0}l\u{0}l him", view: .squashed,
             expected: "kill him", word: "kill", originalWord: "k\u{0}i\u{0}l\u{0}l"),
        Case(name: "NUL byte between words reads as a space", input: "hello\u{0}kill him", view: .squashed,
             expected: "hello kill him", word: "kill", originalWord: "kill"),
        Case(name: "escape and backspace inside a word", input: "k\u{1B}il\u{8}l HIM", view: .folded,
             expected: "kill him", word: "kill", originalWord: "k\u{1B}il\u{8}l"),
        Case(name: "C1 control inside a word", input: "sui\u{9B}cide ş", view: .folded,
             expected: "suicide ş", word: "suicide", originalWord: "sui\u{9B}cide"),
        Case(name: "a combining mark after a removed control stays apart", input: "l\u{3}\u{0}\u{301}x", view: .folded,
             expected: "\u{13A}x", word: "x", originalWord: "x"),
        Case(name: "whitespace controls stay", input: "kill\thim\u{85}now", view: .folded,
             expected: "kill\thim\u{85}now", word: "him", originalWord: "him"),
        Case(name: "variation selector", input: "di\u{FE0F}e", view: .folded,
             expected: "die", word: "die", originalWord: "di\u{FE0F}e"),
        Case(name: "soft hyphen", input: "sui\u{AD}cide", view: .folded,
             expected: "suicide", word: "suicide", originalWord: "sui\u{AD}cide"),
        Case(name: "combining accent", input: "ki\u{301}ll them", view: .ascii,
             expected: "kill them", word: "kill", originalWord: "ki\u{301}ll"),
        Case(name: "full-width forms", input: "ｋｉｌｌ ｍｅ", view: .folded,
             expected: "kill me", word: "kill", originalWord: "ｋｉｌｌ"),
        Case(name: "NFD Turkish", input: "o\u{308}ldu\u{308}receg\u{306}im", view: .folded,
             expected: "öldüreceğim", word: "öldüreceğim", originalWord: "o\u{308}ldu\u{308}receg\u{306}im"),
        Case(name: "NFD composes", input: "so\u{308}yle", view: .folded,
             expected: "söyle", word: "ö", originalWord: "o\u{308}"),
        Case(name: "leetspeak k1ll", input: "k1ll him", view: .squashed,
             expected: "kill him", word: "kill", originalWord: "k1ll"),
        Case(name: "leetspeak 5uicide", input: "5uicide note", view: .squashed,
             expected: "suicide note", word: "suicide", originalWord: "5uicide"),
        Case(name: "leetspeak @ and $", input: "@$$ault them", view: .squashed,
             expected: "assault them", word: "assault", originalWord: "@$$ault"),
        Case(name: "numbers stay numbers", input: "meet at 5 on 2024-05-01", view: .squashed,
             expected: "meet at 5 on 2024-05-01", word: "5", originalWord: "5"),
        Case(name: "letter spacing", input: "please k i l l him", view: .squashed,
             expected: "please kill him", word: "kill", originalWord: "k i l l"),
        Case(name: "dots inside a word", input: "please k.i.l.l him", view: .squashed,
             expected: "please kill him", word: "kill", originalWord: "k.i.l.l"),
        Case(name: "hyphens inside a word", input: "k-i-l-l", view: .squashed,
             expected: "kill", word: "kill", originalWord: "k-i-l-l"),
        Case(name: "underscores and leet", input: "s_u_1_c_1_d_e", view: .squashed,
             expected: "suicide", word: "suicide", originalWord: "s_u_1_c_1_d_e"),
        Case(name: "stretched letters", input: "i want to diiiie", view: .squashed,
             expected: "i want to die", word: "die", originalWord: "diiiie"),
        Case(name: "all caps", input: "I WANT TO DIE", view: .folded,
             expected: "i want to die", word: "die", originalWord: "DIE"),
        Case(name: "Turkish capitals", input: "İNTİHAR ETMEK İSTİYORUM", view: .ascii,
             expected: "intihar etmek istiyorum", word: "intihar", originalWord: "İNTİHAR"),
        Case(name: "Turkish capitals without dots", input: "INTIHAR ETMEK ISTIYORUM", view: .ascii,
             expected: "intihar etmek istiyorum", word: "istiyorum", originalWord: "ISTIYORUM"),
        Case(name: "dotless i", input: "ıntıhar", view: .ascii,
             expected: "intihar", word: "intihar", originalWord: "ıntıhar"),
        Case(name: "Turkish letters removed", input: "yaşamak istemiyorum, öldüreceğim", view: .ascii,
             expected: "yasamak istemiyorum, oldurecegim", word: "oldurecegim", originalWord: "öldüreceğim"),
        Case(name: "full-width, zero-width, Cyrillic і, full-width 1", input: "ｋ\u{200B}і１ｌｌ", view: .skeleton,
             expected: "killl", word: "kill", originalWord: "ｋ\u{200B}і１ｌ"),
        Case(name: "mixed: caps, homoglyph, spacing", input: "K \u{406} L L", view: .squashed,
             expected: "kill", word: "kill", originalWord: "K \u{406} L L"),
    ]

    @Test(arguments: cases)
    func viewSeesThrough(_ c: Case) throws {
        let text = NormalizedText(c.input)
        #expect(text.view(c.view).text == c.expected)
        #expect(originalText(of: c.word, in: c.view, of: text) == c.originalWord)
    }

    /// The same with an emoji in front: every original offset shifts by the emoji's UTF-8 length.
    @Test(arguments: cases)
    func emojiPrefixShiftsOffsets(_ c: Case) throws {
        let prefix = "👩‍💻 "
        let plain = NormalizedText(c.input)
        let prefixed = NormalizedText(prefix + c.input)
        let word = Array(c.word.utf8)
        let plainView = plain.view(c.view)
        let prefixedView = prefixed.view(c.view)
        let plainRange = try #require(byteRange(of: word, in: plainView.utf8))
        let prefixedRange = try #require(byteRange(of: word, in: prefixedView.utf8))
        let shift = prefix.utf8.count
        let a = plainView.originalRange(of: plainRange)
        let b = prefixedView.originalRange(of: prefixedRange)
        #expect(b == (a.lowerBound + shift)..<(a.upperBound + shift))
    }

    @Test func kDotIDotLDotLMapsToBytesSevenToFourteen() {
        let text = NormalizedText("please k.i.l.l him")
        let squashed = text.view(.squashed)
        #expect(squashed.text == "please kill him")
        #expect(squashed.originalRange(of: 7..<11) == 7..<14)
    }

    @Test func emojiZWJSequenceStaysWholeAndDoesNotGlueWords() {
        let text = NormalizedText("kill 👩‍💻 him ❤️‍🔥")
        #expect(text.view(.folded).text == "kill 👩‍💻 him ❤‍🔥")
        #expect(text.view(.squashed).text == "kill 👩‍💻 him ❤‍🔥")
    }

    @Test func defaultFoldingNeverLeavesCombiningDotAbove() throws {
        // Forced default folding (no Turkish signal), through the ICU path and the Latin table.
        for input in ["İ", "İstanbul", "I\u{307}", "İ\u{308}", "Ｉ\u{307}"] {
            let units = Array(input.utf8).withUnsafeBufferPointer { UTF8Encoding.decode($0).units }
            let folded = try Folding.fold(units, turkic: false)
            #expect(!folded.scalars.contains(0x307), "\(input)")
            #expect(folded.scalars.first == 0x69 || folded.scalars.first == 0xEF, "\(input)")
        }
    }

    @Test func turkicFoldingMapsCapitalIToDotlessI() throws {
        let text = NormalizedText("ISPARTA", options: NormalizationOptions(localeLanguage: .tr))
        #expect(text.turkicFolding)
        #expect(text.view(.folded).text == "ısparta")
        #expect(text.view(.ascii).text == "isparta")
        let english = NormalizedText("ISPARTA", options: NormalizationOptions(localeLanguage: .en))
        #expect(english.view(.folded).text == "isparta")
    }

    @Test func genuineCyrillicStaysIntactInFolded() {
        let text = NormalizedText("привет как дела")
        #expect(text.view(.folded).text == "привет как дела")
        #expect(NormalizedText("\u{43A}ill him").view(.skeleton).text == "kill him")
        #expect(NormalizedText("\u{441}\u{43E}\u{440}\u{435}").view(.skeleton).text == "cope")
    }

    @Test func digitsOnlyImitateLettersNextToLookAlikes() {
        #expect(NormalizedText("k\u{456}1l").view(.skeleton).text == "kill")
        #expect(NormalizedText("ki1l").view(.skeleton).text == "ki1l")
        #expect(NormalizedText("ki1l").view(.squashed).text == "kiil")
    }

    @Test func invalidUTF8IsReplacedAndFlagged() {
        let text = NormalizedText(bytes: [0x66, 0xFF, 0x6F, 0xE2, 0x82, 0x21])
        #expect(text.hadInvalidUTF8)
        #expect(text.view(.raw).text == "f\u{FFFD}o\u{FFFD}!")
        let raw = text.view(.raw)
        #expect(raw.originalRange(of: 1..<4) == 1..<2)  // the first U+FFFD is one invalid byte
        #expect(raw.originalRange(of: 5..<8) == 3..<5)  // the second: a truncated 3-byte sequence
        #expect(raw.originalRange(of: 8..<9) == 5..<6)
    }

    @Test func languageGuess() {
        #expect(LanguageGuess.guess("I want to schedule a meeting tomorrow") == .en)
        #expect(LanguageGuess.guess("yarın için toplantı ayarla") == .tr)
        #expect(LanguageGuess.guess("yasamak istemiyorum artik") == .tr)
        #expect(LanguageGuess.guess("İNTİHAR") == .tr)
        #expect(LanguageGuess.guess("12345 !!!") == .und)
    }

    @Test func onlyRequestedViewsAreBuilt() {
        let text = NormalizedText("Hello", options: NormalizationOptions(views: [.folded]))
        #expect(text.viewIfBuilt(.folded)?.text == "hello")
        #expect(text.viewIfBuilt(.raw) == nil)
        #expect(text.viewIfBuilt(.squashed) == nil)
    }
}
