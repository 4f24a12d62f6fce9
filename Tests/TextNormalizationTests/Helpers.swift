import SafetyCore
import Testing

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

/// `bytes` normalised on the pure-ASCII fast path and the general path: every flag, view and map
/// (as numbers) must be the same. Records an issue naming `context` for each difference.
func expectFastPathMatchesGeneralPath(_ bytes: [UInt8], options: NormalizationOptions, _ context: String = "") {
    let fast = NormalizedText(bytes: bytes, options: options, asciiFastPath: true)
    let general = NormalizedText(bytes: bytes, options: options, asciiFastPath: false)
    let what = "\(context) \(String(decoding: bytes.prefix(60), as: UTF8.self).debugDescription) locale \(options.localeLanguage?.rawValue ?? "nil") views \(options.views.sorted())"
    #expect(fast.original == general.original, "original: \(what)")
    #expect(fast.hadInvalidUTF8 == general.hadInvalidUTF8, "hadInvalidUTF8: \(what)")
    #expect(fast.isASCII == general.isASCII, "isASCII: \(what)")
    #expect(fast.turkicFolding == general.turkicFolding, "turkicFolding: \(what)")
    #expect(fast.language == general.language, "language: \(what)")
    for name in ViewName.allCases {
        let a = fast.viewIfBuilt(name)
        let b = general.viewIfBuilt(name)
        guard let a, let b else {
            #expect(a == nil && b == nil, "\(name) built on one path only: \(what)")
            continue
        }
        #expect(a.name == b.name, "\(name) name: \(what)")
        #expect(a.utf8 == b.utf8, "\(name) text: \(what)")
        #expect(a.map.starts == b.map.starts, "\(name) starts: \(what)")
        #expect(a.map.ends == b.map.ends, "\(name) ends: \(what)")
        #expect(a.map.originalCount == b.map.originalCount, "\(name) originalCount: \(what)")
        #expect(a.map.count == b.map.count, "\(name) count: \(what)")
        #expect(a == b, "\(name) view equality: \(what)")
        guard a.map.count == b.map.count else { continue }
        // Every empty range, and ranges from each byte to a few places on.
        for lower in 0...a.map.count {
            for upper in lower...min(a.map.count, lower + 3) where upper == lower || lower % 7 == 0 {
                let range = lower..<upper
                if a.originalRange(of: range) != b.originalRange(of: range) {
                    Issue.record("\(name) originalRange(of: \(range)): \(a.originalRange(of: range)) vs \(b.originalRange(of: range)): \(what)")
                    return
                }
            }
        }
    }
}

/// Every set of views, the empty set up to all five, and the locales the fast-path tests try.
enum FastPathCases {
    static let viewSets: [Set<ViewName>] = (0..<(1 << ViewName.allCases.count)).map { bits in
        Set(ViewName.allCases.enumerated().filter { bits & (1 << $0.offset) != 0 }.map(\.element))
    }

    static let locales: [Language?] = [nil, .tr, .en]

    /// `expectFastPathMatchesGeneralPath` for every set of views under every locale.
    static func expectEveryViewSetAndLocale(_ text: String) {
        for views in viewSets {
            for locale in locales {
                expectFastPathMatchesGeneralPath(Array(text.utf8), options: NormalizationOptions(localeLanguage: locale, views: views))
            }
        }
    }
}
