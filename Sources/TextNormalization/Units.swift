/// Scalars, each with the original byte range it came from: `Units` (any scalars) and
/// `ASCIIUnits` (the bytes of an ascii view, which the fast paths squash without widening them).
/// The stages that work on either (squashing) are written once against this.
protocol UnitStorage {
    associatedtype Scalar: FixedWidthInteger & UnsignedInteger
    var scalars: [Scalar] { get set }
    var starts: [UInt32] { get set }
    var ends: [UInt32] { get set }
    init()
}

extension UnitStorage {
    init(reservingCapacity capacity: Int) {
        self.init()
        scalars.reserveCapacity(capacity)
        starts.reserveCapacity(capacity)
        ends.reserveCapacity(capacity)
    }

    var count: Int { scalars.count }

    @inline(__always)
    mutating func append(_ scalar: Scalar, _ start: UInt32, _ end: UInt32) {
        scalars.append(scalar)
        starts.append(start)
        ends.append(end)
    }

    /// Appends units `range` of `other` unchanged.
    ///
    /// Copied from buffer pointers: appending array slices copied element by element and
    /// retained each slice, and stages copy many short runs (the words between Turkish letters).
    mutating func append(contentsOf other: Self, _ range: Range<Int>) {
        other.scalars.withUnsafeBufferPointer { scalars.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        other.starts.withUnsafeBufferPointer { starts.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
        other.ends.withUnsafeBufferPointer { ends.append(contentsOf: UnsafeBufferPointer(rebasing: $0[range])) }
    }
}

/// Text under construction: Unicode scalars, each with the original byte range it came from.
///
/// Every pipeline stage reads one `Units` and appends to the next, so the offset map of any view is
/// exact by construction and monotonic because stages only ever append in order.
struct Units: UnitStorage {
    var scalars: [UInt32] = []
    var starts: [UInt32] = []
    var ends: [UInt32] = []

    init() {}

    /// True when every scalar is ASCII.
    var isASCII: Bool { scalars.allSatisfy { $0 < 0x80 } }

    /// The same units with ASCII capitals lowercased (for pure-ASCII text, default folding).
    func asciiLowercased() -> Units {
        var out = self
        for i in 0..<out.scalars.count where (0x41...0x5A).contains(out.scalars[i]) { out.scalars[i] |= 0x20 }
        return out
    }

    /// Encodes as a view: UTF-8 bytes, each mapped to its scalar's original range.
    func view(_ name: ViewName, originalCount: Int) -> NormalizedView {
        if isASCII {
            // One byte per scalar: the maps are the units' own ranges.
            return NormalizedView(
                name: name, utf8: scalars.map { UInt8(truncatingIfNeeded: $0) },
                map: OffsetMap(starts: starts, ends: ends, originalCount: originalCount))
        }
        // Two passes: the byte length, then every array written in place, reading the units through
        // buffer pointers (no bounds checks) and writing an ASCII scalar without the encoder.
        return scalars.withUnsafeBufferPointer { scalars in
            starts.withUnsafeBufferPointer { starts in
                ends.withUnsafeBufferPointer { ends in
                    var total = 0
                    for scalar in scalars { total += UTF8Encoding.length(of: scalar) }
                    var byteStarts: [UInt32] = []
                    var byteEnds: [UInt32] = []
                    let bytes = [UInt8](unsafeUninitializedCapacity: total) { out, written in
                        byteStarts = [UInt32](unsafeUninitializedCapacity: total) { outStarts, writtenStarts in
                            byteEnds = [UInt32](unsafeUninitializedCapacity: total) { outEnds, writtenEnds in
                                var k = 0
                                for i in 0..<scalars.count {
                                    let scalar = scalars[i]
                                    let start = starts[i]
                                    let end = ends[i]
                                    if scalar < 0x80 {
                                        out[k] = UInt8(truncatingIfNeeded: scalar)
                                        outStarts[k] = start
                                        outEnds[k] = end
                                        k += 1
                                        continue
                                    }
                                    let length = UTF8Encoding.encode(scalar, into: out, at: k)
                                    for j in k..<(k + length) {
                                        outStarts[j] = start
                                        outEnds[j] = end
                                    }
                                    k += length
                                }
                                writtenEnds = total
                            }
                            writtenStarts = total
                        }
                        written = total
                    }
                    return NormalizedView(
                        name: name, utf8: bytes,
                        map: OffsetMap(starts: byteStarts, ends: byteEnds, originalCount: originalCount))
                }
            }
        }
    }
}

/// Offset arrays of identity maps.
enum Offsets {
    /// `start, start + 1, …` (`count` of them), written in one loop: `Array(a..<b)` over a range
    /// of `UInt32` goes through the generic collection copy, about six times the instructions, and
    /// every non-trivial ASCII prompt builds two of these per view.
    static func run(from start: UInt32, count: Int) -> [UInt32] {
        [UInt32](unsafeUninitializedCapacity: count) { buffer, initialized in
            var value = start
            for index in 0..<count {
                buffer[index] = value
                value &+= 1
            }
            initialized = count
        }
    }
}

enum UTF8Encoding {
    /// The length of the UTF-8 encoding of `scalar`.
    @inline(__always)
    static func length(of scalar: UInt32) -> Int {
        scalar < 0x80 ? 1 : scalar < 0x800 ? 2 : scalar < 0x10000 ? 3 : 4
    }

    /// Writes the UTF-8 encoding of `scalar` at `offset` and returns its length.
    @inline(__always)
    static func encode(_ scalar: UInt32, into bytes: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        switch scalar {
        case 0..<0x80:
            bytes[offset] = UInt8(scalar)
            return 1
        case 0x80..<0x800:
            bytes[offset] = UInt8(0xC0 | (scalar >> 6))
            bytes[offset + 1] = UInt8(0x80 | (scalar & 0x3F))
            return 2
        case 0x800..<0x10000:
            bytes[offset] = UInt8(0xE0 | (scalar >> 12))
            bytes[offset + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            bytes[offset + 2] = UInt8(0x80 | (scalar & 0x3F))
            return 3
        default:
            bytes[offset] = UInt8(0xF0 | (scalar >> 18))
            bytes[offset + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
            bytes[offset + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            bytes[offset + 3] = UInt8(0x80 | (scalar & 0x3F))
            return 4
        }
    }

    /// Appends the UTF-8 encoding of `scalar` and returns its length.
    @discardableResult
    static func encode(_ scalar: UInt32, into bytes: inout [UInt8]) -> Int {
        var buffer: (UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { raw in
            let four = raw.bindMemory(to: UInt8.self)
            let length = encode(scalar, into: four, at: 0)
            bytes.append(contentsOf: four[0..<length])
            return length
        }
    }

    /// Decodes `bytes` into units, replacing each maximal invalid subsequence with U+FFFD
    /// (the Unicode "maximal subpart" practice). Returns whether anything was replaced.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>) -> (units: Units, replaced: Bool) {
        if bytes.allSatisfy({ $0 < 0x80 }) {
            // Pure ASCII: one unit per byte, built without per-byte appends.
            var units = Units()
            units.scalars = bytes.map { UInt32($0) }
            units.starts = Offsets.run(from: 0, count: bytes.count)
            units.ends = Offsets.run(from: 1, count: bytes.count)
            return (units, false)
        }
        // At most one unit per byte: the three arrays are written in place, as the view encoder does.
        let n = bytes.count
        var replaced = false
        var count = 0
        var unitStarts: [UInt32] = []
        var unitEnds: [UInt32] = []
        let unitScalars = [UInt32](unsafeUninitializedCapacity: n) { scalars, writtenScalars in
            unitStarts = [UInt32](unsafeUninitializedCapacity: n) { starts, writtenStarts in
                unitEnds = [UInt32](unsafeUninitializedCapacity: n) { ends, writtenEnds in
                    @inline(__always)
                    func add(_ scalar: UInt32, _ start: Int, _ end: Int) {
                        scalars[count] = scalar
                        starts[count] = UInt32(truncatingIfNeeded: start)
                        ends[count] = UInt32(truncatingIfNeeded: end)
                        count += 1
                    }
                    var i = 0
                    while i < n {
                        let b0 = bytes[i]
                        if b0 < 0x80 {
                            add(UInt32(b0), i, i + 1)
                            i += 1
                            continue
                        }
                        // Expected length and the valid range of the second byte (Unicode Table 3-7).
                        var length = 0
                        var lo: UInt8 = 0x80
                        var hi: UInt8 = 0xBF
                        switch b0 {
                        case 0xC2...0xDF: length = 2
                        case 0xE0: length = 3; lo = 0xA0
                        case 0xE1...0xEC, 0xEE...0xEF: length = 3
                        case 0xED: length = 3; hi = 0x9F
                        case 0xF0: length = 4; lo = 0x90
                        case 0xF1...0xF3: length = 4
                        case 0xF4: length = 4; hi = 0x8F
                        default: length = 0
                        }
                        if length == 0 {
                            add(0xFFFD, i, i + 1)
                            replaced = true
                            i += 1
                            continue
                        }
                        var scalar = UInt32(b0) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
                        var j = 1
                        var valid = true
                        while j < length {
                            guard i + j < n else { valid = false; break }
                            let b = bytes[i + j]
                            let (low, high) = j == 1 ? (lo, hi) : (UInt8(0x80), UInt8(0xBF))
                            guard b >= low && b <= high else { valid = false; break }
                            scalar = (scalar << 6) | UInt32(b & 0x3F)
                            j += 1
                        }
                        if valid {
                            add(scalar, i, i + length)
                            i += length
                        } else {
                            // The maximal subpart: the lead byte and the continuation bytes that were valid so far.
                            add(0xFFFD, i, i + j)
                            replaced = true
                            i += j
                        }
                    }
                    writtenEnds = count
                }
                writtenStarts = count
            }
            writtenScalars = count
        }
        var units = Units()
        units.scalars = unitScalars
        units.starts = unitStarts
        units.ends = unitEnds
        return (units, replaced)
    }
}
