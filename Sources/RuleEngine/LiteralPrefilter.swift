/// Where an anchor literal occurs in a view: the byte offsets where it starts at the earliest and
/// at the latest (they differ when a mapped letter, three bytes for one `k`, may lie inside it),
/// and the index of the previous occurrence of the same literal in the view's list (-1 for none),
/// so that a rule walks only its own literals.
struct LiteralOccurrence: Sendable {
    var earliest: Int32
    var latest: Int32
    var previous: Int32
}

/// What the literal scan of one view found: the literals (a flag per literal, and the list of
/// those set, so that clearing costs what was found, not the number of literals), and every
/// occurrence of an anchor literal, chained per literal from the last one.
struct ScanState {
    var found: [Bool]
    var foundIDs: [Int32] = []
    /// Per literal, its last occurrence in `occurrences`; valid only where `found` is set.
    var lastOccurrence: [Int32]
    var occurrences: [LiteralOccurrence] = []
    /// The view's longest runs, measured in the same pass (anchored windows need them; the extra
    /// work runs beside the scan's chain of dependent table loads, so it costs little time).
    var runs = RunStats()

    init(literalCount: Int) {
        found = Array(repeating: false, count: literalCount)
        lastOccurrence = Array(repeating: -1, count: literalCount)
    }

    /// Forgets everything found (for the next text).
    mutating func clear() {
        for id in foundIDs { found[Int(id)] = false }
        foundIDs.removeAll(keepingCapacity: true)
        occurrences.removeAll(keepingCapacity: true)
        runs = RunStats()
    }
}

/// One pass over a view that tells which rules' required literals occur in it.
///
/// An Aho–Corasick automaton over every rule's required literals (see `LiteralAnalysis`), run on
/// the view's bytes with ASCII letters lowercased and U+212A / U+017F read as `k` / `s`, the only
/// non-ASCII characters that PCRE2's caseless matching equates with ASCII letters. A literal marked
/// `wordStart` / `wordEnd` counts only where no ASCII word character precedes / follows it (a
/// non-ASCII neighbour always counts: under UCP it may or may not be a word character). A rule is
/// then searched on a view only when every one of its requirement groups has a literal there.
/// Built once per rule set; immutable and shared.
struct LiteralPrefilter: Sendable {
    /// Every distinct literal.
    let literals: [RequiredLiteral]
    /// For each compiled rule, its groups as ranges of `groupMembers`, or nil when the rule is
    /// always searched.
    let ruleGroups: [[Range<Int>]?]
    /// Literal ids of every group, one group after another.
    let groupMembers: [Int]
    /// Byte length and boundary flags (1: word start, 2: word end) of each literal.
    /// Per literal: its byte length (low 16 bits), boundary flags (bits 16–17: word start, word
    /// end) and whether it belongs to an anchor (bit 18), in one word for the scan's inner loop.
    private let literalInfo: [UInt32]
    /// Byte → input class (0: a byte that occurs in no literal; capitals have their small letter's
    /// class) in the low byte, and the runs it extends (`RunStats.runKinds`) in the high byte: one
    /// load per byte for both.
    private let byteFacts: [UInt16]
    private let classCount: Int
    /// `transitions[state * classCount + class]` → next state, with the top bit set when that
    /// state recognises a literal: 16 bits per entry while the automaton has under 32,768 states
    /// (the table is then half the size, and the scan's cache misses with it), else 32.
    private let compactTransitions: [UInt16]?
    private let wideTransitions: [UInt32]?
    /// The literal ids recognised on entering each state (its own and its suffixes').
    private let outputStart: [Int32]
    private let outputIDs: [Int32]
    /// For each literal, the rules whose first group holds it:
    /// `postingRules[postingStart[literal]..<postingStart[literal + 1]]`.
    private let postingStart: [Int32]
    private let postingRules: [Int32]
    /// Rules without a requirement (always searched), as a bit set.
    let alwaysSearched: [UInt64]
    let ruleCount: Int
    /// For each rule, the ids of its anchor's literals (`AnchorAnalysis`), or nil.
    let anchorLiterals: [[Int32]?]
    /// For each rule, the anchor's bound on how far into a match its literal starts.
    let anchorPrefix: [LengthBound]

    var literalCount: Int { literals.count }

    init(requirements: [[[RequiredLiteral]]?], anchors: [Anchor?] = []) {
        var literals: [RequiredLiteral] = []
        var idByLiteral: [RequiredLiteral: Int] = [:]
        func id(of literal: RequiredLiteral) -> Int {
            if let id = idByLiteral[literal] { return id }
            idByLiteral[literal] = literals.count
            literals.append(literal)
            return literals.count - 1
        }
        var ruleGroups: [[Range<Int>]?] = []
        var groupMembers: [Int] = []
        for requirement in requirements {
            guard let requirement, !requirement.isEmpty else {
                ruleGroups.append(nil)
                continue
            }
            var ranges: [Range<Int>] = []
            for group in requirement {
                let start = groupMembers.count
                for literal in group { groupMembers.append(id(of: literal)) }
                ranges.append(start..<groupMembers.count)
            }
            ruleGroups.append(ranges)
        }
        var anchorLiterals: [[Int32]?] = []
        var anchorPrefix: [LengthBound] = []
        for rule in requirements.indices {
            let anchor = rule < anchors.count ? anchors[rule] : nil
            anchorLiterals.append(anchor.map { $0.literals.map { Int32(id(of: $0)) } })
            anchorPrefix.append(anchor?.prefix ?? LengthBound())
        }
        var isAnchorLiteral = [Bool](repeating: false, count: literals.count)
        for ids in anchorLiterals { for id in ids ?? [] { isAnchorLiteral[Int(id)] = true } }
        self.anchorLiterals = anchorLiterals
        self.anchorPrefix = anchorPrefix
        self.literals = literals
        self.ruleGroups = ruleGroups
        self.groupMembers = groupMembers
        ruleCount = requirements.count
        var postings = [[Int32]](repeating: [], count: literals.count)
        var always = [UInt64](repeating: 0, count: RuleBits.words(for: requirements.count))
        for (rule, groups) in ruleGroups.enumerated() {
            guard let first = groups?.first else {
                always[rule >> 6] |= 1 << UInt64(rule & 63)
                continue
            }
            for member in first where postings[groupMembers[member]].last != Int32(rule) {
                postings[groupMembers[member]].append(Int32(rule))
            }
        }
        var postingStart: [Int32] = [0]
        for rules in postings { postingStart.append(postingStart.last! + Int32(rules.count)) }
        self.postingStart = postingStart
        postingRules = postings.flatMap { $0 }
        alwaysSearched = always
        literalInfo = literals.indices.map { id in
            let literal = literals[id]
            return UInt32(min(literal.text.utf8.count, 0xFFFF)) | (literal.wordStart ? 1 << 16 : 0) | (literal.wordEnd ? 1 << 17 : 0)
                | (isAnchorLiteral[id] ? 1 << 18 : 0)
        }

        // Input classes: one per distinct byte used by some literal.
        var byteClass = [UInt8](repeating: 0, count: 256)
        var classes = 1
        for literal in literals {
            for byte in literal.text.utf8 where byteClass[Int(byte)] == 0 {
                byteClass[Int(byte)] = UInt8(truncatingIfNeeded: classes)
                classes += 1
            }
        }
        // Literals are ASCII (at most 128 classes), so classes fit in a byte. The scan reads capitals
        // as small letters: they share a class (literals hold no capitals).
        var scanClass = byteClass
        for capital in UInt8(ascii: "A")...UInt8(ascii: "Z") { scanClass[Int(capital)] = byteClass[Int(capital | 0x20)] }
        byteFacts = (0..<256).map { UInt16(scanClass[$0]) | UInt16(RunStats.runKinds[$0]) << 8 }
        classCount = classes

        // One state per distinct prefix of a literal, plus the root: counted first, so the table is
        // allocated once, at its final size and width.
        let texts = literals.map { Array($0.text.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
        var stateCount = 1
        for index in texts.indices {
            var common = 0
            if index > 0 {
                let previous = texts[index - 1], text = texts[index]
                while common < min(previous.count, text.count) && previous[common] == text[common] { common += 1 }
            }
            stateCount += texts[index].count - common
        }
        let outputs: [[Int32]]
        if stateCount < 0x8000 {
            let built = Self.automaton(literals, byteClass: byteClass, classes: classes, stateCount: stateCount, outputFlag: UInt16(0x8000))
            compactTransitions = built.table
            wideTransitions = nil
            outputs = built.outputs
        } else {
            let built = Self.automaton(literals, byteClass: byteClass, classes: classes, stateCount: stateCount, outputFlag: UInt32(0x8000_0000))
            compactTransitions = nil
            wideTransitions = built.table
            outputs = built.outputs
        }
        var outputStart: [Int32] = [0]
        for ids in outputs { outputStart.append(outputStart.last! + Int32(ids.count)) }
        self.outputStart = outputStart
        outputIDs = outputs.flatMap { $0 }
    }

    /// The Aho–Corasick automaton as a full transition table (`table[state * classes + class]`,
    /// the top bit set on entries leading to a state that recognises a literal) and each state's
    /// literals. The trie is built in the table itself (0, the root, stands for "no edge": no edge
    /// leads back to the root), then a breadth-first pass sets failure links and fills every
    /// missing entry from the failure state's row. Class 0 (bytes in no literal) leads to the root.
    private static func automaton<Entry: FixedWidthInteger & UnsignedInteger>(
        _ literals: [RequiredLiteral], byteClass: [UInt8], classes: Int, stateCount: Int, outputFlag: Entry
    ) -> (table: [Entry], outputs: [[Int32]]) {
        var table = [Entry](repeating: 0, count: stateCount * classes)
        var outputs = [[Int32]](repeating: [], count: stateCount)
        table.withUnsafeMutableBufferPointer { table in
            var created = 1
            for (id, literal) in literals.enumerated() {
                var state = 0
                for byte in literal.text.utf8 {
                    let slot = state * classes + Int(byteClass[Int(byte)])
                    if table[slot] == 0 {
                        table[slot] = Entry(created)
                        created += 1
                    }
                    state = Int(table[slot])
                }
                outputs[state].append(Int32(id))
            }
            var fail = [Int](repeating: 0, count: stateCount)
            var queue: [Int] = []
            queue.reserveCapacity(stateCount)
            for cls in 1..<max(classes, 1) where table[cls] != 0 { queue.append(Int(table[cls])) }
            var head = 0
            while head < queue.count {
                let state = queue[head]
                head += 1
                let failState = fail[state]
                if !outputs[failState].isEmpty {
                    outputs[state] += outputs[failState].filter { !outputs[state].contains($0) }
                }
                let row = state * classes
                let failRow = failState * classes
                for cls in 1..<classes {
                    let child = table[row + cls]
                    if child != 0 {
                        fail[Int(child)] = Int(table[failRow + cls])
                        queue.append(Int(child))
                    } else {
                        table[row + cls] = table[failRow + cls]
                    }
                }
            }
            for index in 0..<table.count where !outputs[Int(table[index])].isEmpty { table[index] |= outputFlag }
        }
        return (table, outputs)
    }

    /// Whether rule `index` may match a view whose literals are `found`.
    @inline(__always)
    func admits(rule index: Int, found: [Bool]) -> Bool {
        guard let groups = ruleGroups[index] else { return true }
        for group in groups {
            var any = false
            for member in group where found[groupMembers[member]] {
                any = true
                break
            }
            if !any { return false }
        }
        return true
    }

    /// Records in `record` (cleared) every literal that occurs in `bytes`, every occurrence of an
    /// anchor literal and the longest runs of the bytes (`RunStats`), and sets the rules that may
    /// match in `candidates` (`RuleBits` words): those always searched, and those with a literal of
    /// their first group found.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, into record: inout ScanState, candidates: UnsafeMutableBufferPointer<UInt64>) {
        for word in candidates.indices { candidates[word] = alwaysSearched[word] }
        guard !literals.isEmpty else {
            record.runs = RunStats(bytes)
            return
        }
        if let compactTransitions {
            compactTransitions.withUnsafeBufferPointer { scan(bytes, table: $0, outputFlag: 0x8000, into: &record, candidates: candidates) }
        } else if let wideTransitions {
            wideTransitions.withUnsafeBufferPointer { scan(bytes, table: $0, outputFlag: 0x8000_0000, into: &record, candidates: candidates) }
        }
    }

    @inline(__always)
    private func scan<Entry: FixedWidthInteger & UnsignedInteger>(
        _ bytes: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<Entry>, outputFlag: Entry, into record: inout ScanState,
        candidates: UnsafeMutableBufferPointer<UInt64>
    ) {
        let classCount = classCount
        record.runs = byteFacts.withUnsafeBufferPointer { byteFacts in
                literalInfo.withUnsafeBufferPointer { info in
                    outputStart.withUnsafeBufferPointer { outputStart in
                        outputIDs.withUnsafeBufferPointer { outputIDs in
                            postingStart.withUnsafeBufferPointer { postingStart in
                                postingRules.withUnsafeBufferPointer { postingRules in
                                    Self.scanLoop(
                                        bytes, table: table, outputFlag: outputFlag, byteFacts: byteFacts, classCount: classCount,
                                        outputs: Outputs(
                                            info: info, outputStart: outputStart, outputIDs: outputIDs, postingStart: postingStart,
                                            postingRules: postingRules),
                                        into: &record, candidates: candidates)
                                }
                            }
                        }
                    }
                }
        }
    }

    /// The tables `scanLoop` reads when the automaton recognises a literal.
    private struct Outputs {
        let info: UnsafeBufferPointer<UInt32>
        let outputStart: UnsafeBufferPointer<Int32>
        let outputIDs: UnsafeBufferPointer<Int32>
        let postingStart: UnsafeBufferPointer<Int32>
        let postingRules: UnsafeBufferPointer<Int32>
    }

    /// The scan itself, every table a pointer and every running value a local: in the closures
    /// of `scan` the loop's variables were captured and lived in memory (a load and a store per
    /// byte each), and the index arithmetic checked for overflow. Returns the runs.
    @inline(__always)
    private static func scanLoop<Entry: FixedWidthInteger & UnsignedInteger>(
        _ bytes: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<Entry>, outputFlag: Entry, byteFacts: UnsafeBufferPointer<UInt16>,
        classCount: Int, outputs: Outputs, into record: inout ScanState, candidates: UnsafeMutableBufferPointer<UInt64>
    ) -> RunStats {
        let n = bytes.count
        guard let base = bytes.baseAddress else { return RunStats() }
        let end = base + n
        var p = base
        var state = 0
        /// Where the last byte that stood for a mapped non-ASCII letter ended: near it, byte
        /// offsets are not literal offsets, so boundary checks give way.
        var mappedEnd = -64
        // The runs (see `RunStats.init`): each byte extends a run of its kinds or ends it.
        var runs = RunCounter()
        while p < end {
            let byte = p.pointee
            p += 1
            let facts = Int(byteFacts[Int(byte)])
            runs.add(kind: facts >> 8)
            var letterClass = facts & 0xFF
            if byte >= 0x80 {
                var skipped = 0
                if byte == 0xE2, end - p >= 2, p[0] == 0x84, p[1] == 0xAA {
                    letterClass = Int(byteFacts[Int(UInt8(ascii: "k"))] & 0xFF)  // U+212A KELVIN SIGN
                    skipped = 2
                } else if byte == 0xC5, p < end, p[0] == 0xBF {
                    letterClass = Int(byteFacts[Int(UInt8(ascii: "s"))] & 0xFF)  // U+017F LATIN SMALL LETTER LONG S
                    skipped = 1
                }
                if skipped > 0 {
                    // The letter's other bytes, non-ASCII, extend every run.
                    p += skipped
                    mappedEnd = base.distance(to: p)
                    runs.addNonASCII(skipped)
                }
            }
            let entry = table[state &* classCount &+ letterClass]
            state = Int(entry & ~outputFlag)
            guard entry & outputFlag != 0 else { continue }
            recordOutputs(
                of: state, end: base.distance(to: p), mappedEnd: mappedEnd, bytes: bytes, outputs: outputs, into: &record,
                candidates: candidates)
        }
        return runs.stats(count: n)
    }

    /// The literals recognised on entering `state` at `end`: each found for the first time sets its
    /// rules as candidates, and each occurrence of an anchor literal is recorded.
    @inline(never)
    private static func recordOutputs(
        of state: Int, end i: Int, mappedEnd: Int, bytes: UnsafeBufferPointer<UInt8>, outputs: Outputs, into record: inout ScanState,
        candidates: UnsafeMutableBufferPointer<UInt64>
    ) {
        for k in Int(outputs.outputStart[state])..<Int(outputs.outputStart[state &+ 1]) {
            let id = outputs.outputIDs[k]
            let literal = Int(id)
            let facts = outputs.info[literal]
            let anchor = facts & (1 << 18) != 0
            let seen = record.found[literal]
            if seen && !anchor { continue }
            let flags = UInt8(truncatingIfNeeded: (facts >> 16) & 3)
            let length = Int(facts & 0xFFFF)
            guard
                flags == 0 || i - mappedEnd < length + 3
                    || Self.boundaryHolds(flags, end: i, length: length, in: bytes)
            else { continue }
            if anchor {
                // A mapped letter (3 bytes for one `k`) may lie inside the occurrence.
                let slack = mappedEnd > i - 3 * length ? 2 * length : 0
                record.occurrences.append(
                    LiteralOccurrence(
                        earliest: Int32(clamping: max(0, i - length - slack)), latest: Int32(clamping: i - length),
                        previous: seen ? record.lastOccurrence[literal] : -1))
                record.lastOccurrence[literal] = Int32(record.occurrences.count - 1)
            }
            if !seen {
                record.found[literal] = true
                record.foundIDs.append(id)
                for p in Int(outputs.postingStart[literal])..<Int(outputs.postingStart[literal &+ 1]) {
                    let rule = outputs.postingRules[p]
                    candidates[Int(rule) >> 6] |= 1 << UInt64(rule & 63)
                }
            }
        }
    }

    /// Whether the occurrence ending at `end` has no ASCII word character where its flags forbid one.
    @inline(__always)
    static func boundaryHolds(_ flags: UInt8, end: Int, length: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if flags & 1 != 0 {
            let before = end - length - 1
            if before >= 0 && LiteralAnalysis.isWordByte(bytes[before]) { return false }
        }
        if flags & 2 != 0 {
            if end < bytes.count && LiteralAnalysis.isWordByte(bytes[end]) { return false }
        }
        return true
    }
}
