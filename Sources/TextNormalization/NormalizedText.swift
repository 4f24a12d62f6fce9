public import SafetyCore

/// A prompt with the normalised views that rules read, each mapped back to the original bytes.
///
/// ```swift
/// let text = NormalizedText("İNTİHAR ETMEK İSTİYORUM")
/// text.language                   // .tr
/// text.view(.ascii).text          // "intihar etmek istiyorum"
/// ```
public struct NormalizedText: Sendable {
    /// The original bytes, exactly as received.
    public let original: [UInt8]
    /// True when the original was not valid UTF-8 and U+FFFD stands in for the invalid bytes.
    public let hadInvalidUTF8: Bool
    /// True when the original is pure ASCII (no ICU work was needed).
    public let isASCII: Bool
    /// The guessed language of the text.
    public let language: Language
    /// Whether Turkic case folding was used.
    public let turkicFolding: Bool
    private let views: ViewSlots

    /// Every field given (the fast paths in other files).
    init(original: [UInt8], hadInvalidUTF8: Bool, isASCII: Bool, language: Language, turkicFolding: Bool, views: ViewSlots) {
        self.original = original
        self.hadInvalidUTF8 = hadInvalidUTF8
        self.isASCII = isASCII
        self.language = language
        self.turkicFolding = turkicFolding
        self.views = views
    }

    /// Normalises a string.
    public init(_ text: String, options: NormalizationOptions = NormalizationOptions()) {
        self.init(bytes: Array(text.utf8), options: options)
    }

    /// Normalises raw bytes; invalid UTF-8 becomes U+FFFD and is flagged, never a crash.
    public init(bytes: [UInt8], options: NormalizationOptions = NormalizationOptions()) {
        self.init(bytes: bytes, options: options, asciiFastPath: true)
    }

    /// Normalises raw bytes, plain ASCII on the fast path unless `asciiFastPath` is false (for the
    /// tests that compare the two paths; the views, maps and flags must be the same).
    init(bytes: [UInt8], options: NormalizationOptions, asciiFastPath: Bool) {
        guard asciiFastPath else {
            self.init(anyBytes: bytes, options: options, rawScore: nil)
            return
        }
        let facts = bytes.withUnsafeBufferPointer { ASCIIFacts($0) }
        guard facts.isPlainASCII else {
            // Simple text (Turkish letters, accents, look-alikes, zero-width characters), when only
            // the views after folding are wanted (`hasInvisibleControl` is no guide here: it counts
            // every byte from 0x7F).
            if let simple = NormalizedText(simpleText: bytes, options: options) {
                self = simple
                return
            }
            self.init(anyBytes: bytes, options: options, rawScore: nil)
            return
        }
        let rawScore = bytes.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) }
        let turkic = options.localeLanguage == .tr || rawScore.language == .tr
        // Turkish is often typed in ASCII; there Turkic folding makes `I` a non-ASCII `ı`.
        if turkic && facts.hasCapitalI {
            if let simple = NormalizedText(simpleText: bytes, options: options) {
                self = simple
                return
            }
            self.init(anyBytes: bytes, options: options, rawScore: rawScore)
        } else {
            self.init(plainASCII: bytes, hasUppercase: facts.hasUppercase, options: options, rawScore: rawScore, turkic: turkic)
        }
    }

    /// Pure ASCII without controls to remove, folding that only lowercases: every view is the
    /// bytes or their lowercase, each byte mapped to itself, unless squashing changes something.
    private init(plainASCII bytes: [UInt8], hasUppercase: Bool, options: NormalizationOptions, rawScore: LanguageGuess.Score, turkic: Bool) {
        original = bytes
        hadInvalidUTF8 = false
        isASCII = true
        turkicFolding = turkic
        // Bit `index` for each requested view.
        var wanted = 0
        var deepest = ViewName.raw
        for name in options.views {
            wanted |= 1 << name.index
            deepest = max(deepest, name)
        }
        let identity = OffsetMap.identity(originalCount: bytes.count)
        var built = ViewSlots()
        func keep(_ name: ViewName, _ utf8: [UInt8]) {
            if wanted & 1 << name.index != 0 { built[name.index] = NormalizedView(name: name, utf8: utf8, map: identity) }
        }
        keep(.raw, bytes)
        var squashedScore: LanguageGuess.Score?
        if deepest >= .folded {
            // Nothing else to fold, no look-alikes, nothing to make ASCII: one array for three views.
            let folded = hasUppercase ? ASCIIFacts.lowercased(bytes) : bytes
            keep(.folded, folded)
            keep(.skeleton, folded)
            keep(.ascii, folded)
            if deepest >= .squashed {
                if folded.withUnsafeBufferPointer({ Squashing.needsWork(ascii: $0) }) {
                    // Squashed as bytes: every unit is one byte, mapped to itself.
                    let units = ASCIIUnits(
                        scalars: folded, starts: Offsets.run(from: 0, count: folded.count), ends: Offsets.run(from: 1, count: folded.count))
                    let squashed = Squashing.map(units, original: bytes, needsWork: true, withoutControls: true) ?? units
                    squashedScore = squashed.scalars.withUnsafeBufferPointer { LanguageGuess.score(ascii: $0) }
                    if wanted & 1 << ViewName.squashed.index != 0 {
                        built[ViewName.squashed.index] = squashed.view(.squashed, originalCount: bytes.count)
                    }
                } else {
                    // The raw words, lowercased: the score lowercases ASCII itself.
                    squashedScore = rawScore
                    keep(.squashed, folded)
                }
            }
        }
        views = built
        language = squashedScore.map { rawScore.combined(wordsFrom: $0).language } ?? rawScore.language
    }

    /// Any bytes, through every stage. `rawScore` is the raw text's language score if known.
    private init(anyBytes bytes: [UInt8], options: NormalizationOptions, rawScore knownRawScore: LanguageGuess.Score?) {
        original = bytes
        let (raw, replaced) = bytes.withUnsafeBufferPointer { UTF8Encoding.decode($0) }
        hadInvalidUTF8 = replaced
        isASCII = !replaced && raw.isASCII
        // The raw text decides Turkic folding; the squashed view, which sees through evasions,
        // refines the guess once it is built.
        let rawScore = knownRawScore ?? LanguageGuess.score(raw)
        let turkic = options.localeLanguage == .tr || rawScore.language == .tr
        turkicFolding = turkic
        var squashedScore: LanguageGuess.Score?

        let deepest = options.views.max() ?? .raw
        var built = ViewSlots()
        // A stage that changes nothing shares its predecessor's arrays (copy-on-write, no copy).
        var previous: (units: Units, view: NormalizedView?)?
        func keep(_ name: ViewName, _ units: Units, unchanged: Bool = false) {
            guard options.views.contains(name) else {
                if !unchanged { previous = (units, nil) }
                return
            }
            if unchanged, let view = previous?.view {
                built[name.index] = view.renamed(name)
            } else {
                let view = units.view(name, originalCount: bytes.count)
                built[name.index] = view
                previous = (units, view)
            }
        }
        keep(.raw, raw)
        // Whether the folded view holds the raw words, only lowercased (the language score, which
        // lowercases ASCII, would find the same words there).
        var foldedHasRawWords = false
        if deepest >= .folded {
            let folded: Units
            if isASCII {
                if (turkic && raw.scalars.contains(0x49)) || raw.scalars.contains(where: Folding.isInvisibleControl) {
                    var out = Units(reservingCapacity: raw.count)
                    for i in 0..<raw.count where !Folding.isInvisibleControl(raw.scalars[i]) {
                        Folding.appendASCII(raw.scalars[i], turkic: turkic, raw.starts[i], raw.ends[i], to: &out)
                    }
                    folded = out
                } else {
                    folded = raw.asciiLowercased()
                    foldedHasRawWords = true
                }
            } else {
                // ICU only fails on resource errors; fall back to the raw text rather than lose the prompt.
                folded = (try? Folding.fold(raw, turkic: turkic)) ?? raw
            }
            keep(.folded, folded)
            if deepest >= .skeleton {
                // Without a look-alike letter in any word the view is `folded` (no copy, no second encoding).
                let mapped = folded.isASCII ? nil : Skeleton.map(folded)
                let skeleton = mapped ?? folded
                keep(.skeleton, skeleton, unchanged: mapped == nil)
                if deepest >= .ascii {
                    let skeletonIsASCII = skeleton.isASCII
                    let ascii = skeletonIsASCII ? skeleton : ASCIIFolding.map(skeleton)
                    keep(.ascii, ascii, unchanged: skeletonIsASCII)
                    if deepest >= .squashed {
                        let squashed = Squashing.map(ascii, original: bytes)
                        squashedScore = squashed == nil && foldedHasRawWords ? rawScore : LanguageGuess.score(squashed ?? ascii)
                        keep(.squashed, squashed ?? ascii, unchanged: squashed == nil)
                    }
                }
            }
        }
        views = built
        language = squashedScore.map { rawScore.combined(wordsFrom: $0).language } ?? rawScore.language
    }

    /// The view `name`. It must have been requested in the options (all are, by default).
    public func view(_ name: ViewName) -> NormalizedView {
        guard let view = views[name.index] else { preconditionFailure("view \(name) was not built") }
        return view
    }

    /// The view `name` if it was built.
    public func viewIfBuilt(_ name: ViewName) -> NormalizedView? { views[name.index] }

    /// Every view that was built, in pipeline order.
    public var builtViews: [NormalizedView] { ViewName.allCases.compactMap { views[$0.index] } }
}
