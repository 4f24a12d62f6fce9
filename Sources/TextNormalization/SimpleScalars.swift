/// What the general path makes of each non-ASCII scalar that the simple-text fast path
/// (`NormalizedText.init?(simpleText:options:)`) covers: a scalar that folding, the skeleton and
/// ASCII folding turn into at most three ASCII bytes whatever its neighbours are.
///
/// The fates are derived once from the general path's own stages (`derive()`, through
/// `safegate dev generate-tables`) and compiled in (`GeneratedTables.simpleFates`), so that no
/// prompt pays for deriving them; `SimpleFastPathTests` derives them again and fails on any
/// difference. Because the derivation runs the stages as compiled, regenerate twice after the
/// confusable or ASCII-fold tables change (the second run sees the new tables).
public enum SimpleScalars {
    /// One scalar's fate, packed in 32 bits.
    ///
    /// - bits 0–6, 7–13, 14–20: the ASCII bytes it becomes in the `ascii` view, in order (0: none;
    ///   a scalar that folding removes has none);
    /// - bit 21: its fold has a look-alike letter under default folding (the skeleton then maps
    ///   digits in its word); bit 22: under Turkic folding;
    /// - bits 23–24: what `LanguageGuess` counts for it as a Turkish letter (0, 1 or 3);
    /// - bit 25: it has no normalisation boundary before it (and is removed): it joins the
    ///   chunk before, whose units then end where it ends;
    /// - bit 31: covered (a table slot without it is not).
    public typealias Fate = UInt32

    static let lookAlike: Fate = 1 << 21
    static let lookAlikeWhenTurkic: Fate = 1 << 22
    static let weightShift: Fate = 23
    static let joinsChunkBefore: Fate = 1 << 25
    static let covered: Fate = 1 << 31

    /// The fate of the scalar `(block << 6) | low` below U+10000: `blockOf[scalar >> 6]` is the
    /// block's index in `fates` (0: a block of uncovered scalars), then 64 fates per block.
    static let table: (blockOf: [UInt16], fates: [Fate]) = {
        var blockOf = [UInt16](repeating: 0, count: 0x10000 >> 6)
        var fates = [Fate](repeating: 0, count: 64)
        for (scalar, fate) in parse(GeneratedTables.simpleFates) where scalar < 0x10000 {
            let block = Int(scalar >> 6)
            if blockOf[block] == 0 {
                blockOf[block] = UInt16(fates.count >> 6)
                fates += [Fate](repeating: 0, count: 64)
            }
            fates[Int(blockOf[block]) << 6 | Int(scalar & 63)] = fate
        }
        return (blockOf, fates)
    }()

    /// The fate of `scalar` (0 when it is not covered).
    static func fate(of scalar: UInt32) -> Fate {
        guard scalar >= 0x80, scalar < 0x10000 else { return 0 }
        let (blockOf, fates) = table
        return fates[Int(blockOf[Int(scalar >> 6)]) << 6 | Int(scalar & 63)]
    }

    /// Turkic folding makes `I` into `ı`, which has a look-alike (`i`), and the ascii view then
    /// holds `i`: what the path writes (`derivedCapitalI()` checks both).
    static let capitalIIsLookAlikeWhenTurkic = true
    static let capitalIBecomesSmallI = true

    /// For each ASCII byte, its byte in the `ascii` view (lowercased), or 0 for the controls that
    /// folding removes. (Every other ASCII character starts a normalisation chunk of its own:
    /// checked by `asciiIsChunked()`.)
    static let asciiBytes: [UInt8] = (UInt8(0)..<128).map { byte in
        if Folding.isInvisibleControl(UInt32(byte)) { return 0 }
        return byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    // MARK: Derivation (slow: the generator and the tests)

    /// Every covered scalar below U+10000 with its fate, as the general path's stages make it.
    public static func derive() -> [UInt32: Fate] {
        var fates: [UInt32: Fate] = [:]
        for scalar in UInt32(0xA0)..<0x10000 where !(0xD800..<0xE000).contains(scalar) {
            if let fate = derivedFate(of: scalar) { fates[scalar] = fate }
        }
        return fates
    }

    /// The fate of one scalar, or nil when the path must not cover it: the stages turn it into
    /// more than one folded scalar, a mark, something not ASCII, or more than three bytes; its
    /// fate differs between default and Turkic folding; it could join an emoji sequence, or
    /// combine with what comes before it; its word-ness changes between the folded and ascii
    /// views; or it is a Turkish letter that `LanguageGuess` folds to another letter.
    static func derivedFate(of scalar: UInt32) -> Fate? {
        if ICU.isExtendedPictographic(scalar) || ICU.isEmojiModifier(scalar) || ICU.isNonSpacingMark(scalar) { return nil }
        guard let plain = stageFate(of: scalar, turkic: false), let turkic = stageFate(of: scalar, turkic: true),
            plain.bytes == turkic.bytes
        else { return nil }
        let boundary = Folding.hasBoundaryBefore(scalar)
        // A scalar that stays must start a chunk of its own; one that goes may join the chunk
        // before (the tests check that it changes nothing there but the span).
        if !plain.bytes.isEmpty && !boundary { return nil }
        var units = Units()
        units.append(scalar, 0, UInt32(UTF8Encoding.length(of: scalar)))
        let weight = UInt32(LanguageGuess.score(units).turkishLetters)
        if weight != 0 {
            guard plain.bytes.count == 1, plain.bytes[0] == LanguageGuess.turkishLetterFold(scalar), weight < 4 else { return nil }
        }
        var fate = covered | weight << weightShift
        for (index, byte) in plain.bytes.enumerated() { fate |= Fate(byte) << Fate(7 * index) }
        if plain.lookAlike { fate |= lookAlike }
        if turkic.lookAlike { fate |= lookAlikeWhenTurkic }
        if !boundary { fate |= joinsChunkBefore }
        return fate
    }

    /// What folding, the skeleton and ASCII folding make of `scalar` alone: its ASCII bytes (none
    /// when folding removes it) and whether its fold has a look-alike; nil when the result is not
    /// one the path can write.
    static func stageFate(of scalar: UInt32, turkic: Bool) -> (bytes: [UInt8], lookAlike: Bool)? {
        let length = UInt32(UTF8Encoding.length(of: scalar))
        var raw = Units()
        raw.append(scalar, 0, length)
        guard let folded = try? Folding.fold(raw, turkic: turkic) else { return nil }
        if folded.count == 0 { return ([], false) }
        guard folded.count == 1 else { return nil }
        let letter = folded.scalars[0]
        guard letter >= 0x20, letter != 0x7F, !ICU.isNonSpacingMark(letter), !ICU.isExtendedPictographic(letter) else { return nil }
        let skeleton = Skeleton.map(folded) ?? folded
        let ascii = skeleton.isASCII ? skeleton : ASCIIFolding.map(skeleton)
        guard (1...3).contains(ascii.count), ascii.scalars.allSatisfy({ (0x20..<0x7F).contains($0) }),
            ascii.starts.allSatisfy({ $0 == 0 }), ascii.ends.allSatisfy({ $0 == length })
        else { return nil }
        let bytes = ascii.scalars.map { UInt8($0) }
        // Words are runs of word scalars in the folded view and of letters and digits in the ascii
        // view: the path finds them in the bytes it writes, so both must agree. A digit comes only
        // from an ASCII fold (the skeleton maps ASCII digits only).
        let word = Skeleton.isWordScalar(letter)
        let alphanumeric = bytes.map { $0 &- 0x61 < 26 || $0 &- 0x30 < 10 }
        guard alphanumeric.allSatisfy({ $0 == word }) else { return nil }
        if letter >= 0x80 && bytes.contains(where: { $0 &- 0x30 < 10 }) { return nil }
        let lookAlike = word && letter >= 0x80 && Skeleton.lookAlike(letter) != nil
        return (bytes, lookAlike)
    }

    /// What the stages make of `I` under Turkic folding: whether it has a look-alike, and whether
    /// the ascii view holds `i` for it.
    static func derivedCapitalI() -> (lookAlikeWhenTurkic: Bool, becomesSmallI: Bool) {
        let fate = stageFate(of: 0x49, turkic: true)
        return (fate?.lookAlike ?? false, fate?.bytes == [0x69])
    }

    /// Whether every ASCII character but the removed controls starts a chunk of its own.
    static func asciiIsChunked() -> Bool {
        (UInt32(0)..<128).allSatisfy { Folding.isInvisibleControl($0) || Folding.hasBoundaryBefore($0) }
    }

    /// The scalars and fates of the generated list (`scalar << 32 | fate` each: an array literal
    /// of integers, which the compiler lays out statically, so the first use parses nothing).
    static func parse(_ list: [UInt64]) -> [(UInt32, Fate)] {
        list.map { (UInt32(truncatingIfNeeded: $0 >> 32), Fate(truncatingIfNeeded: $0)) }
    }

    /// The elements of the generated array literal, sorted by scalar, eight to a line.
    static func serialize(_ fates: [UInt32: Fate]) -> String {
        let elements = fates.keys.sorted().map { scalar in
            "0x" + String(UInt64(scalar) << 32 | UInt64(fates[scalar]!), radix: 16)
        }
        return stride(from: 0, to: elements.count, by: 8).map { start in
            "        " + elements[start..<min(start + 8, elements.count)].joined(separator: ", ") + ","
        }.joined(separator: "\n")
    }
}
