/// The `folded` stage: NFKC, default-ignorables and non-whitespace controls removed, case folded,
/// never `i` + U+0307.
enum Folding {
    static let zeroWidthJoiner: UInt32 = 0x200D

    /// C0 and C1 control characters other than whitespace (tab, LF, VT, FF, CR, NEL): invisible
    /// on screen like the default-ignorables, so they are removed the same way — `k\0i\0l\0l` and
    /// `k\u{1B}ill` read "kill". (NFKC_Casefold keeps them.)
    @inline(__always)
    static func isInvisibleControl(_ scalar: UInt32) -> Bool {
        switch scalar {
        case 0x00...0x08, 0x0E...0x1F, 0x7F...0x84, 0x86...0x9F: true
        default: false
        }
    }

    /// Folds `raw`. `turkic` selects Turkic case folding (I → ı, İ → i).
    static func fold(_ raw: Units, turkic: Bool) throws(ICUError) -> Units {
        // Controls go first, before chunking: removed inside a chunk they would leave a combining
        // mark that composes with the letter before the control on a second pass (l + NUL +
        // U+0301 → l + U+0301 → ĺ), and folding would not be idempotent (the fuzzer found it).
        if raw.scalars.contains(where: isInvisibleControl) {
            var visible = Units(reservingCapacity: raw.count)
            for k in 0..<raw.count where !isInvisibleControl(raw.scalars[k]) {
                visible.append(raw.scalars[k], raw.starts[k], raw.ends[k])
            }
            return try fold(visible, turkic: turkic)
        }
        var out = Units(reservingCapacity: raw.count)
        let latin = LatinFoldTable.shared
        let scalars = raw.scalars
        let n = scalars.count
        var i = 0
        while i < n {
            let scalar = scalars[i]
            if scalar < 0x80 {
                // A run of ASCII scalars, each a chunk of its own, is copied at once and lowercased
                // in place (the controls that folding removes are gone by now).
                var end = i
                while end < n && scalars[end] < 0x80 && (end + 1 == n || hasBoundaryBefore(scalars[end + 1])) {
                    end += 1
                }
                if end > i {
                    let first = out.count
                    out.append(contentsOf: raw, i..<end)
                    out.scalars.withUnsafeMutableBufferPointer { folded in
                        for k in first..<folded.count where folded[k] &- 0x41 < 26 {
                            folded[k] = turkic && folded[k] == 0x49 ? 0x131 : folded[k] | 0x20
                        }
                    }
                    i = end
                    continue
                }
            }
            // The chunk is this scalar and the ones after it up to the next normalisation boundary.
            var end = i + 1
            while end < n && !hasBoundaryBefore(scalars[end]) { end += 1 }
            let start = raw.starts[i]
            let stop = raw.ends[end - 1]

            if end == i + 1 {
                if isInvisibleControl(scalar) {
                    i = end
                    continue
                }
                if scalar == zeroWidthJoiner, joinsEmoji(scalars, at: i) {
                    out.append(scalar, start, stop)
                    i = end
                    continue
                }
                if latin.append(scalar, turkic: turkic, start, stop, to: &out) {
                    i = end
                    continue
                }
            }
            // An emoji's zero-width joiner shares a chunk with the emoji before it; fold around it.
            var segmentStart = i
            for k in i..<end where scalars[k] == zeroWidthJoiner && joinsEmoji(scalars, at: k) {
                if segmentStart < k {
                    let segment = Array(scalars[segmentStart..<k])
                    for s in try foldChunk(segment, turkic: turkic) where !isInvisibleControl(s) {
                        out.append(s, raw.starts[segmentStart], raw.ends[k - 1])
                    }
                }
                out.append(zeroWidthJoiner, raw.starts[k], raw.ends[k])
                segmentStart = k + 1
            }
            if segmentStart < end {
                let segment = Array(scalars[segmentStart..<end])
                let segmentFrom = segmentStart == i ? start : raw.starts[segmentStart]
                for s in try foldChunk(segment, turkic: turkic) where !isInvisibleControl(s) { out.append(s, segmentFrom, stop) }
            }
            i = end
        }
        return out
    }

    @inline(__always)
    static func appendASCII(_ scalar: UInt32, turkic: Bool, _ start: UInt32, _ end: UInt32, to out: inout Units) {
        switch scalar {
        case 0x49 where turkic:  // I → ı
            out.append(0x131, start, end)
        case 0x41...0x5A:
            out.append(scalar | 0x20, start, end)
        default:
            out.append(scalar, start, end)
        }
    }

    /// Whether a normalisation chunk may end before `scalar`: a table below U+0300 (taken from
    /// ICU once), ICU above. Chunks end only where ICU says so, so folding chunk by chunk gives
    /// exactly what folding the whole text would.
    @inline(__always)
    static func hasBoundaryBefore(_ scalar: UInt32) -> Bool {
        if scalar < 0x300 { return LatinFoldTable.shared.boundaryBefore[Int(scalar)] }
        return ICU.hasBoundaryBefore(.nfkcCasefold, scalar)
    }

    /// A zero-width joiner is kept only inside an emoji sequence (👩‍💻): there it is part of one
    /// picture, not glue between words. Elsewhere it is an invisible separator and goes.
    static func joinsEmoji(_ scalars: [UInt32], at index: Int) -> Bool {
        var before = index - 1
        while before >= 0 && (ICU.isVariationSelector(scalars[before]) || ICU.isEmojiModifier(scalars[before])) {
            before -= 1
        }
        guard before >= 0, index + 1 < scalars.count else { return false }
        return ICU.isExtendedPictographic(scalars[before]) && ICU.isExtendedPictographic(scalars[index + 1])
    }

    /// Folds one normalisation chunk with ICU.
    ///
    /// NFKC comes first, so that a full-width Ｉ is an I and an I + U+0307 is an İ before case
    /// folding sees them. Turkic folding then maps I → ı and İ → i; default folding would make
    /// İ into i + U+0307, so İ becomes a plain i first. NFKC_Casefold finishes (it removes
    /// default-ignorables and no longer meets an I or İ in the Turkic case).
    static func foldChunk(_ chunk: [UInt32], turkic: Bool) throws(ICUError) -> [UInt32] {
        let composed = try ICU.normalize(.nfkc, UTF16Conversion.encode(chunk))
        let cased: [UInt16]
        if turkic {
            cased = try ICU.foldCase(composed, turkic: true)
        } else {
            cased = composed.contains(capitalIWithDotAbove) ? composed.map { $0 == capitalIWithDotAbove ? 0x69 : $0 } : composed
        }
        return UTF16Conversion.decode(try ICU.normalize(.nfkcCasefold, cased))
    }

    static let capitalIWithDotAbove: UInt16 = 0x130
}

/// Folding results for single scalars U+0080–U+02FF (Latin-1, Latin Extended A/B, IPA: all of
/// Turkish), computed once from ICU so the common case costs a table look-up. The results are
/// stored flat (`values[start[i] ..< start[i] + count[i]]`), so a look-up retains no array.
final class LatinFoldTable: Sendable {
    static let shared = LatinFoldTable()
    static let range: Range<UInt32> = 0x80..<0x300

    /// Per scalar of `range`, default then Turkic: where its fold starts in `values`, and its
    /// length (`noFold`: ICU failed, fold the chunk the slow way).
    private let start: [Int32]
    private let count: [UInt8]
    private let values: [UInt32]
    static let noFold = UInt8.max
    /// For U+0000–U+02FF: whether NFKC_Casefold has a boundary before the scalar (false only for
    /// a few, such as the soft hyphen, which joins the chunk before it).
    let boundaryBefore: [Bool]

    private init() {
        boundaryBefore = (UInt32(0)..<0x300).map { ICU.hasBoundaryBefore(.nfkcCasefold, $0) }
        var start: [Int32] = []
        var count: [UInt8] = []
        var values: [UInt32] = []
        for turkic in [false, true] {
            for scalar in LatinFoldTable.range {
                start.append(Int32(values.count))
                if let folded = try? Folding.foldChunk([scalar], turkic: turkic), folded.count < Int(Self.noFold) {
                    count.append(UInt8(folded.count))
                    values += folded
                } else {
                    count.append(Self.noFold)
                }
            }
        }
        self.start = start
        self.count = count
        self.values = values
    }

    /// Appends the fold of `scalar` to `out`, each unit spanning `from..<to` of the original;
    /// false (nothing appended) when the table does not hold it.
    @inline(__always)
    func append(_ scalar: UInt32, turkic: Bool, _ from: UInt32, _ to: UInt32, to out: inout Units) -> Bool {
        guard LatinFoldTable.range.contains(scalar) else { return false }
        let index = Int(scalar - LatinFoldTable.range.lowerBound) + (turkic ? LatinFoldTable.range.count : 0)
        let length = count[index]
        guard length != Self.noFold else { return false }
        let first = Int(start[index])
        for k in first..<(first + Int(length)) { out.append(values[k], from, to) }
        return true
    }
}

enum UTF16Conversion {
    static func encode(_ scalars: [UInt32]) -> [UInt16] {
        var out: [UInt16] = []
        out.reserveCapacity(scalars.count + 2)
        for s in scalars {
            if s < 0x10000 {
                out.append(UInt16(s))
            } else {
                let v = s - 0x10000
                out.append(UInt16(0xD800 + (v >> 10)))
                out.append(UInt16(0xDC00 + (v & 0x3FF)))
            }
        }
        return out
    }

    static func decode(_ units: [UInt16]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(units.count)
        var i = 0
        while i < units.count {
            let u = units[i]
            if u >= 0xD800 && u < 0xDC00, i + 1 < units.count, units[i + 1] >= 0xDC00 && units[i + 1] < 0xE000 {
                out.append(0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(units[i + 1]) - 0xDC00))
                i += 2
            } else if u >= 0xD800 && u < 0xE000 {
                out.append(0xFFFD)  // ICU never returns lone surrogates from valid input; be safe anyway.
                i += 1
            } else {
                out.append(UInt32(u))
                i += 1
            }
        }
        return out
    }
}
