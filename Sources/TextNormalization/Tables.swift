/// Code-point tables derived from ICU once (`safegate dev generate-tables`) and compiled in, so that
/// no prompt ever pays for ICU's confusable skeleton or transliterator. A test re-derives them from
/// the ICU on the machine and fails on any difference.
public enum UnicodeTables {
    /// Look-alike letters of other scripts, and digits, → the Latin letter they imitate (UTS #39
    /// skeletons). Digits are only mapped inside words that also hold a look-alike letter.
    public static let confusables: [UInt32: [UInt32]] = parse(GeneratedTables.confusables)
    /// Non-ASCII characters of the folded domain → ASCII (ICU's Latin-ASCII transliteration).
    public static let asciiFolds: [UInt32: [UInt32]] = parse(GeneratedTables.asciiFolds)

    /// Letters whose lowercase form imitates a Latin letter, but whose UTS #39 prototype is a
    /// small capital or another non-ASCII letter, so the derivation cannot find them. Curated by
    /// hand; applied after the derived table.
    public static let confusableSupplement: [UInt32: [UInt32]] = [
        0x043A: [0x6B],  // к → k
        0x043C: [0x6D],  // м → m
        0x0442: [0x74],  // т → t
        0x043D: [0x68],  // н → h
        0x0432: [0x62],  // в → b
        0x0433: [0x72],  // г → r
        0x0438: [0x75],  // и → u
        0x043F: [0x6E],  // п → n
        0x03BA: [0x6B],  // κ → k
        0x03B9: [0x69],  // ι → i
        0x03BD: [0x76],  // ν → v
        0x03C4: [0x74],  // τ → t
    ]

    /// Parses `key=v,v;key=v;…` with hexadecimal code points.
    static func parse(_ data: String) -> [UInt32: [UInt32]] {
        var table: [UInt32: [UInt32]] = [:]
        for entry in data.split(separator: ";") {
            let parts = entry.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, let key = UInt32(parts[0], radix: 16) else { continue }
            table[key] = parts[1].split(separator: ",").compactMap { UInt32($0, radix: 16) }
        }
        return table
    }

    /// The inverse of `parse`, sorted by key: the format of the generated file.
    static func serialize(_ table: [UInt32: [UInt32]]) -> String {
        table.keys.sorted().map { key in
            String(key, radix: 16) + "=" + table[key]!.map { String($0, radix: 16) }.joined(separator: ",")
        }.joined(separator: ";")
    }
}

/// Derives `UnicodeTables` from ICU. Slow (seconds): for the generator and the parity test only.
public enum TableDerivation {
    /// The ICU version the tables are derived from.
    public static var icuVersion: String { ICU.version }

    /// Non-ASCII letters, stable under folding, and ASCII digits, whose UTS #39 skeleton equals the
    /// skeleton of a lowercase ASCII letter (Cyrillic і → i, digit 1 → l).
    public static func deriveConfusables() throws(ICUError) -> [UInt32: [UInt32]] {
        let checker = try SpoofChecker()
        var byLetterSkeleton: [[UInt16]: UInt32] = [:]
        for letter in UInt32(0x61)...0x7A {
            byLetterSkeleton[try checker.skeleton([UInt16(letter)])] = letter
        }
        var table: [UInt32: [UInt32]] = [:]
        for range in try ICU.ranges(ofSet: "[[[:L:]-[:ASCII:]][0-9]]") {
            for scalar in range where try isFoldStable(scalar) {
                let skeleton = try checker.skeleton(UTF16Conversion.encode([scalar]))
                if let letter = byLetterSkeleton[skeleton] { table[scalar] = [letter] }
            }
        }
        return table
    }

    /// Non-ASCII characters, stable under folding, that ICU's Latin-ASCII transliterator turns
    /// into printable ASCII (lowercased, since the view it feeds is case folded).
    public static func deriveAsciiFolds() throws(ICUError) -> [UInt32: [UInt32]] {
        let transliterator = try Transliterator(id: "Latin-ASCII")
        var table: [UInt32: [UInt32]] = [:]
        // The transliterator's own source set leaves out what its NFD pre-pass reaches, so the
        // candidates are every Latin, Common and Inherited character, plus that set.
        let candidates = try ICU.ranges(ofSet: "[[:Latin:][:Common:][:Inherited:]-[:ASCII:]]")
            + (try transliterator.sourceRanges())
        for range in candidates {
            for scalar in range where scalar >= 0x80 && !(0xD800..<0xE000).contains(scalar) {
                guard try isFoldStable(scalar) else { continue }
                let output = UTF16Conversion.decode(try transliterator.transliterate(UTF16Conversion.encode([scalar])))
                guard !output.isEmpty, output != [scalar], output.allSatisfy({ (0x20..<0x7F).contains($0) }) else {
                    continue
                }
                table[scalar] = output.map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }
            }
        }
        return table
    }

    /// The Swift source of `Generated/UnicodeTables+Data.swift`.
    public static func generatedSource() throws(ICUError) -> String {
        let confusables = UnicodeTables.serialize(try deriveConfusables())
        let asciiFolds = UnicodeTables.serialize(try deriveAsciiFolds())
        let simpleFates = SimpleScalars.serialize(SimpleScalars.derive())
        return """
            // Generated by `safegate dev generate-tables` from ICU \(icuVersion). Do not edit:
            // TableParityTests (confusables, asciiFolds) and SimpleFastPathTests (simpleFates, from
            // the stages as compiled: run twice after the others change) re-derive these and fail
            // on any difference.
            enum GeneratedTables {
                static let confusables = "\(confusables)"
                static let asciiFolds = "\(asciiFolds)"
                static let simpleFates: [UInt64] = [
            \(simpleFates)
                ]
            }

            """
    }

    /// Whether the default fold leaves `scalar` as it is (only such scalars occur in `folded`).
    static func isFoldStable(_ scalar: UInt32) throws(ICUError) -> Bool {
        if try Folding.foldChunk([scalar], turkic: false) == [scalar] { return true }
        return try Folding.foldChunk([scalar], turkic: true) == [scalar]
    }
}
