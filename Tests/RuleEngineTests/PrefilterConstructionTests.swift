import Testing

@testable import RuleEngine

/// The prefilter is built at every start with flat arrays and row copies (`LiteralPrefilter.init`).
/// It must come out entry for entry as the textbook construction below builds it: literals
/// interned in a `Dictionary`, the trie written into the table, then failure links breadth first
/// filling every missing entry, and output flags set in a last pass.
@Suite struct PrefilterConstructionTests {
    /// Everything the textbook construction yields, in the prefilter's own layout.
    struct Reference: Equatable {
        var literals: [RequiredLiteral] = []
        var groupMembers: [Int] = []
        var ruleGroups: [[Range<Int>]?] = []
        var anchorLiterals: [[Int32]?] = []
        var postingStart: [Int32] = [0]
        var postingRules: [Int32] = []
        var alwaysSearched: [UInt64] = []
        var literalInfo: [UInt32] = []
        var byteClass = [UInt8](repeating: 0, count: 256)
        var classCount = 1
        var table: [UInt32] = []
        var wide = false
        var outputStart: [Int32] = [0]
        var outputIDs: [Int32] = []

        init(requirements: [[[RequiredLiteral]]?], anchors: [Anchor?]) {
            var idByLiteral: [RequiredLiteral: Int] = [:]
            func id(of literal: RequiredLiteral) -> Int {
                if let id = idByLiteral[literal] { return id }
                idByLiteral[literal] = literals.count
                literals.append(literal)
                return literals.count - 1
            }
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
            for rule in requirements.indices {
                let anchor = rule < anchors.count ? anchors[rule] : nil
                anchorLiterals.append(anchor.map { $0.literals.map { Int32(id(of: $0)) } })
            }
            var isAnchor = [Bool](repeating: false, count: literals.count)
            for ids in anchorLiterals { for id in ids ?? [] { isAnchor[Int(id)] = true } }
            var postings = [[Int32]](repeating: [], count: literals.count)
            alwaysSearched = [UInt64](repeating: 0, count: (requirements.count + 63) / 64)
            for (rule, groups) in ruleGroups.enumerated() {
                guard let first = groups?.first else {
                    alwaysSearched[rule >> 6] |= 1 << UInt64(rule & 63)
                    continue
                }
                for member in first where postings[groupMembers[member]].last != Int32(rule) {
                    postings[groupMembers[member]].append(Int32(rule))
                }
            }
            for rules in postings { postingStart.append(postingStart.last! + Int32(rules.count)) }
            postingRules = postings.flatMap { $0 }
            literalInfo = literals.indices.map { id in
                UInt32(literals[id].text.utf8.count) | (literals[id].wordStart ? 1 << 16 : 0)
                    | (literals[id].wordEnd ? 1 << 17 : 0) | (isAnchor[id] ? 1 << 18 : 0)
            }
            for literal in literals {
                for byte in literal.text.utf8 where byteClass[Int(byte)] == 0 {
                    byteClass[Int(byte)] = UInt8(classCount)
                    classCount += 1
                }
            }

            // The trie in the table (0: no edge), then breadth first.
            let classes = classCount
            var outputs: [[Int32]] = [[]]
            var trie: [Int] = Array(repeating: 0, count: classes)
            for (id, literal) in literals.enumerated() {
                var state = 0
                for byte in literal.text.utf8 {
                    let slot = state * classes + Int(byteClass[Int(byte)])
                    if trie[slot] == 0 {
                        trie[slot] = outputs.count
                        outputs.append([])
                        trie += Array(repeating: 0, count: classes)
                    }
                    state = trie[slot]
                }
                outputs[state].append(Int32(id))
            }
            var fail = [Int](repeating: 0, count: outputs.count)
            var queue = (1..<classes).map { trie[$0] }.filter { $0 != 0 }
            var head = 0
            while head < queue.count {
                let state = queue[head]
                head += 1
                outputs[state] += outputs[fail[state]].filter { !outputs[state].contains($0) }
                for cls in 1..<classes {
                    let child = trie[state * classes + cls]
                    if child != 0 {
                        fail[child] = trie[fail[state] * classes + cls]
                        queue.append(child)
                    } else {
                        trie[state * classes + cls] = trie[fail[state] * classes + cls]
                    }
                }
            }
            wide = outputs.count >= 0x8000
            let flag: UInt32 = wide ? 0x8000_0000 : 0x8000
            table = trie.map { UInt32($0) | (outputs[$0].isEmpty ? 0 : flag) }
            for ids in outputs { outputStart.append(outputStart.last! + Int32(ids.count)) }
            outputIDs = outputs.flatMap { $0 }
        }

        /// The same facts read from a built prefilter.
        init(_ prefilter: LiteralPrefilter) {
            literals = prefilter.literals
            groupMembers = prefilter.groupMembers
            ruleGroups = prefilter.ruleGroups
            anchorLiterals = prefilter.anchorLiterals
            postingStart = prefilter.postingStart
            postingRules = prefilter.postingRules
            alwaysSearched = prefilter.alwaysSearched
            literalInfo = prefilter.literalInfo
            byteClass = prefilter.byteClass
            classCount = prefilter.classCount
            wide = prefilter.wideTransitions != nil
            // The rows without their padding (`strideShift`), which the scan never reads.
            let padded = prefilter.compactTransitions.map { $0.map(UInt32.init) } ?? prefilter.wideTransitions ?? []
            let stride = 1 << prefilter.strideShift
            #expect(stride >= classCount && stride < 2 * max(classCount, 1) && padded.count % stride == 0)
            table = (0..<(padded.count / stride)).flatMap { padded[($0 * stride)..<($0 * stride + classCount)] }
            outputStart = prefilter.outputStart
            outputIDs = prefilter.outputIDs
        }
    }

    static func literal(_ text: String, start: Bool = false, end: Bool = false) -> RequiredLiteral {
        RequiredLiteral(text: text, wordStart: start, wordEnd: end)
    }

    func expectSame(_ requirements: [[[RequiredLiteral]]?], anchors: [Anchor?] = []) {
        let built = Reference(LiteralPrefilter(requirements: requirements, anchors: anchors))
        let reference = Reference(requirements: requirements, anchors: anchors)
        #expect(built.literals == reference.literals)
        #expect(built.groupMembers == reference.groupMembers && built.ruleGroups == reference.ruleGroups)
        #expect(built.anchorLiterals == reference.anchorLiterals)
        #expect(built.postingStart == reference.postingStart && built.postingRules == reference.postingRules)
        #expect(built.alwaysSearched == reference.alwaysSearched && built.literalInfo == reference.literalInfo)
        #expect(built.byteClass == reference.byteClass && built.classCount == reference.classCount)
        #expect(built.wide == reference.wide && built.table.count == reference.table.count)
        // Compared as Bools: a failure would print the whole 1.5 MB table otherwise.
        let sameTable = built.table == reference.table
        let firstDifference = zip(built.table, reference.table).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(sameTable, "first different entry: \(firstDifference.map(String.init) ?? "none")")
        let sameOutputs = built.outputStart == reference.outputStart && built.outputIDs == reference.outputIDs
        #expect(sameOutputs)
    }

    @Test func theBundledRulesGiveTheTextbookAutomaton() throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        expectSame(
            rules.compiled.map { $0.enabled ? $0.requirement : nil }, anchors: rules.compiled.map { $0.enabled ? $0.anchor : nil })
    }

    @Test func suffixesFlagsRepeatsAndRulesWithoutWords() {
        func l(_ text: String, start: Bool = false, end: Bool = false) -> RequiredLiteral { Self.literal(text, start: start, end: end) }
        expectSame(
            [
                [[l("he"), l("she")], [l("hers", end: true)]], nil, [[l("his"), l("his"), l("she", start: true)]], [],
                [[l("ushers")]], [[l("he")], [l("he", start: true, end: true)]],
            ],
            anchors: [Anchor(literals: [l("hers"), l("shell")], prefix: LengthBound(characters: 3)), nil, nil, nil, nil])
        expectSame([])
        expectSame([nil, nil])
    }

    /// A literal that is not ASCII (no analysis makes one) is interned as `String` compares.
    @Test func aLiteralThatIsNotASCIIIsInternedAsStringsCompare() {
        func l(_ text: String, start: Bool = false, end: Bool = false) -> RequiredLiteral { Self.literal(text, start: start, end: end) }
        expectSame([[[l("kill"), l("ki\u{301}ll"), l("k\u{ED}ll"), l("kill")]], [[l("k\u{ED}ll"), l("abc")]], [[l("abc")]]])
    }

    /// Past 32,767 states the table takes 32-bit entries.
    @Test func manyStatesGiveTheWideTable() {
        var words: [RequiredLiteral] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed linear congruential sequence
        for _ in 0..<4_000 {
            var text = ""
            for _ in 0..<12 {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                text.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "a") + UInt8((seed >> 33) % 20)))
            }
            words.append(Self.literal(text))
        }
        #expect(LiteralPrefilter(requirements: [[words]]).wideTransitions != nil)
        expectSame([[words], [[words[0]], words]])
    }
}
