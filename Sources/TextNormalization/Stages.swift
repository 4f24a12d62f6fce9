/// The `skeleton` stage: look-alike letters of other scripts mapped to the Latin letters they
/// imitate ("dіе" with Cyrillic і and е → "die"). `folded` keeps genuine Cyrillic or Greek text
/// intact for rules that read it; this view is for catching Latin words in disguise.
///
/// The mapping is per character, so the view stays a fixed point however later stages regroup
/// words. Digits that imitate letters (1 → l) are mapped only inside a word that also holds a
/// non-ASCII look-alike ("кі1l" → "kill"); plain ASCII words are left to the leetspeak of `squashed`.
enum Skeleton {
    /// The skeleton of `folded`, or nil when it would equal `folded` (no word holds a look-alike).
    ///
    /// Words without a look-alike, and the text between words, are copied a run at a time: most
    /// words of a Turkish prompt are Latin, only some hold the `ı` that has a look-alike entry.
    static func map(_ folded: Units) -> Units? {
        var out: Units?
        // folded[0 ..< copied] is in `out` already.
        var copied = 0
        let n = folded.count
        folded.scalars.withUnsafeBufferPointer { scalars in
            var i = 0
            while i < n {
                guard isWordScalar(scalars[i]) else {
                    i += 1
                    continue
                }
                var end = i
                var hasLookAlike = false
                while end < n && isWordScalar(scalars[end]) {
                    if lookAlike(scalars[end]) != nil { hasLookAlike = true }
                    end += 1
                }
                guard hasLookAlike else {
                    i = end
                    continue
                }
                if out == nil { out = Units(reservingCapacity: n) }
                out!.append(contentsOf: folded, copied..<i)
                var k = i
                while k < end {
                    let s = scalars[k]
                    let replacement: UInt32? =
                        if s >= 0x80 { lookAlike(s) }
                        else if (0x30...0x39).contains(s) { digitLookAlike(s) }
                        else { nil }
                    guard let replacement else {
                        out!.append(s, folded.starts[k], folded.ends[k])
                        k += 1
                        continue
                    }
                    // Marks on a disguised letter go with the disguise: left on the Latin letter they
                    // would compose with it ("і́" → "í") and the view would not be a fixed point.
                    var last = k
                    while last + 1 < end && ICU.isNonSpacingMark(scalars[last + 1]) { last += 1 }
                    out!.append(replacement, folded.starts[k], folded.ends[last])
                    k = last + 1
                }
                copied = end
                i = end
            }
        }
        out?.append(contentsOf: folded, copied..<n)
        return out
    }

    @inline(__always)
    static func isWordScalar(_ s: UInt32) -> Bool {
        if s < 0x80 { return (0x61...0x7A).contains(s) || (0x41...0x5A).contains(s) || (0x30...0x39).contains(s) }
        return ICU.isAlphabetic(s) || ICU.isNonSpacingMark(s)
    }

    /// The Latin letter a non-ASCII scalar imitates, if any. Every entry of both look-alike
    /// tables is one ASCII letter (the derivation maps to the skeleton of a letter a–z).
    @inline(__always)
    static func lookAlike(_ s: UInt32) -> UInt32? {
        if s < 0x80 { return nil }
        if s < ScalarFacts.limit {
            let letter = lookAlikeLetter[Int(s)]
            return letter == 0 ? nil : UInt32(letter)
        }
        return (UnicodeTables.confusables[s] ?? UnicodeTables.confusableSupplement[s])?.first
    }

    /// The letter an ASCII digit imitates inside a word that holds a look-alike (1 → l), if any.
    @inline(__always)
    static func digitLookAlike(_ s: UInt32) -> UInt32? {
        let letter = lookAlikeLetter[Int(s)]
        return letter == 0 ? nil : UInt32(letter)
    }

    /// For code points below `ScalarFacts.limit`: the letter of the look-alike tables (0: none),
    /// so that a letter of a prompt costs an array read, not two dictionary look-ups.
    static let lookAlikeLetter: [UInt8] = (0..<ScalarFacts.limit).map { s in
        let entry = s < 0x80 ? UnicodeTables.confusables[s] : UnicodeTables.confusables[s] ?? UnicodeTables.confusableSupplement[s]
        guard let entry else { return 0 }
        precondition(entry.count == 1 && entry[0] < 0x80, "a look-alike maps to one ASCII letter")
        return UInt8(entry[0])
    }
}

/// The `ascii` stage: diacritics and Turkish letters removed, typographic forms to ASCII.
///
/// Non-spacing marks are dropped after an ASCII character ("ki\u{301}ll" → "kill"); after other
/// scripts they stay, since dropping them there could let neighbours compose on a second pass.
enum ASCIIFolding {
    static func map(_ skeleton: Units) -> Units {
        let folds = FlatFolds.shared
        var out = Units(reservingCapacity: skeleton.count)
        let n = skeleton.count
        skeleton.scalars.withUnsafeBufferPointer { scalars in
            var i = 0
            while i < n {
                // ASCII stays as it is: copied a run at a time (most of a Turkish prompt).
                var end = i
                while end < n && scalars[end] < 0x80 { end += 1 }
                if end > i {
                    out.append(contentsOf: skeleton, i..<end)
                    i = end
                    continue
                }
                let s = scalars[i]
                let start = skeleton.starts[i]
                let stop = skeleton.ends[i]
                i += 1
                if folds.append(s, start, stop, to: &out) { continue }
                if let previous = out.scalars.last, previous < 0x80, ICU.isNonSpacingMark(s) {
                    // The mark joins the span of the letter it decorated.
                    out.ends[out.count - 1] = stop
                } else {
                    out.append(s, start, stop)
                }
            }
        }
        return out
    }

    /// `UnicodeTables.asciiFolds` with the entries below `ScalarFacts.limit` in flat arrays, so
    /// that a letter of a prompt costs an array read, not a dictionary look-up.
    final class FlatFolds: Sendable {
        static let shared = FlatFolds()

        /// Per code point below the limit: where its fold starts in `values` (upper bits) and its
        /// length (low 8 bits; 0: no fold, as no entry is empty).
        let slots: [UInt32]
        let values: [UInt32]

        private init() {
            var slots = [UInt32](repeating: 0, count: Int(ScalarFacts.limit))
            var values: [UInt32] = []
            for (scalar, fold) in UnicodeTables.asciiFolds where scalar < ScalarFacts.limit {
                precondition(!fold.isEmpty && fold.count < 256, "an ASCII fold is 1 to 255 characters")
                slots[Int(scalar)] = UInt32(values.count) << 8 | UInt32(fold.count)
                values += fold
            }
            self.slots = slots
            self.values = values
        }

        /// Appends the fold of `scalar` (a non-ASCII scalar), each unit spanning `start..<end`;
        /// false (nothing appended) when it has none.
        @inline(__always)
        func append(_ scalar: UInt32, _ start: UInt32, _ end: UInt32, to out: inout Units) -> Bool {
            guard scalar < ScalarFacts.limit else {
                guard let fold = UnicodeTables.asciiFolds[scalar] else { return false }
                for r in fold { out.append(r, start, end) }
                return true
            }
            let slot = slots[Int(scalar)]
            guard slot != 0 else { return false }
            let first = Int(slot >> 8)
            for k in first..<(first + Int(slot & 0xFF)) { out.append(values[k], start, end) }
            return true
        }
    }
}

/// The `squashed` stage: leetspeak mapped, letters spaced out with single separators joined,
/// runs of three or more identical letters shortened to one. Repeated until nothing changes, so
/// the view is idempotent by construction.
enum Squashing {
    /// The letter a leet symbol stands for: 0→o 1→i 3→e 4→a 5→s 7→t @→a $→s.
    @inline(__always)
    static func leet(_ s: UInt32) -> UInt32? {
        switch s {
        case 0x30: 0x6F
        case 0x31: 0x69
        case 0x33: 0x65
        case 0x34: 0x61
        case 0x35: 0x73
        case 0x37: 0x74
        case 0x40: 0x61
        case 0x24: 0x73
        default: nil
        }
    }

    /// Squashing passes at most (one is the rule; nested spacing like "k . i . l . l" takes two).
    static let maximumPasses = 8

    /// The squashed units, or `nil` when squashing would change nothing (the usual case).
    ///
    /// Control characters that folding removed (`hello\0kill`) first become spaces here: the
    /// ascii view reads a control inside a word as nothing (`k\u{1B}ill` → "kill"), this view reads
    /// it as a separator (`hello\0kill` → "hello kill"; `k\0i\0l\0l` → "k i l l" → "kill").
    /// `needsWork`: the caller has found that `needsWork(ascii)` holds (the fast paths ask it on
    /// bytes first), so it is not asked again unless controls were turned into spaces.
    /// `withoutControls`: the caller knows `original` holds no control that folding removes (the
    /// plain-ASCII path has checked), so it is not looked for again.
    static func map<Text: UnitStorage>(
        _ ascii: Text, original: [UInt8], needsWork known: Bool = false, withoutControls: Bool = false
    ) -> Text? {
        let separated = withoutControls ? nil : separatingRemovedControls(ascii, original: original)
        let input = separated ?? ascii
        guard known && separated == nil || needsWork(input) else { return separated }
        // Each pass shortens the text or removes leet symbols, so this ends; in practice at once.
        // The bound is a second guard: a pass that changes nothing must never spin.
        var current = pass(input)
        var passes = 1
        while passes < maximumPasses && needsWork(current) {
            let next = pass(current)
            if next.scalars == current.scalars { break }
            current = next
            passes += 1
        }
        return current
    }

    /// `units` with a space wherever the original bytes between two units hold a C0/C1 control
    /// that folding removed; nil when there is none.
    static func separatingRemovedControls<Text: UnitStorage>(_ units: Text, original: [UInt8]) -> Text? {
        // The usual case, a text without such controls, in one pass over the bytes.
        guard Self.holdsInvisibleControl(original) else { return nil }
        func gapHoldsControl(_ from: Int, _ to: Int) -> Bool {
            var k = from
            while k < to {
                let byte = original[k]
                if byte < 0x80 {
                    if Folding.isInvisibleControl(UInt32(byte)) { return true }
                } else if byte == 0xC2, k + 1 < to, Folding.isInvisibleControl(UInt32(original[k + 1])) {
                    return true  // U+0080–U+009F
                }
                k += 1
            }
            return false
        }
        var out: Text?
        for i in 0..<units.count {
            // Only between two ASCII letters or digits: a space before a combining mark would
            // change what later passes make of it (the fuzzer found squashing not idempotent).
            if i > 0, isASCIIAlphanumeric(UInt32(units.scalars[i - 1])), isASCIIAlphanumeric(UInt32(units.scalars[i])) {
                let from = Int(units.ends[i - 1]), to = Int(units.starts[i])
                if from < to, to <= original.count, gapHoldsControl(from, to) {
                    if out == nil {
                        out = Text(reservingCapacity: units.count + 4)
                        out!.append(contentsOf: units, 0..<i)
                    }
                    out!.append(0x20, UInt32(from), UInt32(to))
                }
            }
            out?.append(units.scalars[i], units.starts[i], units.ends[i])
        }
        return out
    }

    /// Whether `bytes` hold a C0 or C1 control that folding removes (U+0000–U+0008,
    /// U+000E–U+001F, U+007F–U+0084, U+0086–U+009F; C1 controls are C2 80–C2 9F in UTF-8).
    static func holdsInvisibleControl(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { bytes in
            var k = 0
            let n = bytes.count
            while k < n {
                let byte = bytes[k]
                if byte < 0x20 || byte == 0x7F {
                    if Folding.isInvisibleControl(UInt32(byte)) { return true }
                } else if byte == 0xC2, k + 1 < n, Folding.isInvisibleControl(UInt32(bytes[k + 1])) {
                    return true
                }
                k += 1
            }
            return false
        }
    }

    @inline(__always)
    static func isASCIIAlphanumeric(_ s: UInt32) -> Bool { isASCIILetter(s) || (0x30...0x39).contains(s) }

    /// A–Z, a–z (setting bit 5 lowercases a capital and moves nothing else into a–z).
    @inline(__always)
    static func isASCIILetter(_ s: UInt32) -> Bool { (s | 0x20) &- 0x61 < 26 }

    @inline(__always)
    static func isLetter(_ s: UInt32) -> Bool {
        if s < 0x80 { return isASCIILetter(s) }
        return ICU.isAlphabetic(s)
    }

    /// Letters, digits, and the leet symbols `@` and `$`.
    @inline(__always)
    static func isTokenScalar(_ s: UInt32) -> Bool {
        if s < 0x80 {
            // One bit per ASCII token character: `$` and 0–9 in the low word, `@`, A–Z and a–z in
            // the high one.
            let mask: UInt64 = s < 0x40 ? 0x03FF_0010_0000_0000 : 0x07FF_FFFE_07FF_FFFF
            return (mask >> UInt64(s & 63)) & 1 != 0
        }
        return ICU.isAlphabetic(s)
    }

    /// Spaces and ASCII punctuation may separate spaced-out letters; line breaks may not.
    @inline(__always)
    static func isSeparator(_ s: UInt32) -> Bool {
        s == 0x20 || (0x21...0x7E).contains(s) && !isTokenScalar(s)
    }

    /// Whether one pass would change anything: a run of three identical ASCII letters, a leet
    /// symbol in a token with a letter, or three one-character ASCII tokens in a row with single
    /// separators between them.
    static func needsWork<Text: UnitStorage>(_ units: Text) -> Bool {
        if Text.Scalar.self == UInt8.self {
            // Bytes of ASCII (`ASCIIUnits`: the fast paths' views, and every squashing pass over
            // them): the table-driven test, with the same answer.
            return units.scalars.withUnsafeBufferPointer { scalars in
                UnsafeRawBufferPointer(scalars).withMemoryRebound(to: UInt8.self) { needsWork(ascii: $0) }
            }
        }
        let s = units.scalars
        let n = s.count
        var i = 0
        while i < n {
            guard isTokenScalar(UInt32(s[i])) else {
                i += 1
                continue
            }
            var end = i
            var hasLetter = false
            var hasLeet = false
            var same = 0
            while end < n && isTokenScalar(UInt32(s[end])) {
                let c = UInt32(s[end])
                if isLetter(c) { hasLetter = true } else if leet(c) != nil { hasLeet = true }
                if end > i && c == UInt32(s[end - 1]) && isASCIILetter(c) {
                    same += 1
                    if same >= 2 { return true }
                } else {
                    same = 0
                }
                end += 1
            }
            if hasLetter && hasLeet && !isQuantity(s, i..<end) { return true }
            // The same test as `join`'s: a non-ASCII one-letter token before "k.i" is not a
            // singleton, and counting it made this loop forever (the fuzzer found "ь.k.i.").
            if end - i == 1 && isSingleton(s, i) && singletonRun(s, at: i).count >= 3 { return true }
            i = end
        }
        return false
    }

    /// `needsWork` for pure-ASCII bytes, with the same answer as for their units; the ASCII
    /// fast path asks it instead of building units for the (rare) text that squashing changes.
    static func needsWork(ascii s: UnsafeBufferPointer<UInt8>) -> Bool {
        asciiClasses.withUnsafeBufferPointer { classes in
            let n = s.count
            var i = 0
            while i < n {
                guard classes[Int(s[i])] & ASCIIClass.token != 0 else {
                    i += 1
                    continue
                }
                var end = i
                var kinds: UInt8 = 0
                // The two bytes before `end` in this token (0: none).
                var previous: UInt8 = 0
                var beforePrevious: UInt8 = 0
                while end < n {
                    let c = s[end]
                    let kind = classes[Int(c)]
                    guard kind & ASCIIClass.token != 0 else { break }
                    kinds |= kind
                    // Three identical letters in a row (letters are token characters, so all three
                    // are in this token).
                    if c == previous && c == beforePrevious && kind & ASCIIClass.letter != 0 { return true }
                    beforePrevious = previous
                    previous = c
                    end &+= 1
                }
                if kinds & ASCIIClass.letter != 0 && kinds & ASCIIClass.leet != 0 && !isQuantity(s, i..<end) { return true }
                if end - i == 1 && singletonRun(s, at: i).count >= 3 { return true }
                i = end
            }
            return false
        }
    }

    /// What `needsWork(ascii:)` needs to know of a byte, as bits (bytes from 0x80 have none).
    enum ASCIIClass {
        /// A letter, digit, `@` or `$` (`isTokenScalar`).
        static let token: UInt8 = 1
        /// A–Z, a–z.
        static let letter: UInt8 = 2
        /// A leet symbol (`leet`).
        static let leet: UInt8 = 4
    }

    /// `ASCIIClass` bits of each byte.
    static let asciiClasses: [UInt8] = (0..<256).map { byte in
        let s = UInt32(byte)
        guard s < 0x80 else { return 0 }
        return (isTokenScalar(s) ? ASCIIClass.token : 0) | (isASCIILetter(s) ? ASCIIClass.letter : 0)
            | (!isASCIILetter(s) && leet(s) != nil ? ASCIIClass.leet : 0)
    }

    /// A one-character token at `i`: an ASCII token scalar with no token scalar on either side.
    /// (Only ASCII: joining other scripts' letters could create new canonical compositions.)
    /// `s` holds scalars, or the bytes of pure-ASCII text (`needsWork(ascii:)`).
    @inline(__always)
    static func isSingleton<Text: RandomAccessCollection>(_ s: Text, _ i: Int) -> Bool
    where Text.Index == Int, Text.Element: FixedWidthInteger {
        i >= 0 && i < s.count && s[i] < 0x80 && isTokenScalar(UInt32(s[i]))
            && (i == 0 || !isTokenScalar(UInt32(s[i - 1]))) && (i + 1 == s.count || !isTokenScalar(UInt32(s[i + 1])))
    }

    /// The run of singletons starting at the singleton `i`, each after the same single separator:
    /// how many, and the index of the last. "k.i.l.l h.i.m" is two runs, "kill" and "him".
    static func singletonRun<Text: RandomAccessCollection>(_ s: Text, at i: Int) -> (count: Int, last: Int)
    where Text.Index == Int, Text.Element: FixedWidthInteger {
        let n = s.count
        var last = i
        var count = 1
        let separator = i + 1 < n ? s[i + 1] : 0
        guard isSeparator(UInt32(separator)) else { return (count, last) }
        while last + 2 < n && s[last + 1] == separator && isSingleton(s, last + 2) {
            last += 2
            count += 1
        }
        return (count, last)
    }

    /// A number with a unit or ordinal ("3pm", "10am", "2nd", "5km", "30min"): not leetspeak.
    static func isQuantity<Text: RandomAccessCollection>(_ s: Text, _ token: Range<Int>) -> Bool
    where Text.Index == Int, Text.Element: FixedWidthInteger {
        var i = token.lowerBound
        while i < token.upperBound && (0x30...0x39).contains(s[i]) { i += 1 }
        guard i > token.lowerBound, i < token.upperBound else { return false }
        var suffix: UInt64 = 0
        for k in i..<token.upperBound {
            guard isASCIILetter(UInt32(s[k])), k - i < 4 else { return false }
            suffix = suffix << 8 | UInt64(s[k] | 0x20)
        }
        return quantitySuffixes.contains(suffix)
    }

    static let quantitySuffixes: Set<UInt64> = Set(
        ["am", "pm", "st", "nd", "rd", "th", "h", "hr", "hrs", "m", "min", "s", "sec", "k", "km", "kg", "g", "mg",
         "ml", "l", "d", "x", "gb", "mb", "tb", "p", "yo", "da", "de", "te", "ta", "te", "dk", "sa", "lik", "luk"].map {
            $0.utf8.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        })

    static func pass<Text: UnitStorage>(_ input: Text) -> Text {
        shorten(mapLeet(join(shorten(input))))
    }

    /// Runs of three or more identical ASCII letters become one letter.
    static func shorten<Text: UnitStorage>(_ input: Text) -> Text {
        guard hasStretchedLetter(input.scalars) else { return input }
        var out = Text(reservingCapacity: input.count)
        let s = input.scalars
        // Units before `copied` are in `out`; the rest are copied a span at a time, not one by one.
        var copied = 0
        var i = 0
        while i < s.count {
            var end = i + 1
            while end < s.count && s[end] == s[i] { end += 1 }
            if end - i >= 3 && isASCIILetter(UInt32(s[i])) {
                out.append(contentsOf: input, copied..<i)
                out.append(s[i], input.starts[i], input.ends[end - 1])
                copied = end
            }
            i = end
        }
        out.append(contentsOf: input, copied..<s.count)
        return out
    }

    /// Whether three identical ASCII letters follow each other somewhere (what `shorten` changes).
    static func hasStretchedLetter<Scalar: FixedWidthInteger>(_ scalars: [Scalar]) -> Bool {
        scalars.withUnsafeBufferPointer { s in
            var i = 2
            while i < s.count {
                if s[i] == s[i - 1] && s[i] == s[i - 2] && isASCIILetter(UInt32(s[i])) { return true }
                i += 1
            }
            return false
        }
    }

    /// Three or more one-character tokens separated by the same single separator are joined:
    /// "k i l l", "k.i.l.l", "k-1-l-l" → "kill"/"k1ll"; "k.i.l.l h.i.m" → "kill him".
    static func join<Text: UnitStorage>(_ input: Text) -> Text {
        let s = input.scalars
        let n = s.count
        // Built only from the first run to join on (most texts have none); the units between
        // runs are copied a span at a time (`input[0 ..< copied]` is in `out`).
        var out: Text?
        var copied = 0
        var i = 0
        // Token by token: `i` is always at a token's start or outside tokens, so a token of one
        // ASCII scalar is a singleton (`isSingleton`).
        while i < n {
            guard isTokenScalar(UInt32(s[i])) else {
                i += 1
                continue
            }
            var end = i + 1
            while end < n && isTokenScalar(UInt32(s[end])) { end += 1 }
            if end == i + 1 && s[i] < 0x80 {
                let run = singletonRun(s, at: i)
                if run.count >= 3 {
                    if out == nil { out = Text(reservingCapacity: n) }
                    out!.append(contentsOf: input, copied..<i)
                    var k = i
                    while k <= run.last {
                        out!.append(s[k], input.starts[k], input.ends[k])
                        k += 2
                    }
                    i = run.last + 1
                    copied = i
                    continue
                }
            }
            i = end
        }
        guard var out else { return input }
        out.append(contentsOf: input, copied..<n)
        return out
    }

    /// Leet symbols become letters inside tokens that hold at least one letter ("k1ll", "5uicide"),
    /// but numbers stay numbers ("at 5", "2024").
    static func mapLeet<Text: UnitStorage>(_ input: Text) -> Text {
        var out = input
        let s = input.scalars
        var i = 0
        while i < s.count {
            guard isTokenScalar(UInt32(s[i])) else {
                i += 1
                continue
            }
            var end = i
            var hasLetter = false
            var hasLeet = false
            while end < s.count && isTokenScalar(UInt32(s[end])) {
                let c = UInt32(s[end])
                if isLetter(c) { hasLetter = true } else if leet(c) != nil { hasLeet = true }
                end += 1
            }
            // Only a token with a letter and a leet symbol changes.
            if hasLetter && hasLeet && !isQuantity(s, i..<end) {
                for k in i..<end {
                    if let letter = leet(UInt32(s[k])) { out.scalars[k] = Text.Scalar(truncatingIfNeeded: letter) }
                }
            }
            i = end
        }
        return out
    }
}

/// ASCII scalars as bytes, with their original ranges: an ascii view under construction.
struct ASCIIUnits: UnitStorage {
    var scalars: [UInt8] = []
    var starts: [UInt32] = []
    var ends: [UInt32] = []

    init() {}

    init(scalars: [UInt8], starts: [UInt32], ends: [UInt32]) {
        self.scalars = scalars
        self.starts = starts
        self.ends = ends
    }

    /// As a view: the bytes, each mapped to its range.
    func view(_ name: ViewName, originalCount: Int) -> NormalizedView {
        NormalizedView(name: name, utf8: scalars, map: OffsetMap(starts: starts, ends: ends, originalCount: originalCount))
    }
}
