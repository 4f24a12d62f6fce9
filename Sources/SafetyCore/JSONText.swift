/// Minimal, fast JSON text building with deterministic key order, for output records and logs.
///
/// ```swift
/// var json = JSONText.Object()
/// json["label"] = .string("safe")
/// json["type"] = .null
/// json.text   // {"label":"safe","type":null}
/// ```
public enum JSONText {
    /// A JSON string literal for `text`: quotes, backslashes and every control character escaped,
    /// and also U+2028/U+2029 and bidi controls, so no output line can be split or reordered.
    public static func quote(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where needsEscape(scalar):
                for unit in String(scalar).utf16 {
                    let hex = String(unit, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
        return out
    }

    /// Appends `quote(text)` to `out`. Text of printable ASCII without `"` or `\\` (ids, labels,
    /// rule ids: nearly every string an output record holds) is copied as it is, in place.
    public static func appendQuoted(_ text: String, to out: inout String) {
        var plain = true
        for byte in text.utf8 where byte < 0x20 || byte > 0x7E || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            plain = false
            break
        }
        guard plain else {
            out += quote(text)
            return
        }
        out += "\""
        out += text
        out += "\""
    }

    /// Control characters (C0, DEL, C1), line/paragraph separators and bidi controls.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C:
            true
        default: false
        }
    }

    /// A JSON value.
    public indirect enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        case int(Int)
        case double(Double)
        case string(String)
        case array([Value])
        case object(Object)

        /// The JSON text of the value, on one line.
        public var text: String {
            switch self {
            case .null: "null"
            case .bool(let value): value ? "true" : "false"
            case .int(let value): String(value)
            case .double(let value): value.isFinite ? String(value) : "null"
            case .string(let value): JSONText.quote(value)
            case .array(let values): "[" + values.map(\.text).joined(separator: ",") + "]"
            case .object(let object): object.text
            }
        }

        /// A string value, or null.
        public static func optional(_ value: String?) -> Value { value.map { .string($0) } ?? .null }
    }

    /// A JSON object that keeps its keys in insertion order.
    public struct Object: Sendable, Equatable {
        public private(set) var entries: [(key: String, value: Value)] = []

        public init() {}

        public subscript(key: String) -> Value? {
            get { entries.first { $0.key == key }?.value }
            set {
                if let index = entries.firstIndex(where: { $0.key == key }) {
                    if let newValue { entries[index].value = newValue } else { entries.remove(at: index) }
                } else if let newValue {
                    entries.append((key, newValue))
                }
            }
        }

        /// The JSON text of the object, on one line.
        public var text: String {
            "{" + entries.map { JSONText.quote($0.key) + ":" + $0.value.text }.joined(separator: ",") + "}"
        }

        public static func == (lhs: Object, rhs: Object) -> Bool {
            lhs.entries.count == rhs.entries.count
                && zip(lhs.entries, rhs.entries).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        }
    }
}
