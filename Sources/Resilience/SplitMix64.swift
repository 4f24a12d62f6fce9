/// A small, fast, seedable random number generator (Steele, Lea & Flood's SplitMix64).
///
/// Not for secrets. Used to make retry jitter reproducible: tests and `--seed N` get the same
/// delays on every run and every platform, which `SystemRandomNumberGenerator` cannot give.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let caller = ResilientCaller(random: random)   // or: random.next()
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    /// A generator whose sequence is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension RandomNumberGenerator {
    /// A uniform `Double` in `0..<1` from the top 53 bits of one `next()`: the same value for the
    /// same generator state everywhere (unlike `Double.random(in:using:)`, whose algorithm is the
    /// standard library's to change).
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
