import TextNormalization

/// Views that need neither building nor scanning unless the `ascii` view holds certain words.
///
/// The folded and skeleton views keep Turkish and other letters; few rules read them (today one,
/// which tells `ölmüş`, died, from `olmuş`, became). Building and scanning them costs about as
/// much as the ascii view the other rules read, on every non-ASCII prompt. But a rule can only
/// match a view if the literal scan finds a word of its first requirement group there, and a
/// word of ASCII letters found in folded or skeleton is found in ascii too: the skeleton stage
/// passes ASCII letters through (it maps only non-ASCII scalars, and digits), the ascii stage
/// passes ASCII through and only replaces or drops other scalars, so letters that are consecutive
/// in the earlier view stay consecutive. (Boundary flags are dropped for the check: a Turkish
/// letter next to the word counts as a boundary there and becomes an ASCII letter in ascii.)
///
/// So when every rule reading a view has a first group of plain ASCII letters and none of those
/// words occurs in the ascii view, no rule can match the view: the gate is shut, the matcher
/// skips it and `CompiledRuleSet.normalize(bytes:)` does not build it. `ViewGateTests` check the
/// assumptions and that results are the same with and without gates.
struct ViewGates: Sendable {
    /// The distinct gates: the words that open each.
    let gates: [[[UInt8]]]
    /// Per view slot, the index of its gate in `gates`, or nil when the view has no gate.
    let gateOfSlot: [Int?]
    /// Per gate, per byte: whether a word of the gate starts with that byte (either case).
    private let startsWord: [[Bool]]
    /// The views that have a gate.
    let gatedViews: Set<ViewName>

    /// The gates of the views before ascii that rules read (raw is never gated: NFKC can compose
    /// an ASCII letter with a following mark into another letter).
    init(_ compiled: [CompiledRule]) {
        var gates: [[[UInt8]]] = []
        var gateOfSlot = [Int?](repeating: nil, count: ViewName.allCases.count)
        for name in [ViewName.folded, .skeleton] {
            let readers = compiled.filter { $0.enabled && $0.views.contains(name) }
            guard !readers.isEmpty else { continue }
            var gate = Set<[UInt8]>()
            var gated = true
            for rule in readers {
                guard let first = rule.requirement?.first, !first.isEmpty else {
                    gated = false
                    break
                }
                for literal in first {
                    let bytes = Array(literal.text.utf8)
                    guard !bytes.isEmpty, bytes.allSatisfy({ (0x61...0x7A).contains($0) }) else {
                        gated = false
                        break
                    }
                    gate.insert(bytes)
                }
                if !gated { break }
            }
            guard gated else { continue }
            let words = gate.sorted { $0.lexicographicallyPrecedes($1) }
            if let index = gates.firstIndex(of: words) {
                gateOfSlot[ViewName.allCases.firstIndex(of: name)!] = index
            } else {
                gateOfSlot[ViewName.allCases.firstIndex(of: name)!] = gates.count
                gates.append(words)
            }
        }
        self.gates = gates
        self.gateOfSlot = gateOfSlot
        startsWord = gates.map { words in
            (0..<256).map { byte in words.contains { $0[0] == UInt8(byte) | 0x20 } }
        }
        gatedViews = Set(ViewName.allCases.indices.filter { gateOfSlot[$0] != nil }.map { ViewName.allCases[$0] })
    }

    /// The same gates in buffers of their own (for one `RuleMatcher`: see
    /// `LiteralPrefilter.withOwnRuleArrays`).
    func withOwnArrays() -> ViewGates { ViewGates(copying: self) }

    private init(copying other: ViewGates) {
        gates = other.gates.map { $0.map { $0.map { $0 } } }
        gateOfSlot = other.gateOfSlot.map { $0 }
        startsWord = other.startsWord.map { $0.map { $0 } }
        gatedViews = Set(other.gatedViews.map { $0 })
    }

    /// Whether gate `index` is open for `text`: the text is pure ASCII (its gated views are its
    /// ascii view, scanned anyway), the ascii view was not built, or one of the gate's words occurs
    /// in it (ASCII letters compared without case).
    func isOpen(gate index: Int, in text: NormalizedText) -> Bool {
        guard !text.isASCII, let ascii = text.viewIfBuilt(.ascii) else { return true }
        let words = gates[index]
        return startsWord[index].withUnsafeBufferPointer { starts in
            ascii.utf8.withUnsafeBufferPointer { bytes in
                // One pass: only where a word may start are the words compared.
                for i in bytes.indices where starts[Int(bytes[i])] {
                    for word in words where Self.holds(bytes, word, at: i) { return true }
                }
                return false
            }
        }
    }

    /// Whether `word` (lowercase ASCII letters) occurs at `offset` of `bytes`, ignoring ASCII case.
    @inline(__always)
    static func holds(_ bytes: UnsafeBufferPointer<UInt8>, _ word: [UInt8], at offset: Int) -> Bool {
        guard offset + word.count <= bytes.count else { return false }
        // `| 0x20` lowercases a letter; a byte that is no letter never equals a lowercase one.
        for j in word.indices where bytes[offset + j] | 0x20 != word[j] { return false }
        return true
    }
}
