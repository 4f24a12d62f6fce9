internal import CICUShim

/// A failure reported by ICU through the C bridge.
public struct ICUError: Error, Sendable, Equatable, CustomStringConvertible {
    /// ICU's error code (`UErrorCode`).
    public let code: Int32
    /// What was being done.
    public let operation: String

    public var description: String {
        "ICU \(operation) failed: \(String(cString: sgicu_error_name(code))) (\(code))"
    }
}

/// Swift-side access to the ICU bridge. Every buffer ICU reports too small is retried once at the
/// size it reports; nothing is truncated.
enum ICU {
    /// Runs a fill-the-buffer ICU call, retrying once at the reported size.
    static func fill(
        _ operation: String, estimate: Int,
        _ call: (UnsafeMutablePointer<UInt16>, Int32, UnsafeMutablePointer<Int32>) -> Int32
    ) throws(ICUError) -> [UInt16] {
        var capacity = max(estimate, 1)
        for _ in 0..<2 {
            var status: Int32 = 0
            var length: Int32 = 0
            let buffer = [UInt16](unsafeUninitializedCapacity: capacity) { pointer, count in
                length = call(pointer.baseAddress!, Int32(capacity), &status)
                count = (status <= 0 && length >= 0 && Int(length) <= capacity) ? Int(length) : 0
            }
            if status == Int32(SGICU_BUFFER_OVERFLOW) || (status <= 0 && Int(length) > capacity) {
                capacity = Int(length)
                continue
            }
            guard status <= 0 else { throw ICUError(code: status, operation: operation) }
            return buffer
        }
        throw ICUError(code: Int32(SGICU_BUFFER_OVERFLOW), operation: operation)
    }

    enum Form {
        case nfc, nfd, nfkc, nfkd, nfkcCasefold
        var c: sgicu_form {
            switch self {
            case .nfc: SGICU_NFC
            case .nfd: SGICU_NFD
            case .nfkc: SGICU_NFKC
            case .nfkd: SGICU_NFKD
            case .nfkcCasefold: SGICU_NFKC_CASEFOLD
            }
        }
    }

    static func normalize(_ form: Form, _ text: [UInt16]) throws(ICUError) -> [UInt16] {
        try text.withUnsafeBufferPointer { (source) throws(ICUError) -> [UInt16] in
            try fill("normalize", estimate: text.count * 2 + 4) { dest, capacity, status in
                sgicu_normalize(form.c, source.baseAddress, Int32(source.count), dest, capacity, status)
            }
        }
    }

    static func foldCase(_ text: [UInt16], turkic: Bool) throws(ICUError) -> [UInt16] {
        try text.withUnsafeBufferPointer { (source) throws(ICUError) -> [UInt16] in
            try fill("case folding", estimate: text.count * 2 + 4) { dest, capacity, status in
                sgicu_fold_case(turkic ? 1 : 0, source.baseAddress, Int32(source.count), dest, capacity, status)
            }
        }
    }

    static func hasBoundaryBefore(_ form: Form, _ scalar: UInt32) -> Bool {
        var status: Int32 = 0
        let result = sgicu_has_boundary_before(form.c, scalar, &status)
        return status > 0 ? true : result != 0
    }

    static func isDefaultIgnorable(_ scalar: UInt32) -> Bool {
        sgicu_has_property(scalar, SGICU_PROP_DEFAULT_IGNORABLE) != 0
    }
    static func isExtendedPictographic(_ scalar: UInt32) -> Bool {
        sgicu_has_property(scalar, SGICU_PROP_EXTENDED_PICTOGRAPHIC) != 0
    }
    static func isEmojiModifier(_ scalar: UInt32) -> Bool {
        sgicu_has_property(scalar, SGICU_PROP_EMOJI_MODIFIER) != 0
    }
    static func isVariationSelector(_ scalar: UInt32) -> Bool {
        sgicu_has_property(scalar, SGICU_PROP_VARIATION_SELECTOR) != 0
    }
    @inline(__always)
    static func isAlphabetic(_ scalar: UInt32) -> Bool {
        if scalar < ScalarFacts.limit { return ScalarFacts.table[Int(scalar)] & ScalarFacts.alphabetic != 0 }
        return sgicu_has_property(scalar, SGICU_PROP_ALPHABETIC) != 0
    }
    /// ICU's `U_NON_SPACING_MARK` general category.
    @inline(__always)
    static func isNonSpacingMark(_ scalar: UInt32) -> Bool {
        if scalar < ScalarFacts.limit { return ScalarFacts.table[Int(scalar)] & ScalarFacts.nonSpacingMark != 0 }
        return sgicu_char_type(scalar) == 6
    }

    static var version: String { String(cString: sgicu_version()) }

    /// Code point ranges of a UnicodeSet pattern.
    static func ranges(ofSet pattern: String) throws(ICUError) -> [ClosedRange<UInt32>] {
        let utf16 = Array(pattern.utf16)
        return try rangeList("UnicodeSet \(pattern)") { pairs, capacity, status in
            utf16.withUnsafeBufferPointer { sgicu_set_ranges($0.baseAddress, Int32($0.count), pairs, capacity, status) }
        }
    }

    static func rangeList(
        _ operation: String, _ call: (UnsafeMutablePointer<UInt32>, Int32, UnsafeMutablePointer<Int32>) -> Int32
    ) throws(ICUError) -> [ClosedRange<UInt32>] {
        var capacity = 256
        for _ in 0..<2 {
            var status: Int32 = 0
            var pairs = [UInt32](repeating: 0, count: capacity * 2)
            let count = pairs.withUnsafeMutableBufferPointer { call($0.baseAddress!, Int32(capacity), &status) }
            if status == Int32(SGICU_BUFFER_OVERFLOW) {
                capacity = Int(count)
                continue
            }
            guard status <= 0 else { throw ICUError(code: status, operation: operation) }
            return (0..<Int(count)).map { pairs[2 * $0]...pairs[2 * $0 + 1] }
        }
        throw ICUError(code: Int32(SGICU_BUFFER_OVERFLOW), operation: operation)
    }
}

/// Owns an ICU spoof checker (UTS #39 confusable skeletons). Used to derive tables, not per prompt.
final class SpoofChecker {
    private let handle: OpaquePointer

    init() throws(ICUError) {
        var status: Int32 = 0
        guard let handle = sgicu_spoof_open(&status), status <= 0 else {
            throw ICUError(code: status, operation: "opening the spoof checker")
        }
        self.handle = handle
    }

    deinit { sgicu_spoof_close(handle) }

    func skeleton(_ text: [UInt16]) throws(ICUError) -> [UInt16] {
        try text.withUnsafeBufferPointer { (source) throws(ICUError) -> [UInt16] in
            try ICU.fill("confusable skeleton", estimate: text.count * 3 + 4) { dest, capacity, status in
                sgicu_spoof_skeleton(handle, source.baseAddress, Int32(source.count), dest, capacity, status)
            }
        }
    }
}

/// Owns an ICU transliterator. Slow and globally locked inside ICU: used to derive tables only.
final class Transliterator {
    private let handle: OpaquePointer

    init(id: String) throws(ICUError) {
        var status: Int32 = 0
        let utf16 = Array(id.utf16)
        let opened = utf16.withUnsafeBufferPointer { sgicu_translit_open($0.baseAddress, Int32($0.count), &status) }
        guard let opened, status <= 0 else { throw ICUError(code: status, operation: "opening transliterator \(id)") }
        handle = opened
    }

    deinit { sgicu_translit_close(handle) }

    func transliterate(_ text: [UInt16]) throws(ICUError) -> [UInt16] {
        var capacity = text.count * 4 + 8
        for _ in 0..<2 {
            var status: Int32 = 0
            var buffer = text + [UInt16](repeating: 0, count: capacity - text.count)
            let length = buffer.withUnsafeMutableBufferPointer {
                sgicu_translit(handle, $0.baseAddress, Int32(text.count), Int32(capacity), &status)
            }
            if status == Int32(SGICU_BUFFER_OVERFLOW) {
                capacity = max(Int(length), capacity * 2)
                continue
            }
            guard status <= 0 else { throw ICUError(code: status, operation: "transliteration") }
            return Array(buffer[0..<Int(length)])
        }
        throw ICUError(code: Int32(SGICU_BUFFER_OVERFLOW), operation: "transliteration")
    }

    func sourceRanges() throws(ICUError) -> [ClosedRange<UInt32>] {
        try ICU.rangeList("transliterator source set") { pairs, capacity, status in
            sgicu_translit_source_ranges(handle, pairs, capacity, status)
        }
    }
}

/// ICU's answers for the first 2,048 code points (Latin, Greek, Cyrillic, Armenian, Hebrew,
/// Arabic…), asked once: every non-ASCII letter of a prompt is checked, and a C call per letter
/// showed in the profile. Above the table, ICU is asked each time. The same ICU answers either way.
enum ScalarFacts {
    static let limit: UInt32 = 0x800
    static let alphabetic: UInt8 = 1
    static let nonSpacingMark: UInt8 = 2

    static let table: [UInt8] = (0..<limit).map { scalar in
        (sgicu_has_property(scalar, SGICU_PROP_ALPHABETIC) != 0 ? alphabetic : 0)
            | (sgicu_char_type(scalar) == 6 ? nonSpacingMark : 0)
    }
}
