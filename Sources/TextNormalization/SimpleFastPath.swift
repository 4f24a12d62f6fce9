import SafetyCore

/// The fast path of `NormalizedText` for simple text, when only the `ascii` and `squashed` views
/// are wanted (what the rule set's lean normalisation asks for, `CompiledRuleSet.normalize(bytes:)`):
/// ASCII without the controls folding removes, and non-ASCII scalars whose fate does not depend on
/// their neighbours (`SimpleScalars`): the Turkish letters, Latin letters with diacritics,
/// look-alike letters of other scripts (Cyrillic `е`, Greek `ι`), full-width and circled forms,
/// typographic punctuation, no-break spaces and the zero-width characters that folding removes.
///
/// On such text each scalar becomes at most three ASCII bytes of the `ascii` view (or none), so
/// the view is written in one pass over the bytes: no units, no ICU folding chunks, no skeleton or
/// ASCII-folding stage (squashing, when it changes something, runs on the view's units). Anything
/// else goes the general way: combining marks, emoji, scalars that stay non-ASCII, invalid UTF-8,
/// controls, other views.
/// `SimpleFastPathTests` compares the two paths on generated text for every set of views and
/// locale, and re-derives the fates.
extension NormalizedText {
    init?(simpleText bytes: [UInt8], options: NormalizationOptions) {
        let views = options.views
        guard !views.isEmpty, views.isSubset(of: [.ascii, .squashed]) else { return nil }
        let n = bytes.count
        // A scalar of two bytes may become three (the most any does), one of three at most three.
        let capacity = n + n / 2 + 1
        var starts: [UInt32] = []
        var ends: [UInt32] = []
        var pass = SimplePass()
        // The raw text's words as `LanguageGuess` reads them, one byte per scalar (see `SimplePass`),
        // scored here only when they differ from the view's.
        var rawScoreOfWords: LanguageGuess.Score?
        var ascii: [UInt8] = []
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(n, 1)) { words in
            ascii = [UInt8](unsafeUninitializedCapacity: capacity) { out, written in
                starts = [UInt32](unsafeUninitializedCapacity: capacity) { outStarts, writtenStarts in
                    ends = [UInt32](unsafeUninitializedCapacity: capacity) { outEnds, writtenEnds in
                        bytes.withUnsafeBufferPointer { bytes in
                            SimpleScalars.asciiBytes.withUnsafeBufferPointer { asciiBytes in
                                SimpleScalars.table.blockOf.withUnsafeBufferPointer { blockOf in
                                    SimpleScalars.table.fates.withUnsafeBufferPointer { fates in
                                        pass = SimplePass.run(
                                            bytes, out: out, starts: outStarts, ends: outEnds, words: words, asciiBytes: asciiBytes,
                                            blockOf: blockOf, fates: fates)
                                        writtenEnds = pass.written
                                        writtenStarts = pass.written
                                        written = pass.written
                                    }
                                }
                            }
                        }
                    }
                }
            }
            if pass.covered && pass.sawOther {
                rawScoreOfWords = LanguageGuess.score(ascii: UnsafeBufferPointer(rebasing: words[0..<pass.scalars]))
            }
        }
        guard pass.covered else { return nil }

        // The raw text's score. Its words are the view's when every non-ASCII scalar is a Turkish
        // letter (which counts as its ASCII base in a word, as `LanguageGuess` folds it); other
        // scalars end a word there, and the pass wrote the raw words out for them.
        var rawScore = rawScoreOfWords ?? ascii.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) }
        rawScore.turkishLetters = pass.turkishLetters
        let turkic = options.localeLanguage == .tr || rawScore.language == .tr
        // The skeleton stage maps digits that imitate letters (1 → l) in words holding a look-alike
        // letter (ı, and I under Turkic folding, which makes it ı).
        let flag: UInt32 = turkic ? 2 : 1
        var changed = false
        if turkic && pass.sawCapitalI && !SimpleScalars.capitalIBecomesSmallI { return nil }
        if pass.digitWordLookAlikes & flag != 0 {
            changed = Self.mapDigitsInLookAlikeWords(&ascii, original: bytes, starts: starts, turkic: turkic)
        }
        var language = rawScore.language
        let view = NormalizedView(name: .ascii, utf8: ascii, map: OffsetMap(starts: starts, ends: ends, originalCount: n))
        var built = ViewSlots()
        if views.contains(.ascii) { built[ViewName.ascii.index] = view }
        if views.contains(.squashed) {
            let squashedScore: LanguageGuess.Score
            if ascii.withUnsafeBufferPointer({ Squashing.needsWork(ascii: $0) }) {
                // Leet, spaced-out or stretched letters: the squashing stage itself, on the view's bytes.
                let units = ASCIIUnits(scalars: ascii, starts: starts, ends: ends)
                let squashed = Squashing.map(units, original: bytes, needsWork: true) ?? units
                squashedScore = squashed.scalars.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) }
                built[ViewName.squashed.index] = squashed.view(.squashed, originalCount: n)
            } else {
                squashedScore = changed || pass.sawOther ? ascii.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) } : rawScore
                built[ViewName.squashed.index] = view.renamed(.squashed)
            }
            language = rawScore.combined(wordsFrom: squashedScore).language
        }
        self.init(
            original: bytes, hadInvalidUTF8: false, isASCII: !pass.sawNonASCII, language: language, turkicFolding: turkic, views: built)
    }

    /// The scalar of two or three bytes starting at `i` (valid UTF-8 only).
    @inline(__always)
    private static func scalar(in bytes: [UInt8], at i: Int) -> UInt32 {
        let byte = bytes[i]
        if byte < 0xE0 { return UInt32(byte & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F) }
        return UInt32(byte & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F)
    }

    /// Maps the digits of every word (a run of letters and digits) that holds a look-alike letter
    /// to the letter they imitate, as the skeleton stage does; true when a byte changed.
    private static func mapDigitsInLookAlikeWords(
        _ ascii: inout [UInt8], original: [UInt8], starts: [UInt32], turkic: Bool
    ) -> Bool {
        let flag = turkic ? SimpleScalars.lookAlikeWhenTurkic : SimpleScalars.lookAlike
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
                    if SimpleScalars.fate(of: scalar(in: original, at: from)) & flag != 0 { hasLookAlike = true }
                } else if byte == 0x49 && turkic && SimpleScalars.capitalIIsLookAlikeWhenTurkic {
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

/// The one pass of the simple-text fast path over a prompt's bytes, and what it found. A function
/// of its own, with its state in locals: written inline in the closures that fill the arrays, the
/// state was captured, and loaded and stored for every byte.
struct SimplePass {
    /// Bytes written to the view (and to its starts and ends).
    var written = 0
    /// Bytes written to the raw words (only when `sawOther`).
    var scalars = 0
    /// False when some scalar is not covered (the pass stopped there).
    var covered = true
    var turkishLetters = 0
    /// Look-alike bits (bit 0: under default folding, bit 1: Turkic) of every word holding both a
    /// digit and a look-alike letter: the skeleton maps digits there (which folding applies is
    /// known only after this pass, so both are tracked).
    var digitWordLookAlikes: UInt32 = 0
    var sawCapitalI = false
    var sawNonASCII = false
    /// A non-ASCII scalar other than a Turkish letter: the raw text's words are not the view's.
    var sawOther = false

    static func run(
        _ bytes: UnsafeBufferPointer<UInt8>, out: UnsafeMutableBufferPointer<UInt8>, starts outStarts: UnsafeMutableBufferPointer<UInt32>,
        ends outEnds: UnsafeMutableBufferPointer<UInt32>, words: UnsafeMutableBufferPointer<UInt8>, asciiBytes: UnsafeBufferPointer<UInt8>,
        blockOf: UnsafeBufferPointer<UInt16>,
        fates: UnsafeBufferPointer<SimpleScalars.Fate>
    ) -> SimplePass {
        let n = bytes.count
        let capitalILookAlike: UInt32 = SimpleScalars.capitalIIsLookAlikeWhenTurkic ? 2 : 0
        var turkishLetters = 0
        // The word being read: its look-alike bits, and whether it holds a digit.
        var wordLookAlikes: UInt32 = 0
        var wordHasDigit = false
        var digitWordLookAlikes: UInt32 = 0
        var sawCapitalI = false
        var sawNonASCII = false
        var sawOther = false
        var covered = true
        var i = 0
        var k = 0
        // The raw words hold one byte per scalar read, but only from the first scalar that is not
        // ASCII or a Turkish letter on: until then they are the view's bytes (ASCII lowercased,
        // which `LanguageGuess` reads the same), copied over at that scalar.
        var w = 0
        var wordsDiffer = false
        // Where the units of the current normalisation chunk start.
        var chunk = 0
        /// Notes one output byte for the word tracking.
        @inline(__always)
        func track(_ mapped: UInt8) {
            if mapped &- 0x61 >= 26 {
                // Not a letter: a digit joins the word, anything else ends it.
                if mapped &- 0x30 < 10 {
                    wordHasDigit = true
                } else {
                    if wordHasDigit { digitWordLookAlikes |= wordLookAlikes }
                    wordHasDigit = false
                    wordLookAlikes = 0
                }
            }
        }
        while i < n {
            let byte = bytes[i]
            if byte < 0x80 {
                let mapped = asciiBytes[Int(byte)]
                guard mapped != 0 else {
                    covered = false
                    break
                }
                track(mapped)
                if byte == 0x49 {
                    sawCapitalI = true
                    wordLookAlikes |= capitalILookAlike
                }
                out[k] = mapped
                outStarts[k] = UInt32(truncatingIfNeeded: i)
                outEnds[k] = UInt32(truncatingIfNeeded: i + 1)
                if wordsDiffer {
                    words[w] = byte
                    w += 1
                }
                chunk = k
                i += 1
                k += 1
                continue
            }
            // Two or three bytes (a covered scalar is below U+10000).
            let scalar: Int
            let length: Int
            if byte &- 0xC2 < 0x1E {
                guard i + 1 < n, bytes[i + 1] & 0xC0 == 0x80 else {
                    covered = false
                    break
                }
                scalar = Int(byte & 0x1F) << 6 | Int(bytes[i + 1] & 0x3F)
                length = 2
            } else if byte &- 0xE0 < 0x10 {
                guard i + 2 < n, bytes[i + 1] & 0xC0 == 0x80, bytes[i + 2] & 0xC0 == 0x80 else {
                    covered = false
                    break
                }
                scalar = Int(byte & 0x0F) << 12 | Int(bytes[i + 1] & 0x3F) << 6 | Int(bytes[i + 2] & 0x3F)
                // Overlong forms are invalid UTF-8 (surrogates are not in the table).
                guard scalar >= 0x800 else {
                    covered = false
                    break
                }
                length = 3
            } else {
                covered = false
                break
            }
            let fate = fates[Int(blockOf[scalar >> 6]) << 6 | scalar & 63]
            guard fate & SimpleScalars.covered != 0 else {
                covered = false
                break
            }
            sawNonASCII = true
            let weight = Int((fate >> SimpleScalars.weightShift) & 3)
            turkishLetters += weight
            if weight == 0 && !wordsDiffer {
                sawOther = true
                wordsDiffer = true
                for unit in 0..<k { words[unit] = out[unit] }
                w = k
            }
            if wordsDiffer {
                // A Turkish letter counts as its ASCII base in a word; any other scalar ends one.
                words[w] = weight != 0 ? UInt8(truncatingIfNeeded: fate & 0x7F) : 0x20
                w += 1
            }
            let end = UInt32(truncatingIfNeeded: i + length)
            if fate & SimpleScalars.joinsChunkBefore != 0 {
                // Removed, in the chunk before: its units now end here.
                for unit in chunk..<k { outEnds[unit] = end }
                i += length
                continue
            }
            chunk = k
            let start = UInt32(truncatingIfNeeded: i)
            var mapped = UInt8(truncatingIfNeeded: fate & 0x7F)
            var rest = fate >> 7
            if mapped != 0 {
                wordLookAlikes |= (fate >> 21) & 3
                while true {
                    track(mapped)
                    out[k] = mapped
                    outStarts[k] = start
                    outEnds[k] = end
                    k += 1
                    mapped = UInt8(truncatingIfNeeded: rest & 0x7F)
                    guard mapped != 0 else { break }
                    rest >>= 7
                }
            }
            i += length
        }
        if wordHasDigit { digitWordLookAlikes |= wordLookAlikes }
        return SimplePass(
            written: k, scalars: w, covered: covered, turkishLetters: turkishLetters, digitWordLookAlikes: digitWordLookAlikes,
            sawCapitalI: sawCapitalI, sawNonASCII: sawNonASCII, sawOther: sawOther)
    }
}
