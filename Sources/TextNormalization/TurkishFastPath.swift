import SafetyCore

/// The fast path of `NormalizedText` for text written in ASCII and the Turkish letters
/// (ç ğ ı İ ö ş ü and their capitals), when only the `ascii` and `squashed` views are wanted: the
/// usual case for Turkish prompts, which the rule set's lean normalisation asks for
/// (`CompiledRuleSet.normalize(bytes:)`).
///
/// On such text every stage maps one scalar to one scalar, so the `ascii` view is one byte per
/// original character, built in one pass over the bytes: no units, no folding chunks, no
/// skeleton or ASCII-folding stage. Each letter's fate is written out (`TurkishLetters`, checked
/// against the general path's own tables by a test). Anything this path does not cover goes the
/// general way: other non-ASCII text, controls that folding removes, text that squashing changes,
/// other views. `TurkishFastPathTests` compares the two paths on generated text, for every set of
/// views and locale.
extension NormalizedText {
    init?(turkishLatin bytes: [UInt8], options: NormalizationOptions) {
        let views = options.views
        guard !views.isEmpty, views.isSubset(of: [.ascii, .squashed]) else { return nil }
        let n = bytes.count
        var turkishLetters = 0
        // The skeleton stage maps digits in words that hold a look-alike letter; which folding
        // applies is known only after this pass, so both are tracked. Look-alike bits (bit 0: under
        // default folding, bit 1: Turkic) of the word being read, whether it holds a digit, and the
        // bits of every word so far that held both.
        var wordLookAlikes: UInt8 = 0
        var wordHasDigit = false
        var digitWordLookAlikes: UInt8 = 0
        let capitalILookAlike: UInt8 = TurkishLetters.capitalIIsLookAlikeWhenTurkic ? 2 : 0
        var sawCapitalI = false
        var sawNonASCII = false
        var covered = true
        var starts: [UInt32] = []
        var ends: [UInt32] = []
        // One view byte per original character: ASCII lowercased, a Turkish letter as its ASCII base.
        var ascii = [UInt8](unsafeUninitializedCapacity: n) { out, written in
            starts = [UInt32](unsafeUninitializedCapacity: n) { outStarts, writtenStarts in
                ends = [UInt32](unsafeUninitializedCapacity: n) { outEnds, writtenEnds in
                    bytes.withUnsafeBufferPointer { bytes in
                        TurkishLetters.asciiBytes.withUnsafeBufferPointer { asciiBytes in
                            TurkishLetters.table.withUnsafeBufferPointer { table in
                                var i = 0
                                var k = 0
                                while i < n {
                                    let byte = bytes[i]
                                    if byte < 0x80 {
                                        let mapped = asciiBytes[Int(byte)]
                                        guard mapped != 0 else {
                                            covered = false
                                            break
                                        }
                                        if mapped &- 0x61 >= 26 {
                                            // Not a letter: a digit joins the word, anything else ends it.
                                            if mapped &- 0x30 < 10 {
                                                wordHasDigit = true
                                            } else {
                                                if wordHasDigit { digitWordLookAlikes |= wordLookAlikes }
                                                wordHasDigit = false
                                                wordLookAlikes = 0
                                            }
                                        } else if byte == 0x49 {
                                            sawCapitalI = true
                                            wordLookAlikes |= capitalILookAlike
                                        }
                                        out[k] = mapped
                                        outStarts[k] = UInt32(truncatingIfNeeded: i)
                                        outEnds[k] = UInt32(truncatingIfNeeded: i + 1)
                                        i += 1
                                    } else {
                                        // Every Turkish letter is two bytes, C3–C5 then a continuation byte.
                                        guard byte &- 0xC3 < 3, i + 1 < n, bytes[i + 1] & 0xC0 == 0x80 else {
                                            covered = false
                                            break
                                        }
                                        let entry = table[Int(byte - 0xC3) << 6 | Int(bytes[i + 1] & 0x3F)]
                                        guard entry & TurkishLetters.covered != 0 else {
                                            covered = false
                                            break
                                        }
                                        out[k] = UInt8(truncatingIfNeeded: entry)
                                        turkishLetters += Int((entry >> 8) & 0xF)
                                        wordLookAlikes |= UInt8(truncatingIfNeeded: entry >> 12) & 3
                                        sawNonASCII = true
                                        outStarts[k] = UInt32(truncatingIfNeeded: i)
                                        outEnds[k] = UInt32(truncatingIfNeeded: i + 2)
                                        i += 2
                                    }
                                    k += 1
                                }
                                if wordHasDigit { digitWordLookAlikes |= wordLookAlikes }
                                writtenEnds = k
                                writtenStarts = k
                                written = k
                            }
                        }
                    }
                }
            }
        }
        guard covered else { return nil }

        // The raw text's score: its words are these bytes' words (a Turkish letter counts as its
        // ASCII base in a word, as `LanguageGuess` folds it), its letters were counted above.
        var rawScore = ascii.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) }
        rawScore.turkishLetters = turkishLetters
        let turkic = options.localeLanguage == .tr || rawScore.language == .tr
        // The skeleton stage maps digits that imitate letters (1 → l) in words holding a look-alike
        // letter (ı, and I under Turkic folding, which makes it ı).
        let flag: UInt8 = turkic ? 2 : 1
        var changed = false
        if turkic && sawCapitalI && !TurkishLetters.capitalICovered { return nil }
        if digitWordLookAlikes & flag != 0 {
            changed = Self.mapDigitsInLookAlikeWords(&ascii, original: bytes, starts: starts, turkic: turkic)
        }
        var language = rawScore.language
        if views.contains(.squashed) {
            // Text that squashing changes goes the general way (leet, spaced-out or stretched letters).
            guard !ascii.withUnsafeBufferPointer({ Squashing.needsWork(ascii: $0) }) else { return nil }
            let squashedScore = changed ? ascii.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) } : rawScore
            language = rawScore.combined(wordsFrom: squashedScore).language
        }

        let view = NormalizedView(name: .ascii, utf8: ascii, map: OffsetMap(starts: starts, ends: ends, originalCount: n))
        var built: [NormalizedView?] = Array(repeating: nil, count: ViewName.allCases.count)
        if views.contains(.ascii) { built[ViewName.ascii.index] = view }
        if views.contains(.squashed) { built[ViewName.squashed.index] = view.renamed(.squashed) }
        self.init(
            original: bytes, hadInvalidUTF8: false, isASCII: !sawNonASCII, language: language, turkicFolding: turkic, views: built)
    }

    /// Maps the digits of every word (a run of letters and digits) that holds a look-alike letter
    /// to the letter they imitate, as the skeleton stage does; true when a byte changed.
    private static func mapDigitsInLookAlikeWords(
        _ ascii: inout [UInt8], original: [UInt8], starts: [UInt32], turkic: Bool
    ) -> Bool {
        let flag: UInt32 = turkic ? 2 << 12 : 1 << 12
        var changed = false
        let n = ascii.count
        var i = 0
        while i < n {
            guard Self.isWordByte(ascii[i]) else {
                i += 1
                continue
            }
            var end = i
            var hasLookAlike = false
            while end < n && Self.isWordByte(ascii[end]) {
                let from = Int(starts[end])
                let byte = original[from]
                if byte >= 0x80 {
                    let entry = TurkishLetters.table[Int(byte - 0xC3) << 6 | Int(original[from + 1] & 0x3F)]
                    if entry & flag != 0 { hasLookAlike = true }
                } else if byte == 0x49 && turkic && TurkishLetters.capitalIIsLookAlikeWhenTurkic {
                    hasLookAlike = true
                }
                end += 1
            }
            if hasLookAlike {
                for k in i..<end where ascii[k] &- 0x30 < 10 {
                    let letter = Skeleton.lookAlikeLetter[Int(ascii[k])]
                    if letter != 0 {
                        ascii[k] = letter
                        changed = true
                    }
                }
            }
            i = end
        }
        return changed
    }

    /// An ASCII letter or digit: what the skeleton stage takes for part of a word here.
    @inline(__always)
    private static func isWordByte(_ byte: UInt8) -> Bool { byte &- 0x61 < 26 || byte &- 0x30 < 10 }
}

/// What the general path makes of each Turkish letter, written out so that the first Turkish
/// prompt builds no table (deriving it touches the Latin fold, look-alike and ASCII-fold tables and
/// ICU: about 15 million instructions, several milliseconds of start-up). `TurkishFastPathTests`
/// derives it again from those tables (`derived()`) and fails on any difference.
enum TurkishLetters {
    /// One letter: its ASCII letter in the `ascii` view (under either folding), what
    /// `LanguageGuess` counts for it, and whether its fold has a look-alike under default and under
    /// Turkic folding (the skeleton then maps digits in its word).
    struct Fate: Equatable, Sendable {
        var scalar: UInt32
        var ascii: UInt8
        var weight: UInt8
        var lookAlike: Bool
        var lookAlikeWhenTurkic: Bool
    }

    static let fates: [Fate] = [
        Fate(scalar: 0xC7, ascii: 0x63, weight: 1, lookAlike: false, lookAlikeWhenTurkic: false),  // Ç
        Fate(scalar: 0xE7, ascii: 0x63, weight: 1, lookAlike: false, lookAlikeWhenTurkic: false),  // ç
        Fate(scalar: 0x11E, ascii: 0x67, weight: 3, lookAlike: false, lookAlikeWhenTurkic: false),  // Ğ
        Fate(scalar: 0x11F, ascii: 0x67, weight: 3, lookAlike: false, lookAlikeWhenTurkic: false),  // ğ
        Fate(scalar: 0x130, ascii: 0x69, weight: 3, lookAlike: false, lookAlikeWhenTurkic: false),  // İ
        Fate(scalar: 0x131, ascii: 0x69, weight: 3, lookAlike: true, lookAlikeWhenTurkic: true),  // ı
        Fate(scalar: 0xD6, ascii: 0x6F, weight: 1, lookAlike: false, lookAlikeWhenTurkic: false),  // Ö
        Fate(scalar: 0xF6, ascii: 0x6F, weight: 1, lookAlike: false, lookAlikeWhenTurkic: false),  // ö
        Fate(scalar: 0x15E, ascii: 0x73, weight: 3, lookAlike: false, lookAlikeWhenTurkic: false),  // Ş
        Fate(scalar: 0x15F, ascii: 0x73, weight: 3, lookAlike: false, lookAlikeWhenTurkic: false),  // ş
        Fate(scalar: 0xDC, ascii: 0x75, weight: 1, lookAlike: false, lookAlikeWhenTurkic: false),  // Ü
        Fate(scalar: 0xFC, ascii: 0x75, weight: 1, lookAlike: false, lookAlikeWhenTurkic: false),  // ü
    ]

    /// Turkic folding makes `I` into `ı`, which has a look-alike (`i`), and the ascii view then
    /// holds `i`: what this path writes (checked by `derived()` too).
    static let capitalIIsLookAlikeWhenTurkic = true
    static let capitalICovered = true

    /// For each two-byte sequence C3 80 … C5 BF (`(lead - 0xC3) << 6 | continuation & 0x3F`): the
    /// ASCII byte of the `ascii` view (bits 0–7), the letter's weight (bits 8–11), whether its fold
    /// has a look-alike (bit 12: default folding, bit 13: Turkic), and `covered` for a letter.
    static let table: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 3 * 64)
        for fate in fates {
            let lead = 0xC0 | fate.scalar >> 6
            table[Int(lead - 0xC3) << 6 | Int(fate.scalar & 0x3F)] =
                UInt32(fate.ascii) | UInt32(fate.weight) << 8 | (fate.lookAlike ? 1 << 12 : 0) | (fate.lookAlikeWhenTurkic ? 2 << 12 : 0)
                | covered
        }
        return table
    }()
    static let covered: UInt32 = 1 << 31

    /// For each ASCII byte, its byte in the `ascii` view (lowercased), or 0 for the controls that
    /// folding removes. (Every other ASCII character starts a normalisation chunk of its own:
    /// checked by `derived()`.)
    static let asciiBytes: [UInt8] = (UInt8(0)..<128).map { byte in
        if Folding.isInvisibleControl(UInt32(byte)) { return 0 }
        return byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    /// The table as the general path's own stages make it: each letter folded on its own
    /// (`LatinFoldTable`), its look-alike (`Skeleton`), its ASCII fold (`ASCIIFolding`), its
    /// language weight (`LanguageGuess`); nil for a letter those stages do not turn into one
    /// ASCII letter, the one `LanguageGuess` folds it to (the path must then not cover it).
    static func derived() -> (fates: [Fate?], capitalIIsLookAlikeWhenTurkic: Bool, capitalICovered: Bool, asciiChunked: Bool) {
        let fates: [Fate?] = fates.map { known in
            let letter = known.scalar
            guard Folding.hasBoundaryBefore(letter), let plain = fate(of: letter, turkic: false),
                let turkic = fate(of: letter, turkic: true), plain.ascii == turkic.ascii,
                plain.ascii == LanguageGuess.turkishLetterFold(letter)
            else { return nil }
            var units = Units()
            units.append(letter, 0, 2)
            let weight = UInt8(LanguageGuess.score(units).turkishLetters)
            return Fate(scalar: letter, ascii: plain.ascii, weight: weight, lookAlike: plain.lookAlike, lookAlikeWhenTurkic: turkic.lookAlike)
        }
        let capitalI = fate(of: 0x49, turkic: true)
        let asciiChunked = (UInt32(0)..<128).allSatisfy { Folding.isInvisibleControl($0) || Folding.hasBoundaryBefore($0) }
        return (fates, capitalI?.lookAlike ?? false, capitalI?.ascii == 0x69, asciiChunked)
    }

    /// What folding, the skeleton and ASCII folding make of `scalar` on its own: one ASCII byte,
    /// and whether the folded letter has a look-alike; nil when it is anything else.
    private static func fate(of scalar: UInt32, turkic: Bool) -> (ascii: UInt8, lookAlike: Bool)? {
        var folded = Units()
        if scalar < 0x80 {
            Folding.appendASCII(scalar, turkic: turkic, 0, 1, to: &folded)
        } else {
            guard LatinFoldTable.shared.append(scalar, turkic: turkic, 0, 2, to: &folded) else { return nil }
        }
        guard folded.count == 1 else { return nil }
        let letter = folded.scalars[0]
        guard Skeleton.isWordScalar(letter), !ICU.isNonSpacingMark(letter) else { return nil }
        let lookAlike = Skeleton.lookAlike(letter)
        let skeleton = lookAlike ?? letter
        if skeleton < 0x80 { return (UInt8(skeleton), lookAlike != nil) }
        var ascii = Units()
        guard ASCIIFolding.FlatFolds.shared.append(skeleton, 0, 2, to: &ascii), ascii.count == 1, ascii.scalars[0] < 0x80 else { return nil }
        return (UInt8(ascii.scalars[0]), lookAlike != nil)
    }
}
