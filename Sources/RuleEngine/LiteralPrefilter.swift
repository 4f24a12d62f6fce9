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
    /// The ids of the literals found, the first `foundCount` (a buffer of one per literal).
    var foundIDs: [Int32]
    var foundCount = 0
    /// Per literal, its last occurrence in `occurrences`; valid only where `found` is set.
    var lastOccurrence: [Int32]
    /// The recorded occurrences are the first `occurrenceCount`: the array is a buffer kept from
    /// text to text, which the scan writes through a pointer (appending checked the array's
    /// uniqueness and capacity, a call per occurrence).
    var occurrences: [LiteralOccurrence] = []
    var occurrenceCount = 0
    /// The view's longest runs, measured in the same pass (anchored windows need them; the extra
    /// work runs beside the scan's chain of dependent table loads, so it costs little time).
    var runs = RunStats()
    /// Whether the occurrences of group literals were recorded too (`LiteralPrefilter.groupBit`).
    var groupOccurrences = false

    init(literalCount: Int) {
        found = Array(repeating: false, count: literalCount)
        foundIDs = Array(repeating: 0, count: literalCount)
        lastOccurrence = Array(repeating: -1, count: literalCount)
    }

    /// Makes room for `count` occurrences in the buffer.
    mutating func reserveOccurrences(_ count: Int) {
        guard occurrences.count < count else { return }
        occurrences += repeatElement(LiteralOccurrence(earliest: 0, latest: 0, previous: -1), count: count - occurrences.count)
    }

    /// Appends to `windows` the start positions a match can have around each occurrence of the
    /// literals in `anchor` (ids): from `reach` bytes before the occurrence to it, each literal's
    /// occurrences last first; returns how many of the literals were found. It changes nothing,
    /// but it is `mutating` so that the caller's `scans[slot].appendWindows(…)` accesses the
    /// state in place: borrowed, it was copied (four arrays retained and released), and read
    /// from the matcher, each closure over an array retained and released it.
    mutating func appendWindows(anchor: UnsafeBufferPointer<Int32>, reach: Int, to windows: inout [ClosedRange<Int>]) -> Int {
        var literals = 0
        found.withUnsafeBufferPointer { found in
            lastOccurrence.withUnsafeBufferPointer { last in
                occurrences.withUnsafeBufferPointer { occurrences in
                    for id in anchor where found[Int(id)] {
                        literals += 1
                        var index = last[Int(id)]
                        while index >= 0 {
                            let occurrence = occurrences[Int(index)]
                            windows.append(max(0, Int(occurrence.earliest) - reach)...Int(occurrence.latest))
                            index = occurrence.previous
                        }
                    }
                }
            }
        }
        return literals
    }

    /// Forgets everything found (for the next text).
    mutating func clear() {
        for id in foundIDs[0..<foundCount] { found[Int(id)] = false }
        foundCount = 0
        occurrenceCount = 0
        runs = RunStats()
        groupOccurrences = false
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
    /// Per literal: its byte length (low 16 bits), boundary flags (bits 16–17: word start, word
    /// end) and whether its occurrences are recorded (`anchorBit`: always, it belongs to an
    /// anchor; `groupBit`: in views of `proximityBytes` or more, it belongs to a group of
    /// `proximityGroups`), in one word for the scan's inner loop.
    let literalInfo: [UInt32]
    /// Byte → input class of the literals' bytes (0: a byte that occurs in no literal).
    let byteClass: [UInt8]
    /// What the scan reads of a byte: its class (capitals have their small letter's class) in the
    /// low byte, and the runs it extends (`RunStats.runKinds`) in the high byte: one load for both.
    private let byteFacts: [UInt16]
    let classCount: Int
    /// Rows of the transition table are `1 << strideShift` entries apart (the class count rounded
    /// up to a power of two): the scan finds a row with a shift, not a multiply, in the chain of
    /// dependent loads that sets its pace. The padding is never read.
    let strideShift: Int
    /// `transitions[state << strideShift + class]` → next state, with the top bit set when that
    /// state recognises a literal: 16 bits per entry while the automaton has under 32,768 states
    /// (the table is then half the size, and the scan's cache misses with it), else 32.
    let compactTransitions: [UInt16]?
    let wideTransitions: [UInt32]?
    /// The literal ids recognised on entering each state (its own and its suffixes').
    let outputStart: [Int32]
    let outputIDs: [Int32]
    /// For each literal, the rules whose first group holds it:
    /// `postingRules[postingStart[literal]..<postingStart[literal + 1]]`.
    let postingStart: [Int32]
    let postingRules: [Int32]
    /// Rules without a requirement (always searched), as a bit set.
    let alwaysSearched: [UInt64]
    let ruleCount: Int
    /// For each rule, the ids of its anchor's literals (`AnchorAnalysis`), or nil.
    let anchorLiterals: [[Int32]?]
    /// For each rule, the anchor's bound on how far into a match its literal starts.
    let anchorPrefix: [LengthBound]
    /// For each rule whose matches have a bounded length and that has an anchor, the groups
    /// (ranges of `groupMembers`) a window must have an occurrence of nearby: those that do not
    /// hold every anchor literal (a window has one of those already). Nil: no check.
    let proximityGroups: [[Range<Int>]?]
    /// For each rule, the groups of each of its `unless` patterns (ranges of `groupMembers`; nil:
    /// always searched). Their literals are in the automaton, so the scan finds them, but they
    /// make no rule a candidate: a rule's unless patterns are searched only after its own pattern
    /// matched, and then only those whose every group has a literal in the view.
    let unlessGroups: [[[Range<Int>]?]]

    var literalCount: Int { literals.count }

    static let anchorBit: UInt32 = 1 << 18
    static let groupBit: UInt32 = 1 << 19
    /// The shortest view in which windows are checked for nearby group literals: in a short
    /// prompt every word is near every other, and recording their occurrences would cost more
    /// than the searches it saves.
    static let proximityBytes = 256

    /// The same prefilter, but the arrays read per candidate rule (groups, anchors) in buffers of
    /// its own: each `RuleMatcher` holds one, so that two threads never retain and release the
    /// same buffer (an atomic on a cache line both cores write, which made `--jobs 2` slower per
    /// record than one job). The automaton's tables, read-only and only read, stay shared.
    func withOwnRuleArrays() -> LiteralPrefilter { LiteralPrefilter(copying: self) }

    private init(copying other: LiteralPrefilter) {
        literals = other.literals
        ruleGroups = other.ruleGroups.map { $0.map { $0.map { $0 } } }
        groupMembers = other.groupMembers.map { $0 }
        literalInfo = other.literalInfo
        byteClass = other.byteClass
        byteFacts = other.byteFacts
        classCount = other.classCount
        strideShift = other.strideShift
        compactTransitions = other.compactTransitions
        wideTransitions = other.wideTransitions
        outputStart = other.outputStart
        outputIDs = other.outputIDs
        postingStart = other.postingStart
        postingRules = other.postingRules
        alwaysSearched = other.alwaysSearched.map { $0 }
        ruleCount = other.ruleCount
        anchorLiterals = other.anchorLiterals.map { $0.map { $0.map { $0 } } }
        anchorPrefix = other.anchorPrefix.map { $0 }
        proximityGroups = other.proximityGroups.map { $0.map { $0.map { $0 } } }
        unlessGroups = other.unlessGroups.map { $0.map { $0.map { $0.map { $0 } } } }
    }

    /// Builds the prefilter of a rule set; `requirements[i]` and `anchors[i]` belong to its rule `i`.
    ///
    /// This runs at every start (about 20,000 literal references, 16,000 automaton states for the
    /// bundled rules), so it works over bytes and flat arrays: literals are interned by a hash of
    /// their bytes (`LiteralInterner`), postings and outputs are laid out by counting, and the
    /// automaton is built from a trie of sibling lists (`automaton`). `PrefilterConstructionTests`
    /// compares the result with a textbook construction, entry by entry.
    /// `bounded[i]`: whether rule `i`'s matches have a bounded length (`proximityGroups`).
    /// `unlessRequirements[i]`: the requirements of rule `i`'s `unless` patterns, in order.
    init(
        requirements: [[[RequiredLiteral]]?], anchors: [Anchor?] = [], bounded: [Bool] = [],
        unlessRequirements: [[[[RequiredLiteral]]?]] = []
    ) {
        var interner = LiteralInterner()
        var groupMembers: [Int] = []
        /// The groups of a requirement as ranges of `groupMembers`, its literals interned.
        func groups(of requirement: [[RequiredLiteral]]?) -> [Range<Int>]? {
            guard let requirement, !requirement.isEmpty else { return nil }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(requirement.count)
            for group in requirement {
                let start = groupMembers.count
                for literal in group { groupMembers.append(interner.id(of: literal)) }
                ranges.append(start..<groupMembers.count)
            }
            return ranges
        }
        var ruleGroups: [[Range<Int>]?] = []
        ruleGroups.reserveCapacity(requirements.count)
        for requirement in requirements { ruleGroups.append(groups(of: requirement)) }
        var anchorLiterals: [[Int32]?] = []
        var anchorPrefix: [LengthBound] = []
        anchorLiterals.reserveCapacity(requirements.count)
        anchorPrefix.reserveCapacity(requirements.count)
        for rule in requirements.indices {
            let anchor = rule < anchors.count ? anchors[rule] : nil
            anchorLiterals.append(anchor.map { $0.literals.map { Int32(interner.id(of: $0)) } })
            anchorPrefix.append(anchor?.prefix ?? LengthBound())
        }
        // After the rules' literals, so that theirs keep the same ids.
        unlessGroups = requirements.indices.map { rule in
            rule < unlessRequirements.count ? unlessRequirements[rule].map { groups(of: $0) } : []
        }
        let literals = interner.literals
        var proximityGroups: [[Range<Int>]?] = []
        proximityGroups.reserveCapacity(requirements.count)
        for rule in requirements.indices {
            guard rule < bounded.count, bounded[rule], let anchor = anchorLiterals[rule], let groups = ruleGroups[rule] else {
                proximityGroups.append(nil)
                continue
            }
            let others = groups.filter { group in
                !anchor.allSatisfy { id in groupMembers[group].contains(Int(id)) }
            }
            proximityGroups.append(others.isEmpty ? nil : others)
        }
        // Occurrences are recorded for anchor literals (windows start near them) and for members
        // of the groups checked near windows.
        var positional = [UInt32](repeating: 0, count: literals.count)
        for groups in proximityGroups {
            for group in groups ?? [] { for member in group { positional[groupMembers[member]] = Self.groupBit } }
        }
        for ids in anchorLiterals { for id in ids ?? [] { positional[Int(id)] = Self.anchorBit } }
        self.proximityGroups = proximityGroups
        self.anchorLiterals = anchorLiterals
        self.anchorPrefix = anchorPrefix
        self.literals = literals
        self.ruleGroups = ruleGroups
        self.groupMembers = groupMembers
        ruleCount = requirements.count

        // Postings: each literal's rules (those whose first group holds it, each once, in rule
        // order), counted first and then laid out in one array.
        var always = [UInt64](repeating: 0, count: RuleBits.words(for: requirements.count))
        var postingStart = [Int32](repeating: 0, count: literals.count + 1)
        var lastRule = [Int32](repeating: -1, count: literals.count)
        for (rule, groups) in ruleGroups.enumerated() {
            guard let first = groups?.first else {
                always[rule >> 6] |= 1 << UInt64(rule & 63)
                continue
            }
            for member in first where lastRule[groupMembers[member]] != Int32(rule) {
                lastRule[groupMembers[member]] = Int32(rule)
                postingStart[groupMembers[member] + 1] += 1
            }
        }
        for literal in literals.indices { postingStart[literal + 1] += postingStart[literal] }
        var postingRules = [Int32](repeating: 0, count: Int(postingStart[literals.count]))
        var nextPosting = postingStart
        for index in lastRule.indices { lastRule[index] = -1 }
        for (rule, groups) in ruleGroups.enumerated() {
            guard let first = groups?.first else { continue }
            for member in first where lastRule[groupMembers[member]] != Int32(rule) {
                let literal = groupMembers[member]
                lastRule[literal] = Int32(rule)
                postingRules[Int(nextPosting[literal])] = Int32(rule)
                nextPosting[literal] += 1
            }
        }
        self.postingStart = postingStart
        self.postingRules = postingRules
        alwaysSearched = always
        literalInfo = literals.indices.map { id in
            let literal = literals[id]
            return UInt32(min(literal.text.utf8.count, 0xFFFF)) | (literal.wordStart ? 1 << 16 : 0) | (literal.wordEnd ? 1 << 17 : 0)
                | positional[id]
        }

        // Input classes: one per distinct byte used by some literal.
        var byteClass = [UInt8](repeating: 0, count: 256)
        var classes = 1
        for literal in literals {
            var text = literal.text
            text.withUTF8 { bytes in
                for byte in bytes where byteClass[Int(byte)] == 0 {
                    byteClass[Int(byte)] = UInt8(truncatingIfNeeded: classes)
                    classes += 1
                }
            }
        }
        // Literals are ASCII (at most 128 classes), so classes fit in a byte. The scan reads capitals
        // as small letters: they share a class (literals hold no capitals).
        var scanClass = byteClass
        for capital in UInt8(ascii: "A")...UInt8(ascii: "Z") { scanClass[Int(capital)] = byteClass[Int(capital | 0x20)] }
        byteFacts = (0..<256).map { UInt16(scanClass[$0]) | UInt16(RunStats.runKinds[$0]) << 8 }
        self.byteClass = byteClass
        classCount = classes
        var shift = 0
        while 1 << shift < classes { shift += 1 }
        strideShift = shift

        // The trie first (it counts the states, so the table is allocated once, at its final size
        // and width), then the automaton.
        let trie = Trie(literals, byteClass: byteClass)
        let built: (outputStart: [Int32], outputIDs: [Int32])
        if trie.stateCount < 0x8000 {
            let automaton = Self.automaton(trie, classes: classes, strideShift: shift, outputFlag: UInt16(0x8000))
            compactTransitions = automaton.table
            wideTransitions = nil
            built = (automaton.outputStart, automaton.outputIDs)
        } else {
            let automaton = Self.automaton(trie, classes: classes, strideShift: shift, outputFlag: UInt32(0x8000_0000))
            compactTransitions = nil
            wideTransitions = automaton.table
            built = (automaton.outputStart, automaton.outputIDs)
        }
        outputStart = built.outputStart
        outputIDs = built.outputIDs
    }

    /// The trie of the literals' bytes (as input classes): state 0 is the root, and states are
    /// numbered in the order the literals create them. Each state's children are a list through
    /// `nextSibling`, so the trie costs a few arrays of one entry per state.
    struct Trie {
        /// The class of the edge into each state (0 for the root).
        let edgeClass: [UInt8]
        let firstChild: [Int32]
        let nextSibling: [Int32]
        /// The state each literal ends in.
        let literalState: [Int32]

        var stateCount: Int { edgeClass.count }

        init(_ literals: [RequiredLiteral], byteClass: [UInt8]) {
            var edgeClass: [UInt8] = [0]
            var firstChild: [Int32] = [0]
            var nextSibling: [Int32] = [0]
            var literalState: [Int32] = []
            literalState.reserveCapacity(literals.count)
            // The root's children by class: the root has many, the other states few.
            var rootChild = [Int32](repeating: 0, count: 256)
            for literal in literals {
                var state = 0
                // Over the contiguous bytes: iterating a small string's `utf8` view costs tens of
                // instructions a byte.
                var text = literal.text
                text.withUTF8 { bytes in
                    for byte in bytes {
                        let cls = byteClass[Int(byte)]
                        var child = state == 0 ? Int(rootChild[Int(cls)]) : Int(firstChild[state])
                        if state != 0 {
                            while child != 0 && edgeClass[child] != cls { child = Int(nextSibling[child]) }
                        }
                        if child == 0 {
                            child = edgeClass.count
                            edgeClass.append(cls)
                            firstChild.append(0)
                            nextSibling.append(firstChild[state])
                            firstChild[state] = Int32(child)
                            if state == 0 { rootChild[Int(cls)] = Int32(child) }
                        }
                        state = child
                    }
                }
                literalState.append(Int32(state))
            }
            self.edgeClass = edgeClass
            self.firstChild = firstChild
            self.nextSibling = nextSibling
            self.literalState = literalState
        }
    }

    /// The Aho–Corasick automaton of `trie` as a full transition table (`table[state << strideShift
    /// + class]`, the top bit set on entries leading to a state that recognises a literal) and each
    /// state's literals (`outputIDs[outputStart[state]..<outputStart[state + 1]]`: its own, in
    /// literal order, then its failure state's). Class 0 (bytes in no literal) leads to the root.
    ///
    /// Breadth first, each state's row is its failure state's row (already complete, flags
    /// included) with the state's own edges written over it; a child's failure state is the entry
    /// its class had in that copied row. So every entry is written once, most of them by a row copy.
    private static func automaton<Entry: FixedWidthInteger & UnsignedInteger>(
        _ trie: Trie, classes: Int, strideShift: Int, outputFlag: Entry
    ) -> (table: [Entry], outputStart: [Int32], outputIDs: [Int32]) {
        let stateCount = trie.stateCount
        // Own literals per state, in literal order (counting sort of `literalState`).
        var ownStart = [Int32](repeating: 0, count: stateCount + 1)
        for state in trie.literalState { ownStart[Int(state) + 1] += 1 }
        for state in 0..<stateCount { ownStart[state + 1] += ownStart[state] }
        var ownIDs = [Int32](repeating: 0, count: trie.literalState.count)
        var nextOwn = ownStart
        for (id, state) in trie.literalState.enumerated() {
            ownIDs[Int(nextOwn[Int(state)])] = Int32(id)
            nextOwn[Int(state)] += 1
        }

        // Every state's literals (own, then the failure state's not already there), in
        // breadth-first order in `merged`; then laid out by state.
        var mergedStart = [Int32](repeating: 0, count: stateCount)
        var mergedCount = [Int32](repeating: 0, count: stateCount)
        var merged: [Int32] = []
        merged.reserveCapacity(ownIDs.count * 2)
        var fail = [Int32](repeating: 0, count: stateCount)
        var queue = [Int32](repeating: 0, count: stateCount)
        var queued = 0

        let stride = 1 << strideShift
        let table = [Entry](unsafeUninitializedCapacity: stateCount * stride) { table, initialized in
            // The padding of every row (never read) first.
            if stride > classes {
                for state in 0..<stateCount { (table.baseAddress! + state * stride + classes).initialize(repeating: 0, count: stride - classes) }
            }
            func recordOutputs(of state: Int) {
                let own = Int(ownStart[state])..<Int(ownStart[state + 1])
                let failState = Int(fail[state])
                let inherited = Int(mergedStart[failState])..<Int(mergedStart[failState] + mergedCount[failState])
                mergedStart[state] = Int32(merged.count)
                for k in own { merged.append(ownIDs[k]) }
                if state != 0 {
                    for k in inherited where !ownIDs[own].contains(merged[k]) { merged.append(merged[k]) }
                }
                mergedCount[state] = Int32(merged.count) - mergedStart[state]
            }
            // The root: a row of edges back to itself, then its children.
            recordOutputs(of: 0)
            let rootFlag = mergedCount[0] > 0 ? outputFlag : 0
            for cls in 0..<classes { table[cls] = rootFlag }
            var child = Int(trie.firstChild[0])
            while child != 0 {
                fail[child] = 0
                recordOutputs(of: child)
                table[Int(trie.edgeClass[child])] = Entry(child) | (mergedCount[child] > 0 ? outputFlag : 0)
                queue[queued] = Int32(child)
                queued += 1
                child = Int(trie.nextSibling[child])
            }
            var head = 0
            while head < queued {
                let state = Int(queue[head])
                head += 1
                let row = state * stride
                let failRow = Int(fail[state]) * stride
                (table.baseAddress! + row).initialize(from: table.baseAddress! + failRow, count: classes)
                var child = Int(trie.firstChild[state])
                while child != 0 {
                    let slot = row + Int(trie.edgeClass[child])
                    fail[child] = Int32(table[slot] & ~outputFlag)
                    recordOutputs(of: child)
                    table[slot] = Entry(child) | (mergedCount[child] > 0 ? outputFlag : 0)
                    queue[queued] = Int32(child)
                    queued += 1
                    child = Int(trie.nextSibling[child])
                }
            }
            initialized = stateCount * stride
        }

        var outputStart = [Int32](repeating: 0, count: stateCount + 1)
        for state in 0..<stateCount { outputStart[state + 1] = outputStart[state] + mergedCount[state] }
        var outputIDs = [Int32](repeating: 0, count: Int(outputStart[stateCount]))
        for state in 0..<stateCount where mergedCount[state] > 0 {
            for k in 0..<Int(mergedCount[state]) {
                outputIDs[Int(outputStart[state]) + k] = merged[Int(mergedStart[state]) + k]
            }
        }
        return (table, outputStart, outputIDs)
    }

    /// Whether rule `index`, a candidate on a view whose literals are `found`, may match it: a
    /// candidate has a literal of its first group there already (that is what made it one), so
    /// only the other groups are looked at.
    @inline(__always)
    func admitsCandidate(rule index: Int, found: [Bool]) -> Bool {
        guard let groups = ruleGroups[index], groups.count > 1 else { return true }
        return found.withUnsafeBufferPointer { found in
            groupMembers.withUnsafeBufferPointer { members in
                for group in groups.dropFirst() {
                    var any = false
                    for member in group where found[members[member]] {
                        any = true
                        break
                    }
                    if !any { return false }
                }
                return true
            }
        }
    }

    /// Whether unless pattern `unless` of rule `index` may match a view whose literals are `found`
    /// (every one of its groups has a literal there).
    func admitsUnless(_ unless: Int, ofRule index: Int, found: [Bool]) -> Bool {
        let patterns = unlessGroups[index]
        guard unless < patterns.count, let groups = patterns[unless] else { return true }
        return found.withUnsafeBufferPointer { found in
            groupMembers.withUnsafeBufferPointer { members in
                groups.allSatisfy { group in group.contains { found[members[$0]] } }
            }
        }
    }

    /// Which of `windows` (sorted start ranges, at most 64 looked at: later ones are kept) can hold
    /// the start of a match of rule `index`, as bits: a match starting in window `a...b` lies in
    /// `a ..< b + ahead` and holds a literal of every group, so each group of
    /// `proximityGroups[index]` needs an occurrence there in the view scanned into `scan`.
    func windowsNearGroups(rule index: Int, _ windows: UnsafeBufferPointer<ClosedRange<Int>>, ahead: Int, in scan: ScanState) -> UInt64 {
        let all: UInt64 = windows.count >= 64 ? ~0 : (1 << UInt64(windows.count)) - 1
        guard let groups = proximityGroups[index], let first = windows.first else { return all }
        let checked = min(windows.count, 64)
        let lowest = first.lowerBound
        var kept = all
        scan.found.withUnsafeBufferPointer { found in
            scan.lastOccurrence.withUnsafeBufferPointer { last in
                scan.occurrences.withUnsafeBufferPointer { occurrences in
                    groupMembers.withUnsafeBufferPointer { members in
                        literalInfo.withUnsafeBufferPointer { info in
                            for group in groups {
                                // The windows with an occurrence of the group's literals in reach.
                                var near: UInt64 = 0
                                for member in group where found[members[member]] {
                                    let literal = members[member]
                                    let length = Int(info[literal] & 0xFFFF)
                                    // Occurrences come last first: stop at the first one too early.
                                    var next = Int(last[literal])
                                    while next >= 0 {
                                        let occurrence = occurrences[next]
                                        let start = Int(occurrence.latest)
                                        if start < lowest { break }
                                        // It ends `length` bytes after its latest start.
                                        let end = start + length
                                        for window in 0..<checked where windows[window].lowerBound <= start {
                                            if end <= windows[window].upperBound + ahead { near |= 1 << UInt64(window) }
                                        }
                                        next = Int(occurrence.previous)
                                    }
                                    if near & kept == kept { break }
                                }
                                kept &= near
                                if kept == 0 && windows.count <= 64 { return }
                            }
                        }
                    }
                }
            }
        }
        return kept
    }

    /// Records in `record` (cleared) every literal that occurs in `bytes`, every occurrence of an
    /// anchor or group literal and the longest runs of the bytes (`RunStats`), and sets the rules
    /// that may match in `candidates` (`RuleBits` words): those always searched, and those with a
    /// literal of their first group found.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, into record: inout ScanState, candidates: UnsafeMutableBufferPointer<UInt64>) {
        for word in candidates.indices { candidates[word] = alwaysSearched[word] }
        guard !literals.isEmpty else {
            record.runs = RunStats(bytes)
            return
        }
        record.groupOccurrences = bytes.count >= Self.proximityBytes
        let positional = record.groupOccurrences ? Self.anchorBit | Self.groupBit : Self.anchorBit
        if let compactTransitions {
            compactTransitions.withUnsafeBufferPointer {
                scan(bytes, table: $0, outputFlag: 0x8000, positional: positional, into: &record, candidates: candidates)
            }
        } else if let wideTransitions {
            wideTransitions.withUnsafeBufferPointer {
                scan(bytes, table: $0, outputFlag: 0x8000_0000, positional: positional, into: &record, candidates: candidates)
            }
        }
    }

    @inline(__always)
    private func scan<Entry: FixedWidthInteger & UnsignedInteger>(
        _ bytes: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<Entry>, outputFlag: Entry, positional: UInt32,
        into record: inout ScanState, candidates: UnsafeMutableBufferPointer<UInt64>
    ) {
        let strideShift = strideShift
        // Room for an occurrence per byte and then some: more needs a second scan (below).
        record.reserveOccurrences(bytes.count + 64)
        // The per-literal arrays as buffers for the whole scan: written through the struct, each
        // write checked the array's uniqueness and bounds.
        var written = 0
        var foundCount = record.foundCount
        let capacity = record.occurrences.count
        let runs = record.found.withUnsafeMutableBufferPointer { found in
            record.lastOccurrence.withUnsafeMutableBufferPointer { last in
                record.occurrences.withUnsafeMutableBufferPointer { buffer in
                    record.foundIDs.withUnsafeMutableBufferPointer { ids in
                        var occurrences = BufferWriter(buffer: buffer)
                        var foundIDs = BufferWriter(buffer: ids, count: foundCount)
                        defer {
                            written = occurrences.count
                            foundCount = foundIDs.count
                        }
                        let tables = (byteFacts, literalInfo, outputStart, outputIDs, postingStart, postingRules)
                        return Self.withTables(tables) { byteFacts, outputs in
                            Self.scanLoop(
                                bytes, table: table, outputFlag: outputFlag, positional: positional, byteFacts: byteFacts,
                                strideShift: strideShift, outputs: outputs, into: Found(literals: found, last: last),
                                occurrences: &occurrences, foundIDs: &foundIDs, candidates: candidates)
                        }
                    }
                }
            }
        }
        record.foundCount = foundCount
        record.runs = runs
        record.occurrenceCount = written
        if written > capacity {
            // More occurrences than bytes (several words end at one byte): scan again with room
            // for all of them.
            record.clear()
            record.reserveOccurrences(written)
            scan(bytes, table: table, outputFlag: outputFlag, positional: positional, into: &record, candidates: candidates)
        }
    }

    /// The automaton's output tables as buffers, for `body`.
    @inline(__always)
    private static func withTables<Result>(
        _ tables: (byteFacts: [UInt16], info: [UInt32], outputStart: [Int32], outputIDs: [Int32], postingStart: [Int32], postingRules: [Int32]),
        _ body: (UnsafeBufferPointer<UInt16>, Outputs) -> Result
    ) -> Result {
        let (byteFacts, info, outputStart, outputIDs, postingStart, postingRules) = tables
        return byteFacts.withUnsafeBufferPointer { byteFacts in
            info.withUnsafeBufferPointer { info in
                outputStart.withUnsafeBufferPointer { outputStart in
                    outputIDs.withUnsafeBufferPointer { outputIDs in
                        postingStart.withUnsafeBufferPointer { postingStart in
                            postingRules.withUnsafeBufferPointer { postingRules in
                                body(
                                    byteFacts,
                                    Outputs(
                                        info: info, outputStart: outputStart, outputIDs: outputIDs, postingStart: postingStart,
                                        postingRules: postingRules))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Where the scan writes occurrences and found ids: buffers of `ScanState`, which outlive the
    /// scan. Past the end an element is only counted (for occurrences the scan then runs again;
    /// found ids have room for every literal).
    private struct BufferWriter<Element> {
        let buffer: UnsafeMutableBufferPointer<Element>
        var count = 0

        @inline(__always)
        mutating func append(_ element: Element) {
            if count < buffer.count { buffer[count] = element }
            count &+= 1
        }
    }

    /// What the scan writes per literal: whether it was found, and its last occurrence.
    private struct Found {
        let literals: UnsafeMutableBufferPointer<Bool>
        let last: UnsafeMutableBufferPointer<Int32>
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
        _ bytes: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<Entry>, outputFlag: Entry, positional: UInt32,
        byteFacts: UnsafeBufferPointer<UInt16>, strideShift: Int, outputs: Outputs, into found: Found,
        occurrences: inout BufferWriter<LiteralOccurrence>, foundIDs: inout BufferWriter<Int32>,
        candidates: UnsafeMutableBufferPointer<UInt64>
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
            let entry = table[state &<< strideShift &+ letterClass]
            state = Int(entry & ~outputFlag)
            guard entry & outputFlag != 0 else { continue }
            recordOutputs(
                of: state, end: base.distance(to: p), mappedEnd: mappedEnd, positional: positional, bytes: bytes, outputs: outputs,
                into: found,
                occurrences: &occurrences, foundIDs: &foundIDs, candidates: candidates)
        }
        return runs.stats(count: n)
    }

    /// The literals recognised on entering `state` at `end`: each found for the first time sets its
    /// rules as candidates, and each occurrence of an anchor or group literal is recorded.
    @inline(never)
    private static func recordOutputs(
        of state: Int, end i: Int, mappedEnd: Int, positional: UInt32, bytes: UnsafeBufferPointer<UInt8>, outputs: Outputs,
        into found: Found,
        occurrences: inout BufferWriter<LiteralOccurrence>, foundIDs: inout BufferWriter<Int32>,
        candidates: UnsafeMutableBufferPointer<UInt64>
    ) {
        for k in Int(outputs.outputStart[state])..<Int(outputs.outputStart[state &+ 1]) {
            let id = outputs.outputIDs[k]
            let literal = Int(id)
            let facts = outputs.info[literal]
            let recorded = facts & positional != 0
            let seen = found.literals[literal]
            if seen && !recorded { continue }
            let flags = UInt8(truncatingIfNeeded: (facts >> 16) & 3)
            let length = Int(facts & 0xFFFF)
            guard
                flags == 0 || i - mappedEnd < length + 3
                    || Self.boundaryHolds(flags, end: i, length: length, in: bytes)
            else { continue }
            if recorded {
                // A mapped letter (3 bytes for one `k`) may lie inside the occurrence.
                let slack = mappedEnd > i - 3 * length ? 2 * length : 0
                occurrences.append(
                    LiteralOccurrence(
                        earliest: Int32(clamping: max(0, i - length - slack)), latest: Int32(clamping: i - length),
                        previous: seen ? found.last[literal] : -1))
                found.last[literal] = Int32(truncatingIfNeeded: occurrences.count &- 1)
            }
            if !seen {
                found.literals[literal] = true
                foundIDs.append(id)
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

/// Gives each distinct literal an id, in the order literals first appear.
///
/// The prefilter interns some 20,000 literal references at every start; hashing their bytes
/// (FNV-1a) into an open-addressed table costs a fraction of `Hasher` over `String`s. Two ASCII
/// strings are equal exactly when their bytes are, so this agrees with `RequiredLiteral`'s `==`;
/// should a literal not be ASCII (the analysis never makes one, but a cache file could), interning
/// goes on with a `Dictionary`, which compares as `String` does.
struct LiteralInterner {
    private(set) var literals: [RequiredLiteral] = []
    /// Each literal's hash, by id.
    private var hashes: [UInt64] = []
    /// Open addressing over ids; -1 is an empty slot. The count is a power of two.
    private var slots = [Int32](repeating: -1, count: 1024)
    /// Set once a literal that is not ASCII has been seen.
    private var fallback: [RequiredLiteral: Int]?

    /// The id of `literal`, a new one when it was not seen before.
    mutating func id(of literal: RequiredLiteral) -> Int {
        if fallback == nil, let hash = Self.hash(ofASCII: literal) {
            let mask = slots.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 {
                let id = Int(slots[slot])
                if hashes[id] == hash && literals[id] == literal { return id }
                slot = (slot + 1) & mask
            }
            let id = literals.count
            literals.append(literal)
            hashes.append(hash)
            slots[slot] = Int32(id)
            if literals.count * 2 > slots.count { grow() }
            return id
        }
        if fallback == nil {
            fallback = Dictionary(literals.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
        if let id = fallback?[literal] { return id }
        let id = literals.count
        literals.append(literal)
        fallback?[literal] = id
        return id
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: slots.count * 2)
        let mask = slots.count - 1
        for (id, hash) in hashes.enumerated() {
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot] >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Int32(id)
        }
    }

    /// FNV-1a of the literal's bytes and flags, or nil when it is not ASCII.
    static func hash(ofASCII literal: RequiredLiteral) -> UInt64? {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        var text = literal.text
        let ascii = text.withUTF8 { bytes in
            for byte in bytes {
                guard byte < 0x80 else { return false }
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
            }
            return true
        }
        guard ascii else { return nil }
        hash = (hash ^ (literal.wordStart ? 0x100 : 0) ^ (literal.wordEnd ? 0x200 : 0)) &* 0x100_0000_01B3
        // The low bits pick the slot: fold the high ones in.
        return hash ^ (hash >> 29)
    }
}
