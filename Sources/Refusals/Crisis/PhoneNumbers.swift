/// Finding phone numbers in text, to keep numbers that must never be shown out of every output.
public enum PhoneNumbers {
    /// The digits of `text`, with a leading `+` kept when it had one.
    public static func normalize(_ text: String) -> String {
        let trimmed = text.drop { $0 == " " }
        let digits = trimmed.filter(\.isASCIIDigit)
        return trimmed.first == "+" ? "+" + digits : String(digits)
    }

    /// Every number-like run in `text`: digits possibly split by spaces, hyphens, dots, slashes
    /// or brackets, with a leading `+`, as written.
    public static func runs(in text: String) -> [String] {
        var runs: [String] = []
        var current = ""
        var pendingSeparators = ""
        func flush() {
            if current.contains(where: \.isASCIIDigit) { runs.append(current) }
            current = ""
            pendingSeparators = ""
        }
        for character in text {
            if character.isASCIIDigit {
                current += pendingSeparators
                pendingSeparators = ""
                current.append(character)
            } else if character == "+" && current.isEmpty {
                current = "+"
            } else if !current.isEmpty, " -./()\u{A0}".contains(character) {
                pendingSeparators.append(character)
            } else {
                flush()
            }
        }
        flush()
        return runs
    }

    /// Whether the forbidden number `forbidden` (normalised) shows up in `text`: as a number-like
    /// run, as consecutive groups of one (`112 182` holds `182`), or, for long numbers, inside one.
    public static func contains(_ text: String, forbidden: String) -> Bool {
        runs(in: text).contains { matches(run: $0, forbidden: forbidden) }
    }

    /// Whether the number-like `run` (as returned by `runs(in:)`) is, or holds, `forbidden`.
    static func matches(run: String, forbidden: String) -> Bool {
        if forbidden.hasPrefix("+") {
            // International forms, with or without the trunk prefix written as "(0)".
            guard run.hasPrefix("+") else { return false }
            return normalize(run) == forbidden || normalize(run.replacingOccurrences(of: "(0)", with: "")) == forbidden
        }
        let digits = run.filter(\.isASCIIDigit)
        if forbidden.count >= 8 && digits.contains(forbidden) { return true }
        let groups = run.split(whereSeparator: { !$0.isASCIIDigit })
        for start in groups.indices {
            var joined = ""
            for group in groups[start...] {
                joined += group
                if joined == forbidden { return true }
                if joined.count >= forbidden.count { break }
            }
        }
        return false
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: String, with replacement: String) -> String {
        split(separator: target, omittingEmptySubsequences: false).joined(separator: replacement)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
