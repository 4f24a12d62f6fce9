internal import SafeGateResources

/// The literal requirements of patterns, computed ahead of time.
///
/// `LiteralAnalysis` parses every pattern into a tree, which is about two thirds of the time to
/// load the bundled rules. `Resources/rules/literal-cache.tsv` holds its results, keyed by the
/// pattern's FNV-1a hash and length; a pattern missing from it (a rule edited since, or a rule
/// file of your own) is simply analysed at load, so the cache can make loading slow, never
/// wrong. `LiteralCacheTests` fails when the bundled file is stale; regenerate it with
/// `swift run safegate dev generate-literal-cache`.
///
/// One line per pattern: `HASH LENGTH` then a tab and each group, tab-separated; a group is its
/// literals separated by `,`, each percent-encoded outside `[a-z0-9]`, with `^` before a
/// `wordStart` literal and `$` after a `wordEnd` one; `-` alone for a pattern without a
/// requirement. Then, when the pattern has an anchor (`AnchorAnalysis`), a last field
/// `@CHARACTERS.WORDRUNS.SPACERUNS.NONWORDRUNS.ANYRUNS:` and its literals, encoded the same way.
enum LiteralCache {
    static let bundledPath = "rules/literal-cache.tsv"

    /// What the analyses found for one pattern.
    struct Entry: Equatable, Sendable {
        var requirement: [[RequiredLiteral]]?
        var anchor: Anchor?

        /// Both analyses, run now.
        static func analysing(_ pattern: String) -> Entry {
            Entry(requirement: LiteralAnalysis.requirement(of: pattern), anchor: AnchorAnalysis.anchor(of: pattern))
        }
    }

    /// The bundled entries (parsed once).
    static let bundled: [Key: Entry] = parse(BundledResources.text(at: bundledPath) ?? "")

    struct Key: Hashable {
        var hash: UInt64
        var length: Int

        init(_ pattern: String) {
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            var length = 0
            for byte in pattern.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
                length += 1
            }
            self.hash = hash
            self.length = length
        }

        init(hash: UInt64, length: Int) {
            self.hash = hash
            self.length = length
        }
    }

    /// The analyses of `pattern`: from the cache when it is there, else run now.
    static func entry(of pattern: String) -> Entry {
        if let cached = bundled[Key(pattern)] { return cached }
        return .analysing(pattern)
    }

    // MARK: The file

    static func line(for pattern: String, entry: Entry) -> String {
        let key = Key(pattern)
        var line = String(key.hash, radix: 16) + " " + String(key.length)
        if let requirement = entry.requirement {
            for group in requirement {
                line += "\t" + group.map(encode).joined(separator: ",")
            }
        } else {
            line += "\t-"
        }
        if let anchor = entry.anchor {
            let p = anchor.prefix
            line += "\t@\(p.characters).\(p.wordRuns).\(p.spaceRuns).\(p.nonWordRuns).\(p.anyRuns):" + anchor.literals.map(encode).joined(separator: ",")
        }
        return line
    }

    static func encode(_ literal: RequiredLiteral) -> String {
        var out = literal.wordStart ? "^" : ""
        for byte in literal.text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out + (literal.wordEnd ? "$" : "")
    }

    static func decode(_ field: Substring) -> RequiredLiteral? {
        var text = field
        let wordStart = text.first == "^"
        if wordStart { text = text.dropFirst() }
        let wordEnd = text.last == "$"
        if wordEnd { text = text.dropLast() }
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.first {
            utf8 = utf8.dropFirst()
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        guard !bytes.isEmpty else { return nil }
        return RequiredLiteral(text: String(decoding: bytes, as: UTF8.self), wordStart: wordStart, wordEnd: wordEnd)
    }

    /// Entries of a cache file; malformed lines are skipped (their patterns are analysed at load).
    static func parse(_ text: String) -> [Key: Entry] {
        var entries: [Key: Entry] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            var fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            let head = fields[0].split(separator: " ")
            guard fields.count >= 2, head.count == 2, let hash = UInt64(head[0], radix: 16), let length = Int(head[1]) else { continue }
            let key = Key(hash: hash, length: length)
            var entry = Entry()
            if let last = fields.last, last.hasPrefix("@") {
                guard let anchor = decodeAnchor(last.dropFirst()) else { continue }
                entry.anchor = anchor
                fields.removeLast()
            }
            guard fields.count >= 2 else { continue }
            if fields.count == 2 && fields[1] == "-" {
                entries[key] = entry
                continue
            }
            var groups: [[RequiredLiteral]] = []
            var valid = true
            for field in fields.dropFirst() {
                let literals = field.split(separator: ",").map(decode)
                if literals.isEmpty || literals.contains(where: { $0 == nil }) {
                    valid = false
                    break
                }
                groups.append(literals.compactMap { $0 })
            }
            entry.requirement = groups
            if valid { entries[key] = entry }
        }
        return entries
    }

    /// `C.W.S.N.A:literal,literal…`
    static func decodeAnchor(_ field: Substring) -> Anchor? {
        let parts = field.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        let numbers = parts[0].split(separator: ".").compactMap { Int($0) }
        guard numbers.count == 5, numbers.allSatisfy({ $0 >= 0 && $0 < LengthBound.limit }) else { return nil }
        let literals = parts[1].split(separator: ",").map(decode)
        guard !literals.isEmpty, !literals.contains(where: { $0 == nil }) else { return nil }
        return Anchor(
            literals: literals.compactMap { $0 },
            prefix: LengthBound(
                characters: numbers[0], wordRuns: numbers[1], spaceRuns: numbers[2], nonWordRuns: numbers[3], anyRuns: numbers[4]))
    }
}

extension CompiledRuleSet {
    /// The literal cache file for this rule set's patterns, analysed afresh (for
    /// `safegate dev generate-literal-cache`).
    public func literalCacheText() -> String {
        var lines = Set<String>()
        for rule in compiled {
            lines.insert(LiteralCache.line(for: rule.rule.pattern, entry: .analysing(rule.rule.pattern)))
        }
        return "# Generated by `safegate dev generate-literal-cache` from the bundled rules: see LiteralCache.swift.\n"
            + lines.sorted().joined(separator: "\n") + "\n"
    }

    /// Rule ids whose pattern's bundled cache entry is missing or differs from a fresh analysis.
    public func staleLiteralCacheEntries() -> [String] {
        compiled.compactMap { rule in
            let fresh = LiteralCache.Entry.analysing(rule.rule.pattern)
            guard let cached = LiteralCache.bundled[LiteralCache.Key(rule.rule.pattern)], cached == fresh else { return rule.rule.id }
            return nil
        }
    }
}
