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
/// requirement. Then, when the pattern's reach is bounded (`LiteralAnalysis.inspectionBound(of:)`),
/// a field `>AHEAD/BEHIND`, each bound written `CHARACTERS.WORDRUNS.SPACERUNS.NONWORDRUNS.ANYRUNS`.
/// Then, when the pattern has an anchor (`AnchorAnalysis`), a last field `@` + a bound + `:` and
/// its literals, encoded the same way.
enum LiteralCache {
    static let bundledPath = "rules/literal-cache.tsv"

    /// What the analyses found for one pattern.
    struct Entry: Equatable, Sendable {
        var requirement: [[RequiredLiteral]]?
        var anchor: Anchor?
        var inspection: InspectionBound?

        /// The analyses, run now.
        static func analysing(_ pattern: String) -> Entry {
            Entry(
                requirement: LiteralAnalysis.requirement(of: pattern), anchor: AnchorAnalysis.anchor(of: pattern),
                inspection: LiteralAnalysis.inspectionBound(of: pattern))
        }
    }

    /// The bundled entries (parsed once).
    static let bundled: [Key: Entry] = parse(BundledResources.text(at: bundledPath) ?? "")

    struct Key: Hashable {
        var hash: UInt64
        var length: Int

        init(_ pattern: String) {
            // Over the contiguous UTF-8 (every bundled pattern, 325 KB, is hashed at start-up).
            var pattern = pattern
            self = pattern.withUTF8 { bytes in
                var hash: UInt64 = 0xCBF2_9CE4_8422_2325
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
                return Key(hash: hash, length: bytes.count)
            }
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

    /// Only the literal requirement of `pattern` (all an `unless` pattern needs): from the cache,
    /// else the requirement analysis alone.
    static func requirement(of pattern: String) -> [[RequiredLiteral]]? {
        if let cached = bundled[Key(pattern)] { return cached.requirement }
        return LiteralAnalysis.requirement(of: pattern)
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
        if let inspection = entry.inspection {
            line += "\t>" + encode(inspection.ahead) + "/" + encode(inspection.behind)
        }
        if let anchor = entry.anchor {
            line += "\t@" + encode(anchor.prefix) + ":" + anchor.literals.map(encode).joined(separator: ",")
        }
        return line
    }

    static func encode(_ p: LengthBound) -> String {
        "\(p.characters).\(p.wordRuns).\(p.spaceRuns).\(p.nonWordRuns).\(p.anyRuns)"
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

    /// Entries of a cache file; malformed lines are skipped (their patterns are analysed at load).
    ///
    /// Works on the UTF-8 bytes: the same parse over `Substring`s was a fifth of the start-up.
    static func parse(_ text: String) -> [Key: Entry] {
        var text = text
        return text.withUTF8 { bytes in
            var entries: [Key: Entry] = [:]
            entries.reserveCapacity(bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
            var position = 0
            while position < bytes.count {
                let start = position
                while position < bytes.count && bytes[position] != 0x0A { position += 1 }
                let line = UnsafeBufferPointer(rebasing: bytes[start..<position])
                position += 1
                guard let first = line.first, first != UInt8(ascii: "#") else { continue }
                if let (key, entry) = parseLine(line) { entries[key] = entry }
            }
            return entries
        }
    }

    /// One line: `HASH LENGTH`, then the groups (or `-`), then maybe `>` and the inspection bound,
    /// then maybe `@` and the anchor.
    static func parseLine(_ line: UnsafeBufferPointer<UInt8>) -> (Key, Entry)? {
        var fields = split(line, at: 0x09)
        guard fields.count >= 2 else { return nil }
        let head = split(fields[0], at: 0x20).filter { !$0.isEmpty }
        guard head.count == 2, let hash = number(head[0], radix: 16), let length = number(head[1], radix: 10), length <= Int.max
        else { return nil }
        let key = Key(hash: hash, length: Int(length))
        var entry = Entry()
        if let last = fields.last, last.first == UInt8(ascii: "@") {
            guard let anchor = decodeAnchor(UnsafeBufferPointer(rebasing: last.dropFirst())) else { return nil }
            entry.anchor = anchor
            fields.removeLast()
        }
        if let last = fields.last, last.first == UInt8(ascii: ">") {
            let parts = split(UnsafeBufferPointer(rebasing: last.dropFirst()), at: UInt8(ascii: "/"))
            guard parts.count == 2, let ahead = decodeBound(parts[0]), let behind = decodeBound(parts[1]) else { return nil }
            entry.inspection = InspectionBound(ahead: ahead, behind: behind)
            fields.removeLast()
        }
        guard fields.count >= 2 else { return nil }
        if fields.count == 2 && fields[1].count == 1 && fields[1][0] == UInt8(ascii: "-") { return (key, entry) }
        var groups: [[RequiredLiteral]] = []
        groups.reserveCapacity(fields.count - 1)
        for field in fields.dropFirst() {
            guard let literals = decodeList(field) else { return nil }
            groups.append(literals)
        }
        entry.requirement = groups
        return (key, entry)
    }

    /// `literal,literal…`: nil when empty or when one does not decode.
    static func decodeList(_ field: UnsafeBufferPointer<UInt8>) -> [RequiredLiteral]? {
        var literals: [RequiredLiteral] = []
        literals.reserveCapacity(field.reduce(1) { $0 + ($1 == UInt8(ascii: ",") ? 1 : 0) })
        var start = 0
        for end in 0...field.count where end == field.count || field[end] == UInt8(ascii: ",") {
            if end > start {
                guard let literal = decode(UnsafeBufferPointer(rebasing: field[start..<end])) else { return nil }
                literals.append(literal)
            }
            start = end + 1
        }
        return literals.isEmpty ? nil : literals
    }

    static func decode(_ field: UnsafeBufferPointer<UInt8>) -> RequiredLiteral? {
        var lower = 0
        var upper = field.count
        let wordStart = lower < upper && field[lower] == UInt8(ascii: "^")
        if wordStart { lower += 1 }
        let wordEnd = lower < upper && field[upper - 1] == UInt8(ascii: "$")
        if wordEnd { upper -= 1 }
        guard lower < upper else { return nil }
        // Most literals are plain letters: no copy to decode.
        if !field[lower..<upper].contains(UInt8(ascii: "%")) {
            let text = String(decoding: UnsafeBufferPointer(rebasing: field[lower..<upper]), as: UTF8.self)
            return RequiredLiteral(text: text, wordStart: wordStart, wordEnd: wordEnd)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(upper - lower)
        var index = lower
        while index < upper {
            let byte = field[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < upper,
                    let high = hexValue(field[index + 1]), let low = hexValue(field[index + 2])
                else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(byte)
                index += 1
            }
        }
        guard !bytes.isEmpty else { return nil }
        return RequiredLiteral(text: String(decoding: bytes, as: UTF8.self), wordStart: wordStart, wordEnd: wordEnd)
    }

    /// `C.W.S.N.A:literal,literal…`
    static func decodeAnchor(_ field: UnsafeBufferPointer<UInt8>) -> Anchor? {
        guard let colon = field.firstIndex(of: UInt8(ascii: ":")),
            let prefix = decodeBound(UnsafeBufferPointer(rebasing: field[..<colon])),
            let literals = decodeList(UnsafeBufferPointer(rebasing: field[(colon + 1)...]))
        else { return nil }
        return Anchor(literals: literals, prefix: prefix)
    }

    /// `C.W.S.N.A`
    static func decodeBound(_ field: UnsafeBufferPointer<UInt8>) -> LengthBound? {
        let numbers = split(field, at: UInt8(ascii: ".")).filter { !$0.isEmpty }.map { number($0, radix: 10) }
        guard numbers.count == 5, numbers.allSatisfy({ $0.map { $0 < UInt64(LengthBound.limit) } ?? false }) else { return nil }
        let values = numbers.map { Int($0 ?? 0) }
        return LengthBound(characters: values[0], wordRuns: values[1], spaceRuns: values[2], nonWordRuns: values[3], anyRuns: values[4])
    }

    /// The parts of `bytes` between separators, empty ones included.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, at separator: UInt8) -> [UnsafeBufferPointer<UInt8>] {
        var parts: [UnsafeBufferPointer<UInt8>] = []
        var start = 0
        for index in 0..<bytes.count where bytes[index] == separator {
            parts.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            start = index + 1
        }
        parts.append(UnsafeBufferPointer(rebasing: bytes[start...]))
        return parts
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// An unsigned number of at most 16 hex or 18 decimal digits.
    static func number(_ bytes: UnsafeBufferPointer<UInt8>, radix: UInt64) -> UInt64? {
        guard !bytes.isEmpty, bytes.count <= (radix == 16 ? 16 : 18) else { return nil }
        var value: UInt64 = 0
        for byte in bytes {
            guard let digit = hexValue(byte), UInt64(digit) < radix else { return nil }
            value = value * radix + UInt64(digit)
        }
        return value
    }
}

extension CompiledRuleSet {
    /// The literal cache file for this rule set's patterns, analysed afresh (for
    /// `safegate dev generate-literal-cache`).
    public func literalCacheText() -> String {
        var lines = Set<String>()
        for rule in compiled {
            for pattern in [rule.rule.pattern] + rule.rule.unless {
                lines.insert(LiteralCache.line(for: pattern, entry: .analysing(pattern)))
            }
        }
        return "# Generated by `safegate dev generate-literal-cache` from the bundled rules: see LiteralCache.swift.\n"
            + lines.sorted().joined(separator: "\n") + "\n"
    }

    /// Rule ids whose pattern's or an `unless` pattern's bundled cache entry is missing or differs
    /// from a fresh analysis.
    public func staleLiteralCacheEntries() -> [String] {
        compiled.compactMap { rule in
            for pattern in [rule.rule.pattern] + rule.rule.unless {
                let fresh = LiteralCache.Entry.analysing(pattern)
                guard let cached = LiteralCache.bundled[LiteralCache.Key(pattern)], cached == fresh else { return rule.rule.id }
            }
            return nil
        }
    }
}
