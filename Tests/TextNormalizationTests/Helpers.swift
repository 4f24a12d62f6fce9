@testable import TextNormalization

/// The original text that produced `needle`'s first occurrence in view `name`.
func originalText(of needle: String, in name: ViewName, of text: NormalizedText) -> String? {
    let view = text.view(name)
    guard let range = byteRange(of: Array(needle.utf8), in: view.utf8) else { return nil }
    let original = view.originalRange(of: range)
    return String(decoding: text.original[original], as: UTF8.self)
}

/// The byte range of the first occurrence of `needle` in `haystack`.
func byteRange(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
    guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<(start + needle.count)].elementsEqual(needle) { return start..<(start + needle.count) }
    }
    return nil
}

/// A small, seedable generator (SplitMix64) so randomized tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
