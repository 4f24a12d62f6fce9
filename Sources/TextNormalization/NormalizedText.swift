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
    private let views: [NormalizedView?]

    /// Normalises a string.
    public init(_ text: String, options: NormalizationOptions = NormalizationOptions()) {
        self.init(bytes: Array(text.utf8), options: options)
    }

    /// Normalises raw bytes; invalid UTF-8 becomes U+FFFD and is flagged, never a crash.
    public init(bytes: [UInt8], options: NormalizationOptions = NormalizationOptions()) {
        original = bytes
        let (raw, replaced) = bytes.withUnsafeBufferPointer { UTF8Encoding.decode($0) }
        hadInvalidUTF8 = replaced
        isASCII = !replaced && raw.isASCII
        // The raw text decides Turkic folding; the squashed view, which sees through evasions,
        // refines the guess once it is built.
        let rawScore = LanguageGuess.score(raw)
        let turkic = options.localeLanguage == .tr || rawScore.language == .tr
        turkicFolding = turkic
        var squashedScore: LanguageGuess.Score?

        let deepest = options.views.max() ?? .raw
        var built: [NormalizedView?] = Array(repeating: nil, count: ViewName.allCases.count)
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
    public var builtViews: [NormalizedView] { views.compactMap { $0 } }
}
