public import SafetyCore

/// The named views of a prompt that rules read.
///
/// Each view is derived from the one before it: `raw` → `folded` → `skeleton` → `ascii` → `squashed`.
public enum ViewName: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    /// The text as received; invalid UTF-8 replaced with U+FFFD.
    case raw
    /// NFKC, default-ignorable and control characters (not whitespace) removed, case folded (Turkic rules for Turkish), never `i` + U+0307.
    case folded
    /// `folded` with look-alike letters from other scripts mapped to Latin, word by word.
    case skeleton
    /// `skeleton` with diacritics and Turkish letters removed and typographic forms mapped to ASCII.
    case ascii
    /// `ascii` with leetspeak mapped, spaced-out letters joined and stretched letters shortened.
    case squashed

    var index: Int {
        switch self {
        case .raw: 0
        case .folded: 1
        case .skeleton: 2
        case .ascii: 3
        case .squashed: 4
        }
    }

    public static func < (lhs: ViewName, rhs: ViewName) -> Bool { lhs.index < rhs.index }
}

/// Maps every UTF-8 byte of a view back to the range of original bytes it came from.
///
/// Both bounds are non-decreasing along the view, so any span of the view maps to one contiguous
/// span of the original:
/// ```swift
/// let text = NormalizedText("please k.i.l.l him")
/// let squashed = text.view(.squashed)            // "please kill him"
/// squashed.originalRange(of: 7..<11)             // 7..<14, the bytes of "k.i.l.l"
/// ```
public struct OffsetMap: Sendable, Equatable {
    /// For view byte `i`, the original bytes are `starts[i] ..< ends[i]`.
    public let starts: [UInt32]
    public let ends: [UInt32]
    /// The byte length of the original text.
    public let originalCount: Int

    init(starts: [UInt32], ends: [UInt32], originalCount: Int) {
        self.starts = starts
        self.ends = ends
        self.originalCount = originalCount
    }

    /// The number of view bytes mapped.
    public var count: Int { starts.count }

    /// The original byte range that the view bytes `range` came from.
    ///
    /// An empty range maps to an empty range at the original position of the next view byte
    /// (or the end of the original).
    public func originalRange(of range: Range<Int>) -> Range<Int> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "view range out of bounds")
        if range.isEmpty {
            let position = range.lowerBound < count ? Int(starts[range.lowerBound]) : originalCount
            return position..<position
        }
        return Int(starts[range.lowerBound])..<Int(ends[range.upperBound - 1])
    }
}

/// One view of a prompt: its UTF-8 text and the map back to the original bytes.
public struct NormalizedView: Sendable, Equatable {
    public let name: ViewName
    /// The view's text as UTF-8 bytes (always valid UTF-8).
    public let utf8: [UInt8]
    /// Where each byte of `utf8` came from in the original.
    public let map: OffsetMap

    /// The view's text.
    public var text: String { String(decoding: utf8, as: UTF8.self) }

    /// The original byte range that the view bytes `range` came from.
    public func originalRange(of range: Range<Int>) -> Range<Int> { map.originalRange(of: range) }

    /// The same text and map under another name (the arrays are shared, not copied).
    func renamed(_ newName: ViewName) -> NormalizedView {
        NormalizedView(name: newName, utf8: utf8, map: map)
    }
}

/// What to build and how.
public struct NormalizationOptions: Sendable, Equatable {
    /// The user's locale language, if known: `.tr` turns on Turkic case folding even when the
    /// text itself does not look Turkish.
    public var localeLanguage: Language?
    /// The views to build. Views that a requested view derives from are built too.
    public var views: Set<ViewName>

    public init(localeLanguage: Language? = nil, views: Set<ViewName> = Set(ViewName.allCases)) {
        self.localeLanguage = localeLanguage
        self.views = views
    }
}
