import SafetyCore
import Testing

@testable import TextNormalization

/// The compiled-in tables must equal what the ICU on this machine derives; regenerate with
/// `swift run safegate dev generate-tables` when ICU changes.
@Suite struct TableParityTests {
    @Test func confusablesMatchICU() throws {
        let derived = try TableDerivation.deriveConfusables()
        #expect(derived == UnicodeTables.confusables)
        // Spot checks of what POLICY.md names.
        for (cyrillic, latin) in [("а", "a"), ("е", "e"), ("о", "o"), ("і", "i"), ("р", "p"), ("с", "c")] {
            #expect(derived[cyrillic.unicodeScalars.first!.value] == [latin.unicodeScalars.first!.value])
        }
        // Skeleton reads one letter per entry, and below U+0800 from a flat array: every code point
        // of that range must give what ICU's table (then the hand-curated supplement) gives.
        for (scalar, letter) in derived.merging(UnicodeTables.confusableSupplement, uniquingKeysWith: { a, _ in a }) {
            #expect(letter.count == 1 && letter[0] >= 0x61 && letter[0] <= 0x7A, "U+\(String(scalar, radix: 16))")
        }
        for scalar in UInt32(0)..<ScalarFacts.limit {
            let expected = scalar < 0x80 ? derived[scalar] : derived[scalar] ?? UnicodeTables.confusableSupplement[scalar]
            let flat = Skeleton.lookAlikeLetter[Int(scalar)]
            #expect((flat == 0 ? nil : [UInt32(flat)]) == expected, "U+\(String(scalar, radix: 16))")
        }
    }

    @Test func asciiFoldsMatchICU() throws {
        let derived = try TableDerivation.deriveAsciiFolds()
        #expect(derived == UnicodeTables.asciiFolds)
        for (turkish, ascii) in [("ş", "s"), ("ğ", "g"), ("ı", "i"), ("ö", "o"), ("ü", "u"), ("ç", "c")] {
            #expect(derived[turkish.unicodeScalars.first!.value] == [ascii.unicodeScalars.first!.value])
        }
        // The ascii stage reads the entries below U+0800 from flat arrays: every non-ASCII code
        // point there must give ICU's answer.
        for scalar in UInt32(0x80)..<ScalarFacts.limit {
            var out = Units()
            let found = ASCIIFolding.FlatFolds.shared.append(scalar, 3, 5, to: &out)
            #expect(found == (derived[scalar] != nil), "U+\(String(scalar, radix: 16))")
            #expect(out.scalars == derived[scalar] ?? [], "U+\(String(scalar, radix: 16))")
            #expect(out.starts.allSatisfy { $0 == 3 } && out.ends.allSatisfy { $0 == 5 })
        }
    }

    /// The table is the transliterator's answer, without the transliterator on the hot path.
    @Test func asciiViewAgreesWithTransliterator() throws {
        let transliterator = try Transliterator(id: "Latin-ASCII")
        let sample = "çağrı şöför ılık ürün naïve façade straße œuvre"
        let expected = UTF16Conversion.decode(try transliterator.transliterate(Array(sample.utf16)))
        let view = NormalizedText(sample, options: NormalizationOptions(localeLanguage: .en)).view(.ascii)
        #expect(view.text == String(String.UnicodeScalarView(expected.compactMap(Unicode.Scalar.init))))
    }

    /// Folding's chunk boundaries agree with ICU's (below U+0300 they come from a table).
    @Test func chunkBoundariesAgreeWithICU() {
        for scalar in UInt32(0)..<0x3000 {
            #expect(Folding.hasBoundaryBefore(scalar) == ICU.hasBoundaryBefore(.nfkcCasefold, scalar))
        }
    }

    /// Every buffer ICU reports too small is retried at the size it reports: U+FDFA expands to 18
    /// UTF-16 units under NFKC, far past the first estimate (2 × 1 + 4).
    @Test func growingOutputIsNotTruncated() throws {
        let output = try ICU.normalize(.nfkc, Array("\u{FDFA}".utf16))
        #expect(output.count == 18)
        #expect(String(decoding: output, as: UTF16.self).hasPrefix("صلى الله"))
    }
}
