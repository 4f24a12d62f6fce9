/// What the pure-ASCII fast path of `NormalizedText` needs to know of a prompt's bytes, found in
/// one pass: most prompts are plain ASCII, and for them every view is the bytes, lowercased or
/// not, mapped one to one.
struct ASCIIFacts {
    /// Some byte is 0x80 or above (not ASCII, or not UTF-8).
    let hasNonASCII: Bool
    /// Some byte is a control that folding removes (`Folding.isInvisibleControl`).
    let hasInvisibleControl: Bool
    /// Some byte is A–Z.
    let hasUppercase: Bool
    /// Some byte is `I`, which Turkic folding makes `ı` (non-ASCII).
    let hasCapitalI: Bool

    /// Whether the fast path applies: ASCII without controls to remove.
    var isPlainASCII: Bool { !hasNonASCII && !hasInvisibleControl }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        // Eight bytes at a time (SWAR): byte by byte, with a branch per test, this cost 23
        // instructions per byte. The tail is padded with spaces, which set no flag.
        var high: UInt64 = 0
        var control: UInt64 = 0
        var upper: UInt64 = 0
        var capitalI: UInt64 = 0
        func scan(_ word: UInt64) {
            high |= word
            control |= Self.below(0x09, word) | Self.atLeast(0x0E, word) & Self.below(0x20, word) | Self.atLeast(0x7F, word)
            upper |= Self.atLeast(0x41, word) & Self.below(0x5B, word)
            capitalI |= Self.atLeast(0x49, word) & Self.below(0x4A, word)
        }
        let n = bytes.count
        var i = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            while i + 8 <= n {
                scan(raw.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            if i < n {
                var tail = Self.spaces
                withUnsafeMutableBytes(of: &tail) { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[i..<n])) }
                scan(tail)
            }
        }
        hasNonASCII = high & Self.highBits != 0
        // The other tests are only exact for ASCII bytes; for other text they do not matter.
        hasInvisibleControl = control != 0
        hasUppercase = upper != 0
        hasCapitalI = capitalI != 0
    }

    private static let highBits: UInt64 = 0x8080_8080_8080_8080
    private static let spaces: UInt64 = 0x2020_2020_2020_2020

    /// The high bit of each byte of `word` that is at least `bound` (1...128), for bytes below 0x80:
    /// adding `0x80 - bound` reaches the high bit exactly then, without carrying into the next byte.
    @inline(__always)
    private static func atLeast(_ bound: UInt64, _ word: UInt64) -> UInt64 {
        (word &+ (0x80 - bound) &* 0x0101_0101_0101_0101) & highBits
    }

    /// The high bit of each byte of `word` that is below `bound`, for bytes below 0x80.
    @inline(__always)
    private static func below(_ bound: UInt64, _ word: UInt64) -> UInt64 { ~atLeast(bound, word) & highBits }

    /// `bytes` with A–Z lowercased: default case folding of ASCII without controls.
    static func lowercased(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBufferPointer { source in
            [UInt8](unsafeUninitializedCapacity: source.count) { out, written in
                for i in 0..<source.count {
                    let byte = source[i]
                    out[i] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                }
                written = source.count
            }
        }
    }
}
