/// Finds, for a pattern, groups of literal words such that every match contains at least one word
/// of each group.
///
/// `\b(kill|murder)\s+(the|a)\s+(process|child)` → `[["\bkill", "\bmurder"], ["child", "process"]]`.
/// The literal prefilter searches a rule on a view only when every group has a word there. The
/// analysis is conservative: anything it does not fully understand (backreferences, recursion,
/// conditionals, `(*ACCEPT)`, extended mode) counts as "could be anything", so the prefilter never
/// hides a match; a rule with no usable literal is simply always searched.
///
/// Literals are lowercased ASCII. Under PCRE2's caseless UCP matching an ASCII letter matches only
/// itself in either case, plus U+212A KELVIN SIGN for `k` and U+017F LONG S for `s` (checked
/// against every code point); the scanner maps those two. A non-ASCII character of a pattern
/// splits a literal (it may match ASCII text: `ı` matches `I`), so `öldür` yields `ld`.
///
/// A literal that a `\b` always precedes (follows) is marked `wordStart` (`wordEnd`) when its first
/// (last) character is an ASCII word character: the scanner then counts only occurrences not
/// preceded (followed) by an ASCII word character, so `\bates` is not found in "updates".
enum LiteralAnalysis {
    /// The requirement groups of `pattern` (at most `maximumGroups`, strongest first), or `nil`
    /// when no group of literals of at least `minimumLength` bytes can be proved.
    static func requirement(of pattern: String, minimumLength: Int = 3, maximumGroups: Int = 3) -> [[RequiredLiteral]]? {
        var parser = Parser(Array(pattern.unicodeScalars))
        guard let node = parser.parseAll() else { return nil }
        let info = node.info
        var sets = info.groups
        if let best = info.best { sets.append(best) }
        let strongest = sets.map { ($0, score($0)) }.filter { $0.1 >= minimumLength }
            .sorted { a, b in a.1 != b.1 ? a.1 > b.1 : a.0.count < b.0.count }.prefix(2 * maximumGroups)
        var groups: [(literals: [RequiredLiteral], score: Int)] = []
        for (set, _) in strongest {
            let literals = Self.literals(of: set)
            let score = literals.map(\.text.utf8.count).min() ?? 0
            guard score >= minimumLength, !groups.contains(where: { $0.literals == literals }) else { continue }
            groups.append((literals, score))
        }
        guard !groups.isEmpty else { return nil }
        // Strongest first: longer shortest literal, then fewer literals.
        groups.sort { a, b in a.score != b.score ? a.score > b.score : a.literals.count < b.literals.count }
        return groups.prefix(maximumGroups).map(\.literals)
    }

    /// The literals of one required set: each member's longest literal run, without redundant ones.
    static func literals(of set: Set<String>) -> [RequiredLiteral] {
        var literals: [RequiredLiteral] = []
        for member in set {
            let run = longestRun(member)
            if !literals.contains(run) { literals.append(run) }
        }
        // A literal found whenever another is found is redundant (quadratic: only for modest sets).
        if literals.count <= 64 {
            literals = literals.filter { literal in !literals.contains { $0 != literal && $0.isImplied(by: literal) } }
        }
        return literals.sorted()
    }

    /// The literal words of `pattern`'s strongest group (for tests and tools).
    static func requiredLiterals(of pattern: String, minimumLength: Int = 3) -> [String]? {
        requirement(of: pattern, minimumLength: minimumLength)?.first.map { $0.map(\.description) }
    }

    /// The pattern's structure as far as the analysis understands it, for lint's input generator.
    static func parse(_ pattern: String) -> PatternNode? {
        var parser = Parser(Array(pattern.unicodeScalars))
        let node = parser.parseAlternation()
        return parser.atEnd ? node : nil
    }

    /// Shorter literals are found in too many texts to be worth a group.
    static let usefulLength = 3

    /// The separator standing for a character that is not an ASCII literal.
    static let separator: Character = "\u{0}"
    static let separatorByte: UInt8 = 0
    /// The mark standing for a `\b` assertion inside exact strings.
    static let boundary = "\u{1}"
    static let boundaryByte: UInt8 = 1

    /// The parsed pattern, or nil when it uses something that makes the analysis unsafe.
    static func parseForAnalysis(_ pattern: String) -> PatternNode? {
        var parser = Parser(Array(pattern.unicodeScalars))
        return parser.parseAll()
    }

    /// How far from where a match attempt starts PCRE2 can read the subject, or nil when that is
    /// not bounded (or the pattern is not understood): `ahead` from the start (the longest match,
    /// plus the longest lookahead, plus one character for a `\b` or `$` at its end), `behind`
    /// before it (the longest lookbehind, plus one character for a `\b` at the start). Whether an
    /// attempt at a position succeeds, and what it matches, depends on those bytes alone, so two
    /// views with the same bytes there give the same attempt (`RuleMatcher`'s unchanged regions).
    static func inspectionBound(of pattern: String) -> InspectionBound? {
        var parser = Parser(Array(pattern.unicodeScalars))
        guard let node = parser.parseAll(), !parser.unboundedLookaround, let length = AnchorAnalysis.maximumLength(node) else {
            return nil
        }
        let ahead = length + parser.lookahead + LengthBound(characters: 1)
        let behind = parser.lookbehind + LengthBound(characters: 1)
        guard ahead.isReasonable, behind.isReasonable else { return nil }
        return InspectionBound(ahead: ahead, behind: behind)
    }

    /// The longest literal run of a member and how many characters of the member precede it
    /// (boundary marks are not characters).
    static func longestRunWithOffset(_ member: String) -> (RequiredLiteral, charactersBefore: Int) {
        let bytes = Array(member.utf8)
        var best = 0..<0
        var start = 0
        for (index, byte) in bytes.enumerated() where byte <= boundaryByte {
            if index - start > best.count { best = start..<index }
            start = index + 1
        }
        if bytes.count - start > best.count { best = start..<bytes.count }
        let text = bytes[best]
        let before = best.lowerBound > 0 && bytes[best.lowerBound - 1] == boundaryByte
        let after = best.upperBound < bytes.count && bytes[best.upperBound] == boundaryByte
        let literal = RequiredLiteral(
            text: String(decoding: text, as: UTF8.self),
            wordStart: before && !text.isEmpty && isWordByte(text.first!),
            wordEnd: after && !text.isEmpty && isWordByte(text.last!))
        return (literal, bytes[0..<best.lowerBound].count { $0 != boundaryByte })
    }

    /// The longest literal run of a member, with whether a `\b` is asserted right before / after it.
    static func longestRun(_ member: String) -> RequiredLiteral { longestRunWithOffset(member).0 }

    /// An ASCII byte that `\w` matches.
    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// How strong a requirement is: the shortest of its members' longest literal runs, in bytes.
    static func score(_ set: Set<String>) -> Int {
        var shortest = Int.max
        for member in set {
            let bytes = member.utf8
            var run = 0
            var longest = 0
            for byte in bytes {
                if byte <= boundaryByte {
                    run = 0
                } else {
                    run += 1
                    longest = max(longest, run)
                }
            }
            shortest = min(shortest, longest)
            if shortest == 0 { return 0 }
        }
        return shortest == .max ? 0 : shortest
    }

    /// The literal form of one pattern character: lowercased ASCII, or the separator.
    static func literal(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x41...0x5A: String(Character(Unicode.Scalar(scalar.value + 0x20)!))
        case 0x02...0x7F: String(Character(scalar))
        case 0x212A: "k"
        case 0x17F: "s"
        default: String(separator)
        }
    }
}

/// A word the prefilter looks for: lowercased ASCII, optionally only where no ASCII word character
/// precedes (`wordStart`) or follows (`wordEnd`) it.
struct RequiredLiteral: Hashable, Comparable, Sendable, CustomStringConvertible {
    var text: String
    var wordStart = false
    var wordEnd = false

    /// `\bkill`, `kill\b`, `kill`.
    var description: String { (wordStart ? "\\b" : "") + text + (wordEnd ? "\\b" : "") }

    /// Whether every occurrence that counts for `other` also counts for this literal.
    func isImplied(by other: RequiredLiteral) -> Bool {
        let mine = text.utf8, theirs = other.text.utf8
        guard mine.count <= theirs.count else { return false }
        if !wordStart && !wordEnd {
            // Byte search: String.contains goes through grapheme machinery, and lint-sized sets
            // make this quadratic loop hot at load time.
            let first = theirs.startIndex
            for offset in 0...(theirs.count - mine.count) {
                if theirs[theirs.index(first, offsetBy: offset)...].starts(with: mine) { return true }
            }
            return false
        }
        if wordStart && other.wordStart && !wordEnd { return theirs.starts(with: mine) }
        if wordEnd && other.wordEnd && !wordStart { return theirs.reversed().starts(with: mine.reversed()) }
        return text == other.text && (!wordStart || other.wordStart) && (!wordEnd || other.wordEnd)
    }

    static func < (a: RequiredLiteral, b: RequiredLiteral) -> Bool {
        if a.text != b.text { return a.text < b.text }
        if a.wordStart != b.wordStart { return !a.wordStart }
        return !a.wordEnd && b.wordEnd
    }
}

// MARK: - The pattern tree

/// As much of a pattern's structure as the analysis needs.
indirect enum PatternNode {
    /// Matches the empty string only (assertions, option settings, comments, lookarounds).
    case empty
    /// `\b`: matches the empty string between a word and a non-word character.
    case wordBoundary
    /// One of these single-character literals.
    case characters(Set<String>)
    /// Exactly one character of a known kind (`\s`, `\w`, `.`, a class): what bounds the length of
    /// a repetition of it (see `AnchorAnalysis`). Literal analysis treats it like `other`.
    case character(CharacterKind, samples: [String])
    /// Something that may match anything; `samples` are a few strings it does match, when known
    /// (lint builds adversarial input from them).
    case other(samples: [String])
    case concatenation([PatternNode])
    case alternation([PatternNode])
    case repetition(PatternNode, min: Int, max: Int?)

    /// What is known of the strings the node matches.
    var info: LiteralInfo {
        switch self {
        case .empty: return LiteralInfo(exact: [""], required: nil)
        case .wordBoundary: return LiteralInfo(exact: [LiteralAnalysis.boundary], required: nil)
        case .characters(let set): return LiteralInfo(exact: set, required: nil)
        case .character, .other: return LiteralInfo(exact: nil, required: nil)
        case .alternation(let branches):
            let infos = branches.map(\.info)
            var exact: Set<String>? = []
            for info in infos {
                guard let branch = info.exact, let sofar = exact, sofar.count + branch.count <= LiteralInfo.cap else {
                    exact = nil
                    break
                }
                exact = sofar.union(branch)
            }
            var required: Set<String>? = []
            for info in infos {
                guard let best = info.best, let sofar = required else {
                    required = nil
                    break
                }
                required = sofar.union(best)
            }
            return LiteralInfo(exact: exact, required: required, groups: Self.sharedGroups(of: infos, required: required))
        case .concatenation(let nodes):
            // Every candidate is required: the run of exact strings between two inexact nodes, and
            // each inexact node's own requirements.
            var candidates: [Set<String>] = []
            var run: Set<String> = [""]
            var allExact = true
            for node in nodes {
                if case .repetition(let body, let min, let max) = node, min >= 1, max != min, min <= 4,
                    let exact = body.info.exact, let copies = Self.product(run, exact, times: min)
                {
                    // `x{m,}`: its first m copies go on with the run, which ends there (more may
                    // follow), so `die+` requires "die", not just "di".
                    allExact = false
                    candidates.append(copies)
                    run = [""]
                    continue
                }
                let info = node.info
                if let exact = info.exact {
                    if run.count * exact.count <= LiteralInfo.cap {
                        var product = Set<String>()
                        for a in run { for b in exact { product.insert(a + b) } }
                        run = product
                    } else {
                        allExact = false
                        candidates.append(run)
                        run = exact
                    }
                } else {
                    allExact = false
                    candidates.append(run)
                    run = [""]
                    candidates += info.groups
                    if let required = info.required { candidates.append(required) }
                }
            }
            candidates.append(run)
            // The strongest few, strongest first (longer shortest literal, then fewer members).
            let scored = candidates.filter { !$0.contains("") }.map { ($0, LiteralAnalysis.score($0)) }
                .filter { $0.1 > 0 }
                .sorted { a, b in a.1 != b.1 ? a.1 > b.1 : a.0.count < b.0.count }
            let groups = scored.filter { $0.1 >= LiteralAnalysis.usefulLength }.prefix(LiteralInfo.groupCap).map(\.0)
            return LiteralInfo(exact: allExact ? run : nil, required: scored.first?.0, groups: Array(groups))
        case .repetition(let node, let min, let max):
            let info = node.info
            if min == 0 {
                if max == 1, let exact = info.exact { return LiteralInfo(exact: exact.union([""]), required: nil) }
                return LiteralInfo(exact: nil, required: nil)
            }
            if min == max, let exact = info.exact, min <= 4 {
                var product: Set<String> = [""]
                for _ in 0..<min {
                    guard product.count * exact.count <= LiteralInfo.cap else {
                        return LiteralInfo(exact: nil, required: info.best, groups: info.groups)
                    }
                    var next = Set<String>()
                    for a in product { for b in exact { next.insert(a + b) } }
                    product = next
                }
                return LiteralInfo(exact: product, required: nil)
            }
            return LiteralInfo(exact: nil, required: info.best, groups: info.groups)
        }
    }
}

extension PatternNode {
    /// Every concatenation of `prefix` and `times` members of `exact`, or nil when there would be
    /// more than `LiteralInfo.cap`.
    static func product(_ prefix: Set<String>, _ exact: Set<String>, times: Int) -> Set<String>? {
        var product = prefix
        for _ in 0..<times {
            guard product.count * exact.count <= LiteralInfo.cap else { return nil }
            var next = Set<String>()
            for a in product { for b in exact { next.insert(a + b) } }
            product = next
        }
        return product
    }

    /// The requirements of an alternation: the union of its branches' strongest ones, and the
    /// unions of requirements the branches share. Each branch contributes one set to a union, so
    /// every union is required; seeded with each requirement of the first branch, every other
    /// branch adds its requirement most like the seed (most members in common, then strongest),
    /// so that a list of words all branches require in some way (the same people, the same
    /// verbs) becomes a group of its own instead of being lost in the union of the strongest.
    static func sharedGroups(of infos: [LiteralInfo], required: Set<String>?) -> [Set<String>] {
        var groups: [Set<String>] = required.map { [$0] } ?? []
        guard infos.count > 1 else { return groups }
        let options: [[Set<String>]] = infos.map { info in
            var sets: [Set<String>] = []
            for set in (info.best.map { [$0] } ?? []) + info.groups where !set.contains("") && !sets.contains(set) {
                sets.append(set)
            }
            return sets
        }
        guard options.allSatisfy({ !$0.isEmpty }) else { return groups }
        for seed in options[0] {
            var union = seed
            for other in options.dropFirst() {
                let pick = other.max { a, b in
                    let (sharedA, sharedB) = (a.intersection(seed).count, b.intersection(seed).count)
                    return sharedA != sharedB ? sharedA < sharedB : LiteralAnalysis.score(a) < LiteralAnalysis.score(b)
                }!
                union.formUnion(pick)
            }
            if union.count <= LiteralInfo.unionCap && !groups.contains(union) { groups.append(union) }
        }
        let scored: [(set: Set<String>, score: Int)] = groups.map { ($0, LiteralAnalysis.score($0)) }
        let kept = scored.filter { $0.score >= LiteralAnalysis.usefulLength || $0.set == required }
        let ranked = kept.sorted { a, b in a.score != b.score ? a.score > b.score : a.set.count < b.set.count }
        return ranked.prefix(LiteralInfo.groupCap).map(\.set)
    }
}

/// What is known of a node's matches.
struct LiteralInfo {
    /// Largest union of shared requirements kept as a group.
    static let unionCap = 512
    /// Largest set tracked.
    static let cap = 32
    /// Most groups kept per node.
    static let groupCap = 4
    /// Every string the node can match, when few enough.
    var exact: Set<String>?
    /// Strings of which every match contains one (the strongest such set known).
    var required: Set<String>?
    /// Other sets of which every match contains one member each (a match of `a.*b` contains an
    /// `a` and a `b`).
    var groups: [Set<String>] = []

    /// The strongest requirement known: the exact set when it has no empty member.
    var best: Set<String>? {
        if let exact, !exact.contains("") {
            guard let required else { return exact }
            return LiteralAnalysis.score(required) > LiteralAnalysis.score(exact) ? required : exact
        }
        return required
    }
}

/// See `LiteralAnalysis.inspectionBound(of:)`.
struct InspectionBound: Hashable, Sendable {
    var ahead: LengthBound
    var behind: LengthBound
}

// MARK: - Parsing PCRE2 syntax (the subset that matters; the rest is `.other`)

private struct Parser {
    let chars: [Unicode.Scalar]
    var i = 0
    /// Set when the pattern uses something that makes the analysis unsafe.
    var unsafe = false
    /// The longest lookahead and lookbehind bodies seen (`AnchorAnalysis.maximumLength`), and
    /// whether one was unbounded (or a backtracking verb was seen): for
    /// `LiteralAnalysis.inspectionBound(of:)`.
    var lookahead = LengthBound()
    var lookbehind = LengthBound()
    var unboundedLookaround = false

    mutating func noteLookaround(_ body: PatternNode, behind: Bool) {
        guard let length = AnchorAnalysis.maximumLength(body) else {
            unboundedLookaround = true
            return
        }
        if behind { lookbehind = lookbehind.union(length) } else { lookahead = lookahead.union(length) }
    }

    init(_ chars: [Unicode.Scalar]) { self.chars = chars }

    var atEnd: Bool { i >= chars.count }
    func peek(_ offset: Int = 0) -> Unicode.Scalar? { i + offset < chars.count ? chars[i + offset] : nil }

    mutating func parseAll() -> PatternNode? {
        let node = parseAlternation()
        guard !unsafe, atEnd else { return nil }
        return node
    }

    /// branch ( '|' branch )*, up to an unmatched ')' or the end.
    mutating func parseAlternation() -> PatternNode {
        var branches = [parseConcatenation()]
        while peek() == "|" {
            i += 1
            branches.append(parseConcatenation())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    mutating func parseConcatenation() -> PatternNode {
        var nodes: [PatternNode] = []
        while let c = peek(), c != "|", c != ")" {
            guard let atom = parseAtom() else { continue }
            if let (min, max) = parseQuantifier() {
                nodes.append(.repetition(atom, min: min, max: max))
            } else {
                nodes.append(atom)
            }
            if unsafe { return .other(samples: []) }
        }
        return .concatenation(nodes)
    }

    /// `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`, each optionally followed by `+` or `?`.
    mutating func parseQuantifier() -> (Int, Int?)? {
        var result: (Int, Int?)?
        switch peek() {
        case "*": result = (0, nil); i += 1
        case "+": result = (1, nil); i += 1
        case "?": result = (0, 1); i += 1
        case "{":
            var j = i + 1
            var first = ""
            while j < chars.count, chars[j].properties.numericType == .decimal, chars[j].isASCII { first.unicodeScalars.append(chars[j]); j += 1 }
            guard !first.isEmpty, j < chars.count else { return nil }
            if chars[j] == "}" {
                let n = Int(first) ?? 0
                result = (n, n)
                i = j + 1
            } else if chars[j] == "," {
                j += 1
                var second = ""
                while j < chars.count, chars[j].isASCII, chars[j].properties.numericType == .decimal { second.unicodeScalars.append(chars[j]); j += 1 }
                guard j < chars.count, chars[j] == "}" else { return nil }
                result = (Int(first) ?? 0, second.isEmpty ? nil : Int(second))
                i = j + 1
            } else {
                return nil
            }
        default: return nil
        }
        if peek() == "+" || peek() == "?" { i += 1 }
        return result
    }

    /// One atom, or nil for something that matches nothing and takes no quantifier (a comment…).
    mutating func parseAtom() -> PatternNode? {
        let c = chars[i]
        i += 1
        switch c {
        case "\\": return parseEscape()
        case ".": return .character(.any, samples: ["a", " ", "!"])
        case "^", "$": return .empty
        case "[": return parseClass()
        case "(": return parseGroup()
        default: return .characters([LiteralAnalysis.literal(c)])
        }
    }

    mutating func parseEscape() -> PatternNode {
        guard let c = peek() else { return .other(samples: []) }
        i += 1
        switch c {
        case "b": return .wordBoundary
        case "B", "A", "z", "Z", "G", "K", "E": return .empty
        case "w": return .character(.word, samples: ["a", "5", "é"])
        case "W": return .character(.nonWord, samples: [" ", "!", "-"])
        case "d": return .character(.word, samples: ["1"])
        case "D", "S": return .character(.any, samples: ["a", "!"])
        // \X is a grapheme cluster (several characters), \C refused: neither is one character.
        case "X", "C": return .other(samples: ["a", "!"])
        case "s", "h", "v": return .character(.space, samples: [" ", "\t"])
        // \R may match two characters (CR LF).
        case "R": return .other(samples: ["\n"])
        case "H", "V": return .character(.any, samples: ["a"])
        case "N":
            if peek() == "{" {
                skip(past: "}")
                return .character(.any, samples: ["a"])
            }
            return .character(.any, samples: ["a"])
        case "p", "P":
            if peek() == "{" { skip(past: "}") } else { i += 1 }
            return .character(.any, samples: ["a", "é", "1", " "])
        case "x":
            if peek() == "{" {
                let start = i + 1
                skip(past: "}")
                return scalarNode(hex: String(String.UnicodeScalarView(chars[start..<max(start, i - 1)])))
            }
            var digits = ""
            while digits.count < 2, let d = peek(), d.isASCII, d.properties.isASCIIHexDigit { digits.unicodeScalars.append(d); i += 1 }
            return scalarNode(hex: digits.isEmpty ? "0" : digits)
        case "o":
            if peek() == "{" { skip(past: "}") }
            return .other(samples: [])
        case "c":
            i += 1
            return .other(samples: [])
        case "t": return .characters([LiteralAnalysis.literal("\t")])
        case "n": return .characters([LiteralAnalysis.literal("\n")])
        case "r": return .characters([LiteralAnalysis.literal("\r")])
        case "f": return .characters([LiteralAnalysis.literal("\u{0C}")])
        case "e": return .characters([LiteralAnalysis.literal("\u{1B}")])
        case "a": return .characters([LiteralAnalysis.literal("\u{07}")])
        case "g", "k":
            if let open = peek(), open == "{" || open == "<" || open == "'" {
                skip(past: open == "{" ? "}" : open == "<" ? ">" : "'")
            } else {
                if peek() == "-" || peek() == "+" { i += 1 }
                while let d = peek(), d.isASCII, d.properties.numericType == .decimal { i += 1 }
            }
            return .other(samples: [])
        case "Q":
            var nodes: [PatternNode] = []
            while !atEnd {
                if peek() == "\\" && peek(1) == "E" {
                    i += 2
                    break
                }
                nodes.append(.characters([LiteralAnalysis.literal(chars[i])]))
                i += 1
            }
            return .concatenation(nodes)
        default:
            if c.isASCII && (c.properties.isAlphabetic || c.properties.numericType == .decimal) {
                // Backreferences, octal escapes, and anything else with a letter: unknown.
                while let d = peek(), d.isASCII, d.properties.numericType == .decimal { i += 1 }
                return .other(samples: [])
            }
            return .characters([LiteralAnalysis.literal(c)])
        }
    }

    func scalarNode(hex: String) -> PatternNode {
        guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return .other(samples: []) }
        return .characters([LiteralAnalysis.literal(scalar)])
    }

    mutating func skip(past terminator: Unicode.Scalar) {
        while let c = peek() {
            i += 1
            if c == terminator { return }
        }
    }

    /// `[...]`: a small set of literal characters, or one character of a kind.
    mutating func parseClass() -> PatternNode {
        var negated = false
        if peek() == "^" {
            negated = true
            i += 1
        }
        var members = Set<String>()
        var samples: [String] = []
        var complex = negated
        var first = true
        // Whether every member is a word character (`\w` under UCP), or whitespace, or non-ASCII
        // (which both runs of `AnchorAnalysis` count): what kind of character the class is.
        var wordOnly = !negated
        var spaceOnly = !negated
        var nonWordOnly = !negated
        func classify(_ scalar: Unicode.Scalar) {
            if !scalar.isASCII { return }
            let byte = UInt8(scalar.value)
            if LiteralAnalysis.isWordByte(byte) { nonWordOnly = false } else { wordOnly = false }
            if !AnchorAnalysis.isSpaceByte(byte) { spaceOnly = false }
        }
        while let c = peek() {
            if c == "]" && !first {
                i += 1
                break
            }
            first = false
            i += 1
            if c == "[" && (peek() == ":" || peek() == "." || peek() == "=") {
                let close = peek()!
                while let d = peek() {
                    i += 1
                    if d == close && peek() == "]" {
                        i += 1
                        break
                    }
                }
                complex = true
                wordOnly = false
                spaceOnly = false
                nonWordOnly = false
                continue
            }
            var member: Unicode.Scalar? = c
            if c == "\\" {
                guard let e = peek() else { break }
                i += 1
                switch e {
                case "x":
                    if peek() == "{" {
                        let start = i + 1
                        skip(past: "}")
                        member = UInt32(String(String.UnicodeScalarView(chars[start..<max(start, i - 1)])), radix: 16).flatMap(Unicode.Scalar.init)
                    } else {
                        var digits = ""
                        while digits.count < 2, let d = peek(), d.isASCII, d.properties.isASCIIHexDigit { digits.unicodeScalars.append(d); i += 1 }
                        member = UInt32(digits.isEmpty ? "0" : digits, radix: 16).flatMap(Unicode.Scalar.init)
                    }
                    if member == nil {
                        wordOnly = false
                        spaceOnly = false
                        nonWordOnly = false
                    }
                case "p", "P", "N":
                    if peek() == "{" { skip(past: "}") } else { i += 1 }
                    member = nil
                    wordOnly = false
                    spaceOnly = false
                    nonWordOnly = false
                case "Q":
                    while !atEnd {
                        if peek() == "\\" && peek(1) == "E" {
                            i += 2
                            break
                        }
                        members.insert(LiteralAnalysis.literal(chars[i]))
                        samples.append(String(Character(chars[i])))
                        classify(chars[i])
                        i += 1
                    }
                    continue
                case "E": continue
                case "t": member = "\t"
                case "n": member = "\n"
                case "r": member = "\r"
                default:
                    member = (e.isASCII && (e.properties.isAlphabetic || e.properties.numericType == .decimal)) ? nil : e
                    switch e {
                    case "d": samples.append("1"); spaceOnly = false; nonWordOnly = false
                    case "w": samples += ["a", "é"]; spaceOnly = false; nonWordOnly = false
                    case "s", "h", "v": samples.append(" "); wordOnly = false
                    case "W": samples.append("!"); wordOnly = false; spaceOnly = false
                    case "S", "D": samples.append("!"); wordOnly = false; spaceOnly = false; nonWordOnly = false
                    default:
                        if member == nil {
                            wordOnly = false
                            spaceOnly = false
                            nonWordOnly = false
                        }
                    }
                }
                if member == nil { complex = true }
            }
            // A range: `a-z` (a `-` before `]` is literal).
            if peek() == "-", let next = peek(1), next != "]" {
                complex = true
                if let member { samples.append(String(Character(member))) }
                i += 1
                if next == "\\" {
                    i += 2
                    wordOnly = false
                    spaceOnly = false
                    nonWordOnly = false
                } else {
                    i += 1
                    // a-z, A-Z, 0-9 and their parts hold only word characters.
                    let ranges: [ClosedRange<Unicode.Scalar>] = ["a"..."z", "A"..."Z", "0"..."9"]
                    if let member, !ranges.contains(where: { $0.contains(member) && $0.contains(next) }) { wordOnly = false }
                    spaceOnly = false
                    nonWordOnly = false
                }
                continue
            }
            if let member {
                members.insert(LiteralAnalysis.literal(member))
                samples.append(String(Character(member)))
                classify(member)
            }
        }
        let kind: CharacterKind = wordOnly ? .word : spaceOnly ? .space : nonWordOnly ? .nonWord : .any
        if negated {
            let candidates = ["a", "z", " ", "!", "0", "é", "\n"]
            return .character(.any, samples: candidates.filter { !samples.contains($0) })
        }
        if complex || members.isEmpty || members.count > 10 { return .character(kind, samples: samples) }
        return .characters(members)
    }

    /// Everything after `(`.
    mutating func parseGroup() -> PatternNode {
        if peek() == "*" {
            // (*VERB), (*VERB:arg), or an alpha assertion like (*pla:...).
            var name = ""
            var j = i + 1
            while j < chars.count, chars[j].isASCII, chars[j].properties.isAlphabetic || chars[j] == "_" {
                name.unicodeScalars.append(chars[j])
                j += 1
            }
            if name.uppercased() == "ACCEPT" { unsafe = true }
            let lookarounds: Set<String> = [
                "pla", "plb", "nla", "nlb", "napla", "naplb", "positive_lookahead", "positive_lookbehind",
                "negative_lookahead", "negative_lookbehind", "non_atomic_positive_lookahead",
                "non_atomic_positive_lookbehind",
            ]
            let bodies: Set<String> = ["atomic", "sr", "asr", "script_run", "atomic_script_run"]
            if j < chars.count, chars[j] == ":", !name.isEmpty, name == name.lowercased() {
                i = j + 1
                let body = parseAlternation()
                if peek() == ")" { i += 1 } else { unsafe = true }
                if bodies.contains(name) { return body }
                if lookarounds.contains(name) { noteLookaround(body, behind: name.hasSuffix("b") || name.hasSuffix("behind")) }
                return lookarounds.contains(name) ? .empty : .other(samples: [])
            }
            // A backtracking verb ((*COMMIT), (*SKIP), (*PRUNE)…) or a start-of-pattern option:
            // verbs make one start position's outcome depend on another's.
            if !name.isEmpty, name == name.uppercased() { unboundedLookaround = true }
            skip(past: ")")
            return .empty
        }
        guard peek() == "?" else { return groupBody() }
        i += 1
        guard let c = peek() else { return .other(samples: []) }
        switch c {
        case ":", "|", ">":
            i += 1
            return groupBody()
        case "=", "!":
            i += 1
            noteLookaround(groupBody(), behind: false)
            return .empty
        case "<":
            if peek(1) == "=" || peek(1) == "!" {
                i += 2
                noteLookaround(groupBody(), behind: true)
                return .empty
            }
            skip(past: ">")
            return groupBody()
        case "P":
            if peek(1) == "<" {
                skip(past: ">")
                return groupBody()
            }
            skip(past: ")")  // (?P=name) backreference, (?P>name) subroutine call
            return .other(samples: [])
        case "'":
            i += 1
            skip(past: "'")
            return groupBody()
        case "#":
            skip(past: ")")
            return .empty
        case "(":
            // Conditional group: skip the condition, then the branches; the result is unknown.
            i += 1
            if peek() == "?" || peek() == "*" {
                _ = parseGroup()
            } else {
                skip(past: ")")
            }
            _ = groupBody()
            return .other(samples: [])
        case "C":
            skip(past: ")")
            return .empty
        default:
            // Option settings: (?i) (?-i) (?^) (?i:...); recursion and subroutines: (?R) (?1) (?&name).
            var j = i
            var options = ""
            while j < chars.count, chars[j] != ")", chars[j] != ":" {
                options.unicodeScalars.append(chars[j])
                j += 1
            }
            let isOptions = options.unicodeScalars.allSatisfy { "imnsxJU-^".unicodeScalars.contains($0) }
            guard isOptions else {
                skip(past: ")")
                return .other(samples: [])
            }
            if options.contains("x") { unsafe = true }
            i = j + 1
            if j < chars.count, chars[j] == ":" { return groupBody() }
            return .empty
        }
    }

    /// The alternation up to the closing `)`, which is consumed.
    mutating func groupBody() -> PatternNode {
        let body = parseAlternation()
        if peek() == ")" { i += 1 } else { unsafe = true }
        return body
    }
}
