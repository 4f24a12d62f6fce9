import SafetyCore

/// The fast path of `NormalizedText` for text written in ASCII and the Turkish letters
/// (ç ğ ı İ ö ş ü and their capitals), when only the `ascii` and `squashed` views are wanted: the
/// usual case for Turkish prompts, which the rule set's lean normalisation asks for
/// (`CompiledRuleSet.normalize(bytes:)`).
///
/// On such text every stage maps one scalar to one scalar, so the `ascii` view is one byte per
/// original character, built in one pass over the bytes: no units, no folding chunks, no
/// skeleton or ASCII-folding stage. Each letter's fate is taken from the general path's own tables
/// once (`TurkishLetters`), and a letter whose fold is anything else leaves the text to the general
/// path, as does anything this path does not cover (other non-ASCII text, controls that folding
/// removes, text that squashing changes, other views). `TurkishFastPathTests` compares the two
/// paths on generated text, for every set of views and locale.
extension NormalizedText {
    init?(turkishLatin bytes: [UInt8], options: NormalizationOptions) {
        let views = options.views
        guard !views.isEmpty, views.isSubset(of: [.ascii, .squashed]) else { return nil }
        let letters = TurkishLetters.shared
        let n = bytes.count
        var turkishLetters = 0
        // Look-alike flags of the letters seen (bit 0: under default folding, bit 1: Turkic).
        var lookAlikes: UInt8 = 0
        var sawDigit = false
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
                        letters.asciiBytes.withUnsafeBufferPointer { asciiBytes in
                            letters.table.withUnsafeBufferPointer { table in
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
                                        if byte &- 0x30 < 10 { sawDigit = true }
                                        if byte == 0x49 { sawCapitalI = true }
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
                                        lookAlikes |= UInt8(truncatingIfNeeded: entry >> 12) & 3
                                        sawNonASCII = true
                                        outStarts[k] = UInt32(truncatingIfNeeded: i)
                                        outEnds[k] = UInt32(truncatingIfNeeded: i + 2)
                                        i += 2
                                    }
                                    k += 1
                                }
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
        if turkic && sawCapitalI && !letters.capitalICovered { return nil }
        if sawDigit && (lookAlikes & flag != 0 || (turkic && sawCapitalI && letters.capitalIIsLookAlikeWhenTurkic)) {
            changed = Self.mapDigitsInLookAlikeWords(&ascii, original: bytes, starts: starts, turkic: turkic, letters: letters)
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
        _ ascii: inout [UInt8], original: [UInt8], starts: [UInt32], turkic: Bool, letters: TurkishLetters
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
                    let entry = letters.table[Int(byte - 0xC3) << 6 | Int(original[from + 1] & 0x3F)]
                    if entry & flag != 0 { hasLookAlike = true }
                } else if byte == 0x49 && turkic && letters.capitalIIsLookAlikeWhenTurkic {
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

/// What the general path makes of each Turkish letter, derived from its own tables once.
final class TurkishLetters: Sendable {
    static let shared = TurkishLetters()

    /// The twelve letters, capitals and small.
    static let letters: [UInt32] = [0xC7, 0xE7, 0x11E, 0x11F, 0x130, 0x131, 0xD6, 0xF6, 0x15E, 0x15F, 0xDC, 0xFC]

    /// For each two-byte sequence C3 80 … C5 BF (`(lead - 0xC3) << 6 | continuation & 0x3F`): the
    /// ASCII byte of the `ascii` view (bits 0–7), what `LanguageGuess` counts for the letter
    /// (bits 8–11), whether its fold has a look-alike (bit 12: default folding, bit 13: Turkic),
    /// and `covered` when the path may take it.
    let table: [UInt32]
    static let covered: UInt32 = 1 << 31
    /// For each ASCII byte, its byte in the `ascii` view (lowercased), or 0 when the path does not
    /// take it (controls that folding removes, or a byte that folding joins to the one before).
    let asciiBytes: [UInt8]
    /// Turkic folding makes `I` into `ı`, which has a look-alike (`i`) and is then `i` again.
    let capitalIIsLookAlikeWhenTurkic: Bool
    /// Whether `I` under Turkic folding ends as `i` in the ascii view, as this path writes it
    /// (else Turkish text with a capital I goes the general way).
    let capitalICovered: Bool

    private init() {
        var table = [UInt32](repeating: 0, count: 3 * 64)
        for letter in Self.letters {
            var entry: UInt32 = 0
            var ok = Folding.hasBoundaryBefore(letter)
            let base = LanguageGuess.turkishLetterFold(letter)
            for (bit, turkic) in [(UInt32(1) << 12, false), (UInt32(2) << 12, true)] {
                guard let fate = Self.fate(of: letter, turkic: turkic) else {
                    ok = false
                    continue
                }
                // The word the language guess sees must be the word of the view.
                if fate.ascii != base { ok = false }
                if fate.lookAlike { entry |= bit }
            }
            // What the language guess counts for the letter, asked of the guess itself.
            var units = Units()
            units.append(letter, 0, 2)
            let weight = UInt32(min(LanguageGuess.score(units).turkishLetters, 15))
            entry |= UInt32(base) | weight << 8 | (ok ? Self.covered : 0)
            let lead = 0xC0 | letter >> 6
            table[Int(lead - 0xC3) << 6 | Int(letter & 0x3F)] = entry
        }
        self.table = table
        asciiBytes = (UInt8(0)..<128).map { byte in
            let scalar = UInt32(byte)
            guard !Folding.isInvisibleControl(scalar), Folding.hasBoundaryBefore(scalar) else { return 0 }
            return byte &- 0x41 < 26 ? byte | 0x20 : byte
        }
        let capitalI = Self.fate(of: 0x49, turkic: true)
        capitalIIsLookAlikeWhenTurkic = capitalI?.lookAlike ?? true
        capitalICovered = capitalI?.ascii == 0x69
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
