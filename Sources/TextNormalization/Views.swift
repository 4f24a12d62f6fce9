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
    /// The numbers themselves, or the identity: most views of pure-ASCII text map view byte `i` to
    /// original byte `i`, and two arrays of 4-byte offsets per view were most of what normalising
    /// such a prompt cost.
    private enum Storage {
        /// View byte `i` came from original byte `i`; as many view bytes as original bytes.
        case identity
        case explicit(starts: [UInt32], ends: [UInt32])
    }

    private let storage: Storage
    /// The byte length of the original text.
    public let originalCount: Int

    init(starts: [UInt32], ends: [UInt32], originalCount: Int) {
        storage = .explicit(starts: starts, ends: ends)
        self.originalCount = originalCount
    }

    private init(identityOver originalCount: Int) {
        storage = .identity
        self.originalCount = originalCount
    }

    /// The map of a view that is the original bytes one for one (or each replaced by one byte).
    static func identity(originalCount: Int) -> OffsetMap { OffsetMap(identityOver: originalCount) }

    /// For view byte `i`, the original bytes are `starts[i] ..< ends[i]`.
    ///
    /// An identity map builds this array on each access: read it once, outside any loop.
    public var starts: [UInt32] {
        switch storage {
        case .identity: Offsets.run(from: 0, count: originalCount)
        case .explicit(let starts, _): starts
        }
    }

    /// See `starts`.
    public var ends: [UInt32] {
        switch storage {
        case .identity: Offsets.run(from: 1, count: originalCount)
        case .explicit(_, let ends): ends
        }
    }

    /// Calls `body` with the `starts` and `ends` arrays as buffers, or with nil for both when the
    /// map is the identity (view byte `i` came from original byte `i`), building nothing.
    public func withBounds<Result>(
        _ body: (_ starts: UnsafeBufferPointer<UInt32>?, _ ends: UnsafeBufferPointer<UInt32>?) -> Result
    ) -> Result {
        switch storage {
        case .identity:
            return body(nil, nil)
        case .explicit(let starts, let ends):
            return starts.withUnsafeBufferPointer { starts in ends.withUnsafeBufferPointer { ends in body(starts, ends) } }
        }
    }

    /// The number of view bytes mapped.
    public var count: Int {
        switch storage {
        case .identity: originalCount
        case .explicit(let starts, _): starts.count
        }
    }

    /// The original byte range that the view bytes `range` came from.
    ///
    /// An empty range maps to an empty range at the original position of the next view byte
    /// (or the end of the original).
    public func originalRange(of range: Range<Int>) -> Range<Int> {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "view range out of bounds")
        switch storage {
        case .identity:
            return range
        case .explicit(let starts, let ends):
            if range.isEmpty {
                let position = range.lowerBound < starts.count ? Int(starts[range.lowerBound]) : originalCount
                return position..<position
            }
            return Int(starts[range.lowerBound])..<Int(ends[range.upperBound - 1])
        }
    }

    /// Equal when they map the same numbers, however stored (`RuleMatcher` compares maps to find
    /// views that are the same; two identity maps compare in constant time).
    public static func == (lhs: OffsetMap, rhs: OffsetMap) -> Bool {
        guard lhs.originalCount == rhs.originalCount else { return false }
        switch (lhs.storage, rhs.storage) {
        case (.identity, .identity):
            return true
        case let (.explicit(lhsStarts, lhsEnds), .explicit(rhsStarts, rhsEnds)):
            return lhsStarts == rhsStarts && lhsEnds == rhsEnds
        case let (.identity, .explicit(starts, ends)), let (.explicit(starts, ends), .identity):
            return isIdentity(starts: starts, ends: ends, count: lhs.originalCount)
        }
    }

    /// Whether the arrays hold the identity over `count` bytes.
    private static func isIdentity(starts: [UInt32], ends: [UInt32], count: Int) -> Bool {
        guard starts.count == count, ends.count == count else { return false }
        for i in 0..<count where starts[i] != UInt32(i) || ends[i] != UInt32(i + 1) { return false }
        return true
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

/// A text's views by slot (`ViewName.index`), nil where not built, stored inline. A
/// `[NormalizedView?]` per prompt was a heap allocation whose storage type the standard library's
/// unspecialised allocation path looked up in the runtime's shared metadata cache every time
/// (perf: 2–3 % of `classify` on short prompts, and a cache line that every thread writes).
struct ViewSlots: Sendable {
    private var raw: NormalizedView?
    private var folded: NormalizedView?
    private var skeleton: NormalizedView?
    private var ascii: NormalizedView?
    private var squashed: NormalizedView?

    subscript(index: Int) -> NormalizedView? {
        get {
            switch index {
            case 0: raw
            case 1: folded
            case 2: skeleton
            case 3: ascii
            case 4: squashed
            default: nil
            }
        }
        set {
            switch index {
            case 0: raw = newValue
            case 1: folded = newValue
            case 2: skeleton = newValue
            case 3: ascii = newValue
            case 4: squashed = newValue
            default: preconditionFailure("no view slot \(index)")
            }
        }
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
