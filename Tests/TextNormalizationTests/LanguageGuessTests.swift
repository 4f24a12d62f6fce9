import SafetyCore
import Testing

@testable import TextNormalization

/// The language score read off packed letter keys (`LanguageGuess.WordTable`) must be the score
/// its definition gives: split into words of letters and `'`, each Turkish letter counted, each
/// word of up to 32 letters looked up in the lists and tested for a Turkish suffix shorter than it.
@Suite struct LanguageGuessTests {
    /// The definition, over `String`s and `Set`s.
    static func referenceScore(_ text: String) -> LanguageGuess.Score {
        var score = LanguageGuess.Score()
        var words: [String] = []
        var word = ""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            var letter: Character?
            switch value {
            case 0x41...0x5A: letter = Character(Unicode.Scalar(value | 0x20)!)
            case 0x61...0x7A, 0x27: letter = Character(scalar)
            case 0x11E, 0x11F, 0x15E, 0x15F, 0x130, 0x131:
                score.turkishLetters += 3
                letter = Character(Unicode.Scalar(LanguageGuess.turkishLetterFold(value)))
            case 0xE7, 0xC7, 0xF6, 0xD6, 0xFC, 0xDC:
                score.turkishLetters += 1
                letter = Character(Unicode.Scalar(LanguageGuess.turkishLetterFold(value)))
            default: letter = nil
            }
            if let letter {
                word.append(letter)
            } else if !word.isEmpty {
                words.append(word)
                word = ""
            }
        }
        if !word.isEmpty { words.append(word) }
        for word in words where word.count <= 32 {
            if LanguageGuess.turkishWords.contains(word) { score.turkishWords += 2 }
            if LanguageGuess.englishWords.contains(word) { score.englishWords += 2 }
            if word.count >= 5,
                LanguageGuess.turkishSuffixes.contains(where: { $0.count < word.count && word.hasSuffix($0) })
            {
                score.turkishWords += 2
            }
        }
        return score
    }

    static let pieces: [String] = Array(LanguageGuess.turkishWords) + Array(LanguageGuess.englishWords)
        + LanguageGuess.turkishSuffixes + [
            " ", "  ", ", ", ". ", "\n", "'", "-", "3", "I", "İ", "ı", "ğ", "Ş", "ç", "Ö", "ü", "é", "ß", "Д", "😀",
            "ISTIYORUM", "Gidiyorum", "don't", "I'M", "abcdefghijklmnopqrstuvwxyz", "supercalifragilisticexpialidocious",
            "kendimiöldürmekistiyorum", "toplantisini", "TOPLANTISINI", "tesekkurler", "ab'cd", "''",
        ]

    static func generated(seed: Int) -> String {
        var rng = SplitMix64(seed: UInt64(seed) &* 7_919 &+ 17)
        var text = ""
        let count = seed % 8 == 0 ? 200 : Int(rng.next() % 30)
        for _ in 0..<count {
            let piece = pieces[Int(rng.next() % UInt64(pieces.count))]
            // Glue some pieces together, so that words grow past the lists and keys.
            text += piece
            if rng.next() % 3 != 0 { text += " " }
        }
        return text
    }

    @Test(arguments: 0..<300)
    func scoreMatchesTheDefinition(seed: Int) {
        let text = Self.generated(seed: seed)
        let expected = Self.referenceScore(text)
        let units = Array(text.utf8).withUnsafeBufferPointer { UTF8Encoding.decode($0).units }
        let actual = LanguageGuess.score(units)
        #expect(actual.turkishLetters == expected.turkishLetters, "\(text)")
        #expect(actual.turkishWords == expected.turkishWords, "\(text)")
        #expect(actual.englishWords == expected.englishWords, "\(text)")
    }

    @Test func wordsAtTheEdgesOfAKey() {
        // Twelve letters fit a key whole; a word of thirteen is in no list but keeps its suffix.
        for text in [
            "toplantisini", "xtoplantisini", "istemiyorum", "yapabilirim", "gelmeyecegim", "x", "mak", "amak", "aamak",
            String(repeating: "a", count: 32) + "iyorum", String(repeating: "a", count: 26) + "iyorum", "don't", "dont", "DON'T",
        ] {
            let units = Array(text.utf8).withUnsafeBufferPointer { UTF8Encoding.decode($0).units }
            let actual = LanguageGuess.score(units)
            let expected = Self.referenceScore(text)
            #expect(
                [actual.turkishLetters, actual.turkishWords, actual.englishWords]
                    == [expected.turkishLetters, expected.turkishWords, expected.englishWords], "\(text)")
        }
        // The definition, spelled out for a few of them.
        #expect(Self.referenceScore("toplantisini").turkishWords == 4)  // a listed word with a suffix
        #expect(Self.referenceScore(String(repeating: "a", count: 33) + "iyorum").turkishWords == 0)  // over 32 letters
    }
}
