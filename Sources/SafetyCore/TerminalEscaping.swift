

/// Makes untrusted text safe to show on a terminal: control characters, escape sequences, bidi
/// overrides, line separators and invisible characters are shown escaped (`\u{1B}`), never sent raw.
public enum TerminalEscaping {
    /// `text` with every unsafe scalar written as `\u{HEX}`.
    ///
    /// ```swift
    /// TerminalEscaping.escaped("a\u{1B}[31mb")   // "a\\u{1B}[31mb"
    /// ```
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Escapes each line of `text` but keeps its line breaks (`\n` only): for trusted multi-line
    /// text whose lines may hold untrusted parts.
    public static func escapedKeepingLines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped(String($0)) }
            .joined(separator: "\n")
    }

    /// Control characters (C0, DEL, C1), bidi controls, line/paragraph separators, and the
    /// invisible characters a prompt may hide in words (soft hyphen, Mongolian vowel separator,
    /// zero-width characters, word joiner, BOM, interlinear annotation marks, and the tag
    /// characters U+E0000–E007F that can smuggle invisible ASCII) — the same set as the command
    /// line's `TerminalText`.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x180E, 0x200B...0x200D, 0x2060...0x2064, 0xFEFF, 0xFFF9...0xFFFB, 0xE0000...0xE007F: true
        default: JSONText.needsEscape(scalar)
        }
    }
}
