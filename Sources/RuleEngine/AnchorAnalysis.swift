/// Finds, for a pattern, an *anchor*: literal words of which every match contains one, starting
/// at most a bounded distance after the start of the match.
///
/// `\b(?:i|we)\s+(?:want|need)\s+to\s+kill` → the anchor `want`/`need`, at most two characters and
/// one run of whitespace after the match start. The matcher then searches a rule only from just
/// before each occurrence of an anchor word, with PCRE2's offset limit stopping the search at the
/// occurrence (`RuleMatcher`, "windows"): on a 1 KB prompt it tries a few dozen start positions
/// instead of a thousand. Results are the same as searching the whole view, because no match can
/// start anywhere else.
///
/// The distance is a `LengthBound`: characters, plus runs of word characters, of whitespace and of
/// anything, which a view turns into bytes with its longest runs (`RunStats`). `\s+` is at most
/// the view's longest run of whitespace; `(?:\w+\W+){0,3}` at most three word runs and three
/// runs of anything. Anything the analysis does not understand (backreferences, `\X`, a repeated
/// group without an upper bound before the anchor) means no anchor: the rule is searched whole.
enum AnchorAnalysis {
    /// The anchor of `pattern`, or nil: of words of at least `LiteralAnalysis.usefulLength`
    /// bytes, or, when there is none or its windows would span the whole text, of two-letter
    /// words ("rp", "18") if that is cheaper.
    static func anchor(of pattern: String) -> Anchor? {
        guard let node = LiteralAnalysis.parseForAnalysis(pattern) else { return nil }
        let long = anchor(node, minimumLength: LiteralAnalysis.usefulLength)
        if let long, long.prefix.anyRuns == 0 { return long }
        // Two-letter words occur often inside and between words: only a last resort.
        guard let short = anchor(node, minimumLength: 2) else { return long }
        guard let long else { return short }
        return short.expectedCost < long.expectedCost ? short : long
    }

    static func anchor(_ node: PatternNode, minimumLength: Int) -> Anchor? {
        switch node {
        case .concatenation(let nodes):
            // Consecutive exact nodes form strings ("\bkill" is six nodes). Every run of them whose
            // every string holds a long enough literal is a candidate, and so is every other node
            // that holds an anchor, as long as everything before it is bounded; the candidate whose
            // words are expected least often wins ("the\s+walking\s+dead" → `walking`, not `the`).
            var candidates: [Anchor] = []
            var prefix = LengthBound()
            var run: Set<String> = [""]
            var runStart = LengthBound()
            scan: for node in nodes {
                if let exact = node.info.exact, let length = maximumLength(node) {
                    if run.count * exact.count <= LiteralInfo.cap {
                        var product = Set<String>()
                        for a in run { for b in exact { product.insert(a + b) } }
                        run = product
                    } else {
                        if let found = exactAnchor(run, at: runStart, minimumLength: minimumLength) { candidates.append(found) }
                        run = exact
                        runStart = prefix
                    }
                    prefix = prefix + length
                    continue
                }
                if let found = exactAnchor(run, at: runStart, minimumLength: minimumLength) { candidates.append(found) }
                if let inner = anchor(node, minimumLength: minimumLength) {
                    candidates.append(Anchor(literals: inner.literals, prefix: prefix + inner.prefix))
                }
                guard let length = maximumLength(node) else {
                    run = [""]
                    break scan
                }
                prefix = prefix + length
                run = [""]
                runStart = prefix
            }
            if let found = exactAnchor(run, at: runStart, minimumLength: minimumLength) { candidates.append(found) }
            // The first of the cheapest: ties go to the one nearest the match start.
            var best: Anchor?
            for candidate in candidates where best == nil || candidate.expectedCost < best!.expectedCost {
                best = candidate
            }
            return best
        case .alternation(let branches):
            if let exact = node.info.exact, let found = exactAnchor(exact, at: LengthBound(), minimumLength: minimumLength) {
                return found
            }
            var literals = Set<RequiredLiteral>()
            var prefix = LengthBound()
            for branch in branches {
                guard let inner = anchor(branch, minimumLength: minimumLength) else { return nil }
                literals.formUnion(inner.literals)
                prefix = prefix.union(inner.prefix)
            }
            return Anchor(literals: literals.sorted(), prefix: prefix)
        case .repetition(let body, let min, _) where min >= 1:
            // The first repetition starts where the repetition starts.
            return anchor(body, minimumLength: minimumLength)
        default:
            return nil
        }
    }

    /// A part of a pattern that matches one of a few exact strings, starting `start` into the
    /// match: an anchor when every string holds a literal run of `minimumLength` bytes (the runs,
    /// at most as far in as the latest one starts).
    static func exactAnchor(_ exact: Set<String>, at start: LengthBound, minimumLength: Int) -> Anchor? {
        guard !exact.isEmpty else { return nil }
        var literals = Set<RequiredLiteral>()
        var offset = 0
        for member in exact {
            let (literal, charactersBefore) = LiteralAnalysis.longestRunWithOffset(member)
            guard literal.text.utf8.count >= minimumLength else { return nil }
            literals.insert(literal)
            offset = Swift.max(offset, charactersBefore)
        }
        return Anchor(literals: literals.sorted(), prefix: start + LengthBound(characters: offset))
    }

    /// The most a match of `node` can span, or nil when unbounded (or not understood).
    static func maximumLength(_ node: PatternNode) -> LengthBound? {
        switch node {
        case .empty, .wordBoundary: return LengthBound()
        case .characters, .character: return LengthBound(characters: 1)
        case .other: return nil
        case .concatenation(let nodes):
            var total = LengthBound()
            for node in nodes {
                guard let length = maximumLength(node) else { return nil }
                total = total + length
            }
            return total.isReasonable ? total : nil
        case .alternation(let branches):
            var most = LengthBound()
            for branch in branches {
                guard let length = maximumLength(branch) else { return nil }
                most = most.union(length)
            }
            return most
        case .repetition(let body, _, let max):
            if let max {
                guard let one = maximumLength(body) else { return nil }
                let total = one.times(max)
                return total.isReasonable ? total : nil
            }
            // Unbounded: only a run of one kind of character is bounded, by the view's longest run.
            switch body {
            case .character(let kind, _): return LengthBound(run: kind)
            case .characters(let set): return LengthBound(run: kind(of: set))
            default: return nil
            }
        }
    }

    /// The kind of a set of literal characters (lowercased ASCII, or the separator standing for a
    /// non-ASCII character, which runs of every kind count).
    static func kind(of set: Set<String>) -> CharacterKind {
        var word = true
        var space = true
        var nonWord = true
        for member in set {
            for byte in member.utf8 where byte != LiteralAnalysis.separatorByte {
                if LiteralAnalysis.isWordByte(byte) { nonWord = false } else { word = false }
                if !isSpaceByte(byte) { space = false }
            }
        }
        return word ? .word : space ? .space : nonWord ? .nonWord : .any
    }

    /// ASCII whitespace as PCRE2's `\s` has it: tab, LF, VT, FF, CR, space.
    @inline(__always)
    static func isSpaceByte(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
}

/// Literal words of which every match contains one, starting at most `prefix` after the match
/// starts (see `AnchorAnalysis`).
struct Anchor: Hashable, Sendable {
    var literals: [RequiredLiteral]
    var prefix: LengthBound

    /// A rough guess at what the anchor costs on a kilobyte of prompt text, in bytes searched:
    /// each occurrence of its words is a window (a PCRE2 call, worth about `callCost` bytes) in
    /// which PCRE2 tries every start position up to `prefix` bytes before the word. Only used to
    /// choose between anchors of one pattern: a later, rarer word is worth a longer window.
    var expectedCost: Double { expectedOccurrences * (Self.callCost + prefix.typicalBytes) }

    /// How often the anchor's words are guessed to occur in a kilobyte of prompt text.
    var expectedOccurrences: Double { literals.reduce(0) { $0 + Self.expectedOccurrences(of: $1) } }

    /// A PCRE2 call, in bytes of window searched (about 100 ns against a few ns per position).
    static let callCost = 25.0

    /// Common words (English and ASCII-folded Turkish) are guessed at a few per kilobyte; other
    /// literals by length, and twice as often when they may start inside a word (two letters:
    /// also when they may end inside one). The ratios follow counts over the eval corpus.
    static func expectedOccurrences(of literal: RequiredLiteral) -> Double {
        let text = literal.text
        var guess: Double
        if commonWords.contains(text) {
            guess = 4
        } else {
            switch text.utf8.count {
            case ...3: guess = 1
            case 4: guess = 0.5
            case 5: guess = 0.25
            case 6: guess = 0.12
            default: guess = 0.06
            }
        }
        if !literal.wordStart { guess *= 2 }
        if !literal.wordEnd && text.utf8.count <= 2 { guess *= 2 }
        return guess
    }

    /// Words that turn up in almost any prompt of some length.
    static let commonWords: Set<String> = [
        // English
        "about", "after", "again", "all", "also", "an", "and", "any", "are", "as", "at", "back", "be", "because",
        "been", "before", "but", "by", "can", "could", "day", "did", "do", "does", "don", "down", "each", "even",
        "every", "first", "for", "from", "get", "go", "going", "good", "got", "had", "has", "have", "he", "help",
        "her", "here", "him", "his", "how", "if", "in", "into", "is", "it", "its", "just", "know", "last", "like",
        "make", "many", "me", "more", "much", "my", "need", "new", "next", "no", "not", "now", "of", "off", "on",
        "one", "only", "or", "other", "our", "out", "over", "people", "please", "really", "said", "say", "see", "she",
        "should", "so", "some", "something", "still", "tell", "than", "that", "the", "their", "them", "then", "there",
        "they", "thing", "things", "think", "this", "time", "to", "today", "too", "two", "up", "us", "very", "want",
        "was", "way", "we", "week", "well", "were", "what", "when", "where", "which", "who", "why", "will", "with",
        "would", "yes", "you", "your",
        // Turkish, ASCII-folded as the ascii view holds it
        "ama", "artik", "bana", "ben", "beni", "benim", "bile", "bir", "biz", "bu", "bugun", "butun", "cok", "da",
        "daha", "de", "degil", "diye", "gibi", "gun", "hem", "her", "hic", "icin", "icinde", "ile", "istiyorum",
        "kadar", "ki", "lutfen", "mi", "mu", "nasil", "ne", "neden", "olan", "olarak", "oldu", "olsun", "olur", "ona",
        "once", "onu", "sana", "sen", "seni", "senin", "sey", "simdi", "siz", "sonra", "tum", "var", "ve", "ya",
        "yardim", "yarin", "yok", "zaman",
    ]
}

/// What one pattern character class can match, for bounding runs of it. Non-ASCII characters
/// belong to every kind (under UCP they may be letters or spaces).
enum CharacterKind: Sendable, Hashable {
    /// ASCII letters, digits, `_` (what `\w` matches in ASCII).
    case word
    /// ASCII whitespace (what `\s` matches in ASCII).
    case space
    /// Anything but ASCII letters, digits and `_` (what `\W` matches in ASCII).
    case nonWord
    /// Anything.
    case any
}

/// An upper bound on the bytes a part of a match spans, as characters plus runs of characters of
/// each kind; `bytes(in:)` evaluates it for one view.
struct LengthBound: Hashable, Sendable {
    var characters = 0
    var wordRuns = 0
    var spaceRuns = 0
    var nonWordRuns = 0
    var anyRuns = 0

    init(characters: Int = 0, wordRuns: Int = 0, spaceRuns: Int = 0, nonWordRuns: Int = 0, anyRuns: Int = 0) {
        self.characters = characters
        self.wordRuns = wordRuns
        self.spaceRuns = spaceRuns
        self.nonWordRuns = nonWordRuns
        self.anyRuns = anyRuns
    }

    /// One run of characters of `kind`.
    init(run kind: CharacterKind) {
        switch kind {
        case .word: self.init(wordRuns: 1)
        case .space: self.init(spaceRuns: 1)
        case .nonWord: self.init(nonWordRuns: 1)
        case .any: self.init(anyRuns: 1)
        }
    }

    static func + (a: LengthBound, b: LengthBound) -> LengthBound {
        LengthBound(
            characters: a.characters &+ b.characters, wordRuns: a.wordRuns &+ b.wordRuns, spaceRuns: a.spaceRuns &+ b.spaceRuns,
            nonWordRuns: a.nonWordRuns &+ b.nonWordRuns, anyRuns: a.anyRuns &+ b.anyRuns)
    }

    /// A bound of both (each term the larger).
    func union(_ other: LengthBound) -> LengthBound {
        LengthBound(
            characters: max(characters, other.characters), wordRuns: max(wordRuns, other.wordRuns),
            spaceRuns: max(spaceRuns, other.spaceRuns), nonWordRuns: max(nonWordRuns, other.nonWordRuns),
            anyRuns: max(anyRuns, other.anyRuns))
    }

    func times(_ count: Int) -> LengthBound {
        let n = min(count, Self.limit)
        return LengthBound(
            characters: characters.multipliedReportingOverflow(by: n).partialValue, wordRuns: min(wordRuns * n, Self.limit),
            spaceRuns: min(spaceRuns * n, Self.limit), nonWordRuns: min(nonWordRuns * n, Self.limit), anyRuns: min(anyRuns * n, Self.limit))
    }

    /// Terms beyond this are treated as unbounded (and keep arithmetic far from overflow).
    static let limit = 1 << 20

    var isReasonable: Bool {
        characters >= 0 && characters < Self.limit && wordRuns < Self.limit && spaceRuns < Self.limit && nonWordRuns < Self.limit
            && anyRuns < Self.limit
    }

    /// The bound in bytes on a typical kilobyte of prose (words of up to 12 letters, a space or
    /// two, punctuation runs of up to four; a run of anything spans the whole text).
    var typicalBytes: Double {
        Double(characters) + Double(wordRuns) * 12 + Double(spaceRuns) * 2 + Double(nonWordRuns) * 4 + Double(anyRuns) * 1024
    }

    /// Whether the bound counts runs (and so needs the view's `RunStats`).
    var hasRuns: Bool { wordRuns != 0 || spaceRuns != 0 || nonWordRuns != 0 || anyRuns != 0 }

    /// The bound in bytes of a view with these longest runs; `ascii`: one byte per character.
    @inline(__always)
    func bytes(in stats: RunStats, ascii: Bool) -> Int {
        characters * (ascii ? 1 : 4) + wordRuns * stats.longestWordRun + spaceRuns * stats.longestSpaceRun + nonWordRuns
            * stats.longestNonWordRun + anyRuns * stats.count
    }
}

/// The longest runs of a view's bytes, in bytes. Every byte of a non-ASCII character counts in
/// every kind of run (it may be a letter or a space under UCP), so the runs bound what `\w+` and
/// `\s+` can match whatever the view holds.
struct RunStats: Sendable, Equatable {
    var longestWordRun = 0
    var longestSpaceRun = 0
    var longestNonWordRun = 0
    var count = 0

    init(longestWordRun: Int = 0, longestSpaceRun: Int = 0, longestNonWordRun: Int = 0, count: Int = 0) {
        self.longestWordRun = longestWordRun
        self.longestSpaceRun = longestSpaceRun
        self.longestNonWordRun = longestNonWordRun
        self.count = count
    }

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        var counter = RunCounter()
        Self.runKinds.withUnsafeBufferPointer { kinds in
            for byte in bytes { counter.add(kind: Int(kinds[Int(byte)])) }
        }
        self = counter.stats(count: bytes.count)
    }

    /// Per byte, the runs it extends: 1 word, 2 space, 4 non-word (a non-ASCII byte all three).
    static let runKinds: [UInt8] = (0..<256).map { value in
        let byte = UInt8(value)
        if byte >= 0x80 { return 7 }
        if LiteralAnalysis.isWordByte(byte) { return 1 }
        return AnchorAnalysis.isSpaceByte(byte) ? 6 : 4
    }
}

/// The runs ending at the byte just counted and the longest so far, one byte at a time (for
/// `RunStats.init` and the literal scan, which measures them in its own pass).
struct RunCounter {
    private var word = 0
    private var space = 0
    private var nonWord = 0
    private var longestWord = 0
    private var longestSpace = 0
    private var longestNonWord = 0

    /// One byte of `kind` (`RunStats.runKinds`: 1 word, 2 space, 4 non-word). Branch-free: a run
    /// grows by one byte or drops to zero (the mask is 0 or all ones).
    @inline(__always)
    mutating func add(kind: Int) {
        word = (word &+ 1) & -(kind & 1)
        space = (space &+ 1) & -((kind >> 1) & 1)
        nonWord = (nonWord &+ 1) & -((kind >> 2) & 1)
        longestWord = max(longestWord, word)
        longestSpace = max(longestSpace, space)
        longestNonWord = max(longestNonWord, nonWord)
    }

    /// `count` more non-ASCII bytes, which extend every run.
    @inline(__always)
    mutating func addNonASCII(_ count: Int) {
        word &+= count
        space &+= count
        nonWord &+= count
        longestWord = max(longestWord, word)
        longestSpace = max(longestSpace, space)
        longestNonWord = max(longestNonWord, nonWord)
    }

    func stats(count: Int) -> RunStats {
        RunStats(longestWordRun: longestWord, longestSpaceRun: longestSpace, longestNonWordRun: longestNonWord, count: count)
    }
}
