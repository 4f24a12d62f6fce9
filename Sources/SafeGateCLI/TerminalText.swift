/// Makes untrusted text safe to show on a terminal: control characters, escape sequences, bidi
/// overrides and line separators are shown escaped (`\u{1B}`), never sent raw.
enum TerminalText {
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true  // C0 (ESC, BEL, BS, CR, LF…), DEL, C1 (CSI, OSC…)
        case 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C: true  // bidi controls
        case 0x2028, 0x2029: true
        // Invisible characters a prompt may hide in words: shown, so the user sees the evasion.
        case 0x00AD, 0x200B...0x200D, 0x2060...0x2064, 0xFEFF: true
        default: false
        }
    }
}
