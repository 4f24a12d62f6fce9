/// One pass over a view that tells which rules' required literals occur in it.
///
/// An Aho–Corasick automaton over every rule's required literals (see `LiteralAnalysis`), run on
/// the view's bytes with ASCII letters lowercased and U+212A / U+017F read as `k` / `s`, the only
/// non-ASCII characters that PCRE2's caseless matching equates with ASCII letters. A rule is then
/// searched on a view only when one of its literals occurred there. Built once per rule set;
/// immutable and shared.
struct LiteralPrefilter: Sendable {
    /// Every distinct literal.
    let literals: [String]
    /// For each compiled rule, the ids of its literals, or nil when the rule is always searched.
    let ruleLiteralIDs: [[Int]?]
    /// Byte → input class (0: a byte that occurs in no literal).
    private let byteClass: [UInt8]
    private let classCount: Int
    /// `transitions[state * classCount + class]` → next state.
    private let transitions: [Int32]
    /// The literal ids recognised on entering each state (its own and its suffixes').
    private let outputs: [[Int32]]
    private let hasOutput: [Bool]

    var literalCount: Int { literals.count }

    init(requirements: [[String]?]) {
        var literals: [String] = []
        var idByLiteral: [String: Int] = [:]
        var ruleLiteralIDs: [[Int]?] = []
        for requirement in requirements {
            guard let requirement else {
                ruleLiteralIDs.append(nil)
                continue
            }
            ruleLiteralIDs.append(
                requirement.map { literal in
                    if let id = idByLiteral[literal] { return id }
                    idByLiteral[literal] = literals.count
                    literals.append(literal)
                    return literals.count - 1
                })
        }
        self.literals = literals
        self.ruleLiteralIDs = ruleLiteralIDs

        // Input classes: one per distinct byte used by some literal.
        var byteClass = [UInt8](repeating: 0, count: 256)
        var classes = 1
        for literal in literals {
            for byte in literal.utf8 where byteClass[Int(byte)] == 0 {
                byteClass[Int(byte)] = UInt8(truncatingIfNeeded: classes)
                classes += 1
            }
        }
        // Literals are ASCII (at most 128 classes), so classes fit in a byte.
        self.byteClass = byteClass
        classCount = classes

        // The trie.
        var goto: [[Int32]] = [Array(repeating: -1, count: classes)]
        var own: [[Int32]] = [[]]
        for (id, literal) in literals.enumerated() {
            var state = 0
            for byte in literal.utf8 {
                let cls = Int(byteClass[Int(byte)])
                if goto[state][cls] < 0 {
                    goto[state][cls] = Int32(goto.count)
                    goto.append(Array(repeating: -1, count: classes))
                    own.append([])
                }
                state = Int(goto[state][cls])
            }
            own[state].append(Int32(id))
        }
        // Breadth-first failure links, folded into a full transition table.
        var fail = [Int](repeating: 0, count: goto.count)
        var outputs = own
        var table = [Int32](repeating: 0, count: goto.count * classes)
        var queue: [Int] = []
        for cls in 0..<classes {
            let next = goto[0][cls]
            if next >= 0 {
                table[cls] = next
                fail[Int(next)] = 0
                queue.append(Int(next))
            }
        }
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            outputs[state] += outputs[fail[state]].filter { !outputs[state].contains($0) }
            for cls in 0..<classes {
                let next = goto[state][cls]
                if next >= 0 {
                    fail[Int(next)] = Int(table[fail[state] * classes + cls])
                    table[state * classes + cls] = next
                    queue.append(Int(next))
                } else {
                    table[state * classes + cls] = table[fail[state] * classes + cls]
                }
            }
        }
        // Class 0 (a byte in no literal) always leads back to the root.
        for state in 0..<goto.count { table[state * classes] = 0 }
        transitions = table
        self.outputs = outputs
        hasOutput = outputs.map { !$0.isEmpty }
    }

    /// Sets `found[id]` for every literal that occurs in `bytes`.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, found: UnsafeMutableBufferPointer<Bool>) {
        guard !literals.isEmpty else { return }
        var state = 0
        var i = 0
        let n = bytes.count
        transitions.withUnsafeBufferPointer { table in
            byteClass.withUnsafeBufferPointer { classOf in
                while i < n {
                    var byte = bytes[i]
                    i += 1
                    if byte >= 0x80 {
                        if byte == 0xE2, i + 1 < n, bytes[i] == 0x84, bytes[i + 1] == 0xAA {
                            byte = UInt8(ascii: "k")  // U+212A KELVIN SIGN
                            i += 2
                        } else if byte == 0xC5, i < n, bytes[i] == 0xBF {
                            byte = UInt8(ascii: "s")  // U+017F LATIN SMALL LETTER LONG S
                            i += 1
                        }
                    } else if byte >= 0x41 && byte <= 0x5A {
                        byte += 0x20
                    }
                    state = Int(table[state * classCount + Int(classOf[Int(byte)])])
                    if hasOutput[state] {
                        for id in outputs[state] { found[Int(id)] = true }
                    }
                }
            }
        }
    }
}
