#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import SafetyCore
public import TextNormalization

/// Matches a compiled rule set against texts, on one thread.
///
/// A matcher owns PCRE2's per-thread state (match data, match context with the limits, JIT stack)
/// and reuses it for every search, so matching allocates nothing but the results. It is not
/// `Sendable`: make one per thread or task with `CompiledRuleSet.makeMatcher()`.
/// ```swift
/// let matcher = rules.makeMatcher()
/// let result = matcher.match(rules.normalize(prompt))
/// result.firedRuleIDs          // ["en.violence.kill-person"]
/// result.limitHits             // searches cut short, if any
/// ```
/// A caller that needs only some rules, in stages (the classifier: emergencies first, safe
/// look-alikes only when something harmful fired), starts a text with `begin(_:)` and then calls
/// `match(_:into:)` per selection; the literal scan of each view is done once per text.
public final class RuleMatcher {
    public let ruleSet: CompiledRuleSet
    public let limits: MatchLimits
    /// Totals since the matcher was made.
    public private(set) var counters = MatchCounters()
    /// Whether to skip rules whose required words are absent from a view. On by default; results
    /// are the same either way, only the time differs.
    public var usesPrefilter = true
    /// Whether to match views that are pure ASCII with byte-mode code instead of UTF code. On by
    /// default; results are the same either way, only the time differs.
    public var usesBytesMode = true
    /// Whether a rule skips a view whose bytes and offset map equal those of another view it
    /// reads (the squashed view of a prompt with nothing to squash is its ascii view): the matches
    /// would be the same. On by default; only the views reported for matches differ.
    public var skipsDuplicateViews = true
    /// Whether a rule with an anchor (`AnchorAnalysis`) is searched only from just before each
    /// occurrence of its anchor words, with PCRE2's offset limit, instead of over the whole view.
    /// On by default; results are the same either way, only the time differs.
    public var usesWindows = true
    /// Whether a view behind a shut gate (`ViewGates`) is skipped: neither scanned nor searched,
    /// and not needed. On by default; results are the same either way, only the time differs.
    public var usesViewGates = true
    /// Whether a rule whose pattern matched nowhere on the ascii view is searched on the squashed
    /// view only where a match attempt reads a byte that squashing changed (a 1 KB prompt with
    /// one spaced-out or leetspeak word is otherwise searched twice over). Elsewhere the two views
    /// hold the same bytes from the same original bytes, and an attempt reads only a bounded
    /// stretch around its start (`LiteralAnalysis.inspectionBound(of:)`), so it fails there as it
    /// failed on the ascii view. Patterns whose reach is not bounded are searched whole. On by
    /// default; results are the same either way, only the time differs.
    public var skipsUnchangedRegions = true

    /// When set, every rule-and-view search is appended to it, timed (`dev bench --search-log`,
    /// to see which rules make a slow prompt slow); nil, the default, costs one test per search.
    public var searchLog: [SearchLogEntry]?
    /// With `searchLog` set: how long the last `begin(_:)` took (the literal scans of the views).
    public private(set) var lastBeginDuration: Duration?

    let resources: MatchResources
    // What the loop over candidate rules reads, in buffers of the matcher's own. Retaining and
    // releasing a buffer or object that every thread shares is an atomic write to one cache line
    // from both cores: with the rule set's own arrays and rule objects, `swift_retain` went from
    // 3 % to 11 % of `classify --jobs 2` on short prompts, each record cost 14 % more CPU than
    // with one job, and two jobs were 1.68× one.
    /// The rule set's prefilter, with its per-rule arrays copied (`withOwnRuleArrays`).
    private let prefilter: LiteralPrefilter
    /// The rule set's view gates, copied.
    private let viewGates: ViewGates
    /// Per rule (set order): the view slots it reads, as bits.
    private let viewMasks: [UInt8]
    /// Per rule: whether the prefilter has groups for it.
    private let hasGroups: [Bool]
    /// Per rule: the compiled rule, not retained (the rule set, which the matcher holds, keeps
    /// every one alive); borrowed with `_withUnsafeGuaranteedRef` for a search.
    private let rules: [Unmanaged<CompiledRule>]
    /// Per view slot: whether some rule reads the view.
    private let readsView: [Bool]
    /// Per label (`RuleLabel.allCases` order): the selection of its enabled rules, copied.
    private let labelSelections: [RuleSelection]
    private var unlessSpans: [Range<Int>] = []
    /// For each view slot, what the literal scan found in it.
    private var scans: [ScanState]
    /// For each view slot, the rules that may match it (`slot * ruleWords + word`, bit sets).
    private var candidates: [UInt64]
    private let ruleWords: Int

    // The text being matched (see `begin(_:)`).
    private var views = [NormalizedView?](repeating: nil, count: ViewName.allCases.count)
    /// For each slot, the first slot with the same bytes and map (itself when none).
    private var sameAs = Array(0..<ViewName.allCases.count)
    /// For each slot, whether its gate is shut for the text (`ViewGates`): no rule can match it.
    private var shut = [Bool](repeating: false, count: ViewName.allCases.count)
    /// For each slot, whether the rule set reads the view but it was not built.
    private var missing = [Bool](repeating: false, count: ViewName.allCases.count)
    /// For each slot, whether the view was scanned for this text (and so may stand for another).
    private var scanned = [Bool](repeating: false, count: ViewName.allCases.count)
    /// For each gate of the rule set, whether it is open for the text, once looked at.
    private var gateOpen: [Bool?]

    private func gateIsOpen(_ gate: Int, _ text: NormalizedText) -> Bool {
        if let known = gateOpen[gate] { return known }
        let open = viewGates.isOpen(gate: gate, in: text)
        gateOpen[gate] = open
        return open
    }
    /// For each slot, whether its bytes are all ASCII.
    private var viewIsASCII = [Bool](repeating: false, count: ViewName.allCases.count)
    /// The rules that may match some view of the text.
    private var anyCandidates: [UInt64]
    /// Scratch: the windows of the rule being searched.
    private var windows: [ClosedRange<Int>] = []
    /// Scratch: windows being intersected, and their intersection.
    private var otherWindows: [ClosedRange<Int>] = []
    private var intersection: [ClosedRange<Int>] = []
    private static let asciiSlot = ViewName.allCases.firstIndex(of: .ascii)!
    private static let squashedSlot = ViewName.allCases.firstIndex(of: .squashed)!
    /// The regions of the squashed view that differ from the ascii view (`skipsUnchangedRegions`),
    /// sorted, computed at the first rule that needs them.
    private var changedRegions: [Range<Int>] = []
    private var changedRegionsKnown = false
    /// Per rule: how far a match attempt of its pattern reads; nil when unbounded.
    private let inspectionBounds: [InspectionBound?]
    /// Per rule: its anchor's literal ids (`LiteralPrefilter.anchorLiterals`) as a range of
    /// `anchorIDs`, or nil. One flat array: passing a rule's own array retained and released it.
    private let anchorRanges: [Range<Int32>?]
    private let anchorIDs: [Int32]

    init(ruleSet: CompiledRuleSet, limits: MatchLimits) {
        self.ruleSet = ruleSet
        self.limits = limits
        resources = MatchResources(limits: limits)
        prefilter = ruleSet.prefilter.withOwnRuleArrays()
        viewGates = ruleSet.viewGates.withOwnArrays()
        viewMasks = ruleSet.compiled.map { rule in rule.viewSlots.reduce(UInt8(0)) { $0 | 1 << UInt8($1) } }
        hasGroups = ruleSet.prefilter.ruleGroups.map { $0 != nil }
        rules = ruleSet.compiled.map { Unmanaged.passUnretained($0) }
        readsView = ViewName.allCases.map { ruleSet.views.contains($0) }
        labelSelections = RuleLabel.allCases.map { ruleSet.selection(label: $0).ownCopy() }
        scans = Array(repeating: ScanState(literalCount: ruleSet.prefilter.literalCount), count: ViewName.allCases.count)
        ruleWords = RuleBits.words(for: ruleSet.compiled.count)
        candidates = Array(repeating: 0, count: ruleWords * ViewName.allCases.count)
        anyCandidates = Array(repeating: 0, count: ruleWords)
        gateOpen = Array(repeating: nil, count: ruleSet.viewGates.gates.count)
        inspectionBounds = ruleSet.compiled.map(\.inspection)
        var anchorIDs: [Int32] = []
        anchorRanges = prefilter.anchorLiterals.map { anchor in
            guard let anchor else { return nil }
            let start = Int32(anchorIDs.count)
            anchorIDs += anchor
            return start..<Int32(anchorIDs.count)
        }
        self.anchorIDs = anchorIDs
    }

    /// Normalises `text` with the views the rule set reads, then matches it.
    public func match(_ text: String, localeLanguage: Language? = nil, mode: MatchMode = .all) -> RuleMatchResult {
        match(ruleSet.normalize(text, localeLanguage: localeLanguage), mode: mode)
    }

    /// Matches every enabled rule (or only the rules named in `ruleIDs`) against the views of `text`.
    ///
    /// A rule fires when its pattern matches one of its views at a place that overlaps no match of
    /// its `unless` patterns on the same view; rejected matches do not stop the search. The views
    /// the rules read must have been built (see `CompiledRuleSet.normalizationOptions`); a missing
    /// view is reported as a failure of the rules that read it.
    public func match(_ text: NormalizedText, only ruleIDs: Set<String>? = nil, mode: MatchMode = .all) -> RuleMatchResult {
        begin(text)
        var result = RuleMatchResult()
        match(ruleIDs.map { ruleSet.selection(ids: $0) } ?? ruleSet.allEnabled, into: &result, mode: mode)
        return result
    }

    /// Starts matching `text`: the following `match(_:into:mode:)` calls search its views.
    ///
    /// Each distinct view the rule set reads is scanned once for the rules' required literals
    /// here; a view that was not built makes every rule a candidate (each reports the failure).
    public func begin(_ text: NormalizedText) {
        let logStart = searchLog != nil ? ContinuousClock.now : nil
        defer { lastBeginDuration = logStart.map { ContinuousClock.now - $0 } }
        counters.texts += 1
        changedRegionsKnown = false
        let slotCount = views.count
        let words = ruleWords
        let allRules = ~UInt64(0)
        anyCandidates.withUnsafeMutableBufferPointer { any in any.update(repeating: 0) }
        // Each gate is looked at once per text, at the first view it guards.
        for gate in gateOpen.indices { gateOpen[gate] = nil }
        for slot in 0..<slotCount {
            let name = ViewName.allCases[slot]
            views[slot] = text.viewIfBuilt(name)
            sameAs[slot] = slot
            scans[slot].clear()
            shut[slot] = false
            missing[slot] = false
            scanned[slot] = false
            guard readsView[slot] else { continue }
            if usesPrefilter && usesViewGates, let gate = viewGates.gateOfSlot[slot], !gateIsOpen(gate, text) {
                // No rule can match this view (it may not even be built): no candidates.
                shut[slot] = true
                for word in 0..<words { candidates[slot * words + word] = 0 }
                continue
            }
            guard let view = views[slot] else {
                missing[slot] = true
                anyCandidates.withUnsafeMutableBufferPointer { any in any.update(repeating: allRules) }
                continue
            }
            if skipsDuplicateViews {
                // Only a view scanned for this text can stand for another.
                for earlier in 0..<slot where scanned[earlier] {
                    if let other = views[earlier], other.utf8 == view.utf8, other.map == view.map {
                        sameAs[slot] = earlier
                        break
                    }
                }
            }
            guard sameAs[slot] == slot else {
                viewIsASCII[slot] = viewIsASCII[sameAs[slot]]
                continue
            }
            viewIsASCII[slot] = view.utf8.withUnsafeBufferPointer { Self.isASCII($0) }
            scanned[slot] = true
            if usesPrefilter {
                candidates.withUnsafeMutableBufferPointer { allCandidates in
                    let mine = UnsafeMutableBufferPointer(rebasing: allCandidates[(slot * words)..<((slot + 1) * words)])
                    view.utf8.withUnsafeBufferPointer { prefilter.scan($0, into: &scans[slot], candidates: mine) }
                }
            } else {
                for word in 0..<words { candidates[slot * words + word] = allRules }
            }
            for word in 0..<words { anyCandidates[word] |= candidates[slot * words + word] }
        }
    }

    /// `match(_:into:mode:startingBefore:)` with the enabled rules of `label`, from the matcher's
    /// own copy of the selection (the rule set's is shared by every thread).
    public func match(label: RuleLabel, into result: inout RuleMatchResult, mode: MatchMode = .all, startingBefore originalLimit: Int? = nil) {
        let index = RuleLabel.allCases.firstIndex(of: label)!
        match(labelSelections[index], into: &result, mode: mode, startingBefore: originalLimit)
    }

    /// Searches the selected rules on the text given to `begin(_:)`, appending to `result`.
    /// Rules come in set order, each on its views in pipeline order, so results stay sorted.
    /// Only rules that the literal scan admitted on some view are visited.
    ///
    /// With `startingBefore`, only matches whose original text starts before that original
    /// offset are looked for (the classifier's safe look-alikes matter only where they overlap a
    /// harmful match, so none that starts after the last one ends).
    public func match(
        _ selection: RuleSelection, into result: inout RuleMatchResult, mode: MatchMode = .all, startingBefore originalLimit: Int? = nil
    ) {
        // Per view slot, the last view offset a match may start at (-1: none), computed on use.
        if let originalLimit {
            for slot in 0..<views.count { startLimits[slot] = Self.unknownLimit }
            self.originalLimit = originalLimit
        } else {
            self.originalLimit = nil
        }
        let usesPrefilter = usesPrefilter
        let words = ruleWords
        let searchedBefore = counters.ruleViewsSearched
        let failuresBefore = counters.failures
        for word in 0..<min(words, selection.bits.count) {
            var bits = selection.bits[word] & anyCandidates[word]
            while bits != 0 {
                let index = word << 6 | bits.trailingZeroBitCount
                bits &= bits - 1
                let hasGroups = usesPrefilter && self.hasGroups[index]
                let viewMask = viewMasks[index]
                // The distinct views (by bytes and map) this rule was searched on, as slot bits; and
                // those where its pattern matched (accepted or not) or a search stopped early.
                var searchedCanonicals: UInt32 = 0
                var matchedCanonicals: UInt32 = 0
                for slot in 0..<views.count where viewMask & (1 << UInt8(slot)) != 0 && !shut[slot] {
                    let canonical = sameAs[slot]
                    if searchedCanonicals & (1 << UInt32(canonical)) != 0 {
                        // Same bytes as a view this rule was just searched on: same matches.
                        continue
                    }
                    searchedCanonicals |= 1 << UInt32(canonical)
                    if missing[slot] {
                        result.failures.append(
                            MatchFailure(
                                ruleID: rules[index].takeUnretainedValue().rule.id, view: ViewName.allCases[slot], code: 0,
                                message: "view \(ViewName.allCases[slot].rawValue) was not built"))
                        counters.failures += 1
                        continue
                    }
                    if hasGroups {
                        let admitted =
                            candidates[canonical * words + word] & (1 << UInt64(index & 63)) != 0
                            && prefilter.admitsCandidate(rule: index, found: scans[canonical].found)
                        if !admitted { continue }
                    }
                    // Only now the view itself (a copy retains its arrays).
                    guard let built = views[slot] else { continue }
                    let startLimit = startLimit(slot: slot, view: built)
                    if let startLimit, startLimit < 0 { continue }
                    var windowed = false
                    if usesWindows && usesPrefilter, let anchor = anchorRanges[index], built.utf8.count < Int(Int32.max) {
                        // No occurrence of an anchor word: no match can start anywhere.
                        let made = anchorIDs.withUnsafeBufferPointer { ids in
                            makeWindows(
                                anchor: UnsafeBufferPointer(rebasing: ids[Int(anchor.lowerBound)..<Int(anchor.upperBound)]),
                                prefix: prefilter.anchorPrefix[index], canonical: canonical)
                        }
                        guard made else { continue }
                        windowed = true
                        // Only where every group has a literal within a match's reach.
                        if hasGroups, scans[canonical].groupOccurrences, prefilter.proximityGroups[index] != nil,
                            let bound = inspectionBounds[index],
                            !keepWindowsNearGroups(rule: index, bound, canonical: canonical)
                        {
                            continue
                        }
                    }
                    if slot == Self.squashedSlot && canonical == slot && skipsUnchangedRegions && usesPrefilter
                        && viewMask & (1 << UInt8(Self.asciiSlot)) != 0 && views[Self.asciiSlot] != nil,
                        matchedCanonicals & (1 << UInt32(sameAs[Self.asciiSlot])) == 0, let bound = inspectionBounds[index]
                    {
                        // The pattern matched nowhere on the ascii view, searched just before (nor
                        // was that search cut short): a match attempt in a region of the squashed
                        // view that squashing left as it was reads the same bytes as one there, so
                        // it fails too. Only attempts that read a changed byte can succeed.
                        guard restrictToChangedRegions(bound, slot: slot, windowed: windowed) else { continue }
                        windowed = true
                    }
                    let logStart = searchLog != nil ? ContinuousClock.now : nil
                    let callsBefore = counters.searches
                    let fired = rules[index]._withUnsafeGuaranteedRef { compiled in
                        search(
                            compiled, index: index, on: built, scanned: usesPrefilter && scanned[canonical] ? canonical : nil,
                            ascii: viewIsASCII[slot], windowed: windowed, startLimit: startLimit, mode: mode, into: &result)
                    }
                    if let logStart {
                        searchLog?.append(
                            SearchLogEntry(
                                ruleID: rules[index].takeUnretainedValue().rule.id, label: rules[index].takeUnretainedValue().rule.label,
                                view: ViewName.allCases[slot], calls: counters.searches - callsBefore, duration: ContinuousClock.now - logStart,
                                fired: fired))
                    }
                    if lastSearchMatchedOrStopped { matchedCanonicals |= 1 << UInt32(canonical) }
                    if fired && mode == .firstPerRule { break }
                }
            }
        }
        // Pairs not searched: ruled out by the literal scan or the same as another view.
        counters.ruleViewsSkipped +=
            selection.viewPairs - (counters.ruleViewsSearched - searchedBefore) - (counters.failures - failuresBefore)
    }

    /// The original offset of `match(_:into:mode:startingBefore:)`, for this call.
    private var originalLimit: Int?
    /// Per view slot, the last view offset a match may start at under `originalLimit`.
    private var startLimits = [Int](repeating: -1, count: ViewName.allCases.count)
    private static let unknownLimit = Int.min

    /// The last offset of `view` (in `slot`) where a match may start under `originalLimit`, -1
    /// when none may, nil without a limit: the view bytes before the first one whose original
    /// text starts at or after the limit (the map's starts never decrease).
    private func startLimit(slot: Int, view: NormalizedView) -> Int? {
        guard let originalLimit else { return nil }
        if startLimits[slot] != Self.unknownLimit { return startLimits[slot] }
        var low = 0
        var high = view.map.count
        while low < high {
            let middle = (low + high) / 2
            if view.map.originalRange(of: middle..<(middle + 1)).lowerBound < originalLimit { low = middle + 1 } else { high = middle }
        }
        startLimits[slot] = low - 1
        return low - 1
    }

    // MARK: Windows

    /// Fills `windows` with the start positions a match of a rule with this anchor can have on the
    /// view in slot `canonical` (or one with the same bytes): from `prefix` bytes before each
    /// occurrence of an anchor literal up to the occurrence, merged and sorted. False when there is
    /// none.
    private func makeWindows(anchor: UnsafeBufferPointer<Int32>, prefix: LengthBound, canonical: Int) -> Bool {
        windows.empty()
        let reach: Int
        if prefix.hasRuns {
            // Measured by the literal scan of the view.
            reach = prefix.bytes(in: scans[canonical].runs, ascii: viewIsASCII[canonical])
        } else {
            // Most anchors start their match, or sit a few characters in: no runs to measure.
            reach = prefix.bytes(in: RunStats(), ascii: viewIsASCII[canonical])
        }
        // Each literal's occurrences, last first.
        let literals = scans[canonical].appendWindows(anchor: anchor, reach: reach, to: &windows)
        if windows.isEmpty { return false }
        if literals == 1 {
            windows.reverse()
        } else {
            // Insertion sort: a handful of windows, mostly in order already.
            for i in 1..<windows.count {
                let window = windows[i]
                var j = i
                while j > 0 && windows[j - 1].lowerBound > window.lowerBound {
                    windows[j] = windows[j - 1]
                    j -= 1
                }
                windows[j] = window
            }
        }
        // Merge windows that overlap or nearly touch: a search across a short gap costs less than
        // another call.
        var merged = 0
        for index in 1..<windows.count {
            if windows[index].lowerBound <= windows[merged].upperBound + Self.windowGap {
                windows[merged] = windows[merged].lowerBound...max(windows[merged].upperBound, windows[index].upperBound)
            } else {
                merged += 1
                windows[merged] = windows[index]
            }
        }
        // One at a time: `removeLast(_:)` goes through `replaceSubrange`, 15k instructions per
        // slow 1 KB record.
        while windows.count > merged + 1 { windows.removeLast() }
        if !viewIsASCII[canonical] { Self.startOnCharacters(&windows, in: views[canonical]!) }
        return true
    }

    /// Drops the windows in which no match can start because some requirement group of rule
    /// `index` has no occurrence within reach: a match starting in window `a...b` lies in
    /// `a ..< b + ahead` (`ahead` bounds how far from its start an attempt reads, the match
    /// included) and holds a literal of every group. A rule's anchor words and its other
    /// required words often both occur in a long prompt, but far apart. False when none is left.
    private func keepWindowsNearGroups(rule index: Int, _ bound: InspectionBound, canonical: Int) -> Bool {
        let ahead = bound.ahead.bytes(in: scans[canonical].runs, ascii: viewIsASCII[canonical])
        let near = windows.withUnsafeBufferPointer { prefilter.windowsNearGroups(rule: index, $0, ahead: ahead, in: scans[canonical]) }
        let count = windows.count
        if near == 0 && count <= 64 { return false }
        if count >= 64 || near != (1 << UInt64(count)) - 1 {
            var kept = 0
            for window in 0..<count where window >= 64 || near & (1 << UInt64(window)) != 0 {
                windows[kept] = windows[window]
                kept += 1
            }
            while windows.count > kept { windows.removeLast() }
        }
        return true
    }

    // MARK: Unchanged regions

    /// Finds where the squashed view differs from the ascii view: walking both, a byte pairs
    /// with the other view's when both it and the original bytes it came from are the same;
    /// elsewhere the views are walked in the order of their original offsets until they pair
    /// again. Each region also holds the paired bytes on both sides of it (a match attempt across
    /// the seam reads both, and they are not neighbours in the ascii view), and one past the end
    /// when the ascii view goes on (an attempt there sees the end of the subject).
    private func findChangedRegions() {
        changedRegionsKnown = true
        changedRegions.empty()
        guard let ascii = views[Self.asciiSlot], let squashed = views[Self.squashedSlot] else { return }
        ascii.map.withBounds { aStarts, aEnds in
            squashed.map.withBounds { sStarts, sEnds in
                ascii.utf8.withUnsafeBufferPointer { a in
                    squashed.utf8.withUnsafeBufferPointer { s in
                        changedRegions = Self.changedRegions(
                            a, aStarts: aStarts, aEnds: aEnds, s, sStarts: sStarts, sEnds: sEnds, into: changedRegions)
                    }
                }
            }
        }
    }

    /// The walk of `findChangedRegions`; a nil map is the identity.
    static func changedRegions(
        _ a: UnsafeBufferPointer<UInt8>, aStarts: UnsafeBufferPointer<UInt32>?, aEnds: UnsafeBufferPointer<UInt32>?,
        _ s: UnsafeBufferPointer<UInt8>, sStarts: UnsafeBufferPointer<UInt32>?, sEnds: UnsafeBufferPointer<UInt32>?,
        into regions: [Range<Int>]
    ) -> [Range<Int>] {
        var regions = regions
        let nA = a.count
        let nS = s.count
        @inline(__always) func aStart(_ i: Int) -> UInt32 { aStarts.map { $0[i] } ?? UInt32(truncatingIfNeeded: i) }
        @inline(__always) func sStart(_ j: Int) -> UInt32 { sStarts.map { $0[j] } ?? UInt32(truncatingIfNeeded: j) }
        @inline(__always) func paired(_ i: Int, _ j: Int) -> Bool {
            i < nA && j < nS && a[i] == s[j] && aStart(i) == sStart(j)
                && (aEnds.map { $0[i] } ?? UInt32(truncatingIfNeeded: i + 1)) == (sEnds.map { $0[j] } ?? UInt32(truncatingIfNeeded: j + 1))
        }
        /// How many units pair from `i` and `j` on: one tight loop per kind of map (the usual case
        /// is a long run of them, an identity map against an explicit one).
        func pairedRun(_ i: Int, _ j: Int) -> Int {
            let limit = min(nA - i, nS - j)
            var k = 0
            switch (aStarts, aEnds, sStarts, sEnds) {
            case let (aStarts?, aEnds?, sStarts?, sEnds?):
                while k < limit && a[i + k] == s[j + k] && aStarts[i + k] == sStarts[j + k] && aEnds[i + k] == sEnds[j + k] { k += 1 }
            case let (nil, _, sStarts?, sEnds?):
                while k < limit && a[i + k] == s[j + k] && sStarts[j + k] == UInt32(truncatingIfNeeded: i + k)
                    && sEnds[j + k] == UInt32(truncatingIfNeeded: i + k + 1)
                {
                    k += 1
                }
            case let (aStarts?, aEnds?, nil, _):
                while k < limit && a[i + k] == s[j + k] && aStarts[i + k] == UInt32(truncatingIfNeeded: j + k)
                    && aEnds[i + k] == UInt32(truncatingIfNeeded: j + k + 1)
                {
                    k += 1
                }
            default:
                while k < limit && paired(i + k, j + k) { k += 1 }
            }
            return k
        }
        var i = 0
        var j = 0
        while i < nA || j < nS {
            let run = pairedRun(i, j)
            if run > 0 {
                i += run
                j += run
                continue
            }
            let start = j
            repeat {
                if j < nS && (i >= nA || sStart(j) < aStart(i)) {
                    j += 1
                } else if i < nA && (j >= nS || aStart(i) < sStart(j)) {
                    i += 1
                } else {
                    i += 1
                    j += 1
                }
            } while !paired(i, j) && (i < nA || j < nS)
            regions.append(max(0, start - 1)..<(j + 1))
        }
        return regions
    }

    /// Narrows the search of a rule on the squashed view to the start positions whose attempts
    /// read a changed region (intersected with the anchor's `windows` when `windowed`). False
    /// when there are none.
    private func restrictToChangedRegions(_ bound: InspectionBound, slot: Int, windowed: Bool) -> Bool {
        if !changedRegionsKnown { findChangedRegions() }
        if changedRegions.isEmpty { return false }
        let runs = scans[slot].runs
        let ascii = viewIsASCII[slot]
        let ahead = bound.ahead.bytes(in: runs, ascii: ascii)
        let behind = bound.behind.bytes(in: runs, ascii: ascii)
        // Attempts at `s` read `s - behind ..< s + ahead`: those that reach a region start in it
        // from `ahead` before it to `behind` after it.
        otherWindows.empty()
        for region in changedRegions {
            let window = max(0, region.lowerBound - ahead)...(region.upperBound + behind)
            if let last = otherWindows.last, window.lowerBound <= last.upperBound + Self.windowGap {
                otherWindows[otherWindows.count - 1] = last.lowerBound...max(last.upperBound, window.upperBound)
            } else {
                otherWindows.append(window)
            }
        }
        if !ascii, let view = views[slot] { Self.startOnCharacters(&otherWindows, in: view) }
        if !windowed {
            swap(&windows, &otherWindows)
            return true
        }
        // Both lists are sorted and their windows disjoint: intersect them in one pass.
        intersection.empty()
        var x = 0
        var y = 0
        while x < windows.count && y < otherWindows.count {
            let window = windows[x]
            let other = otherWindows[y]
            let lower = max(window.lowerBound, other.lowerBound)
            let upper = min(window.upperBound, other.upperBound)
            if lower <= upper { intersection.append(lower...upper) }
            if window.upperBound < other.upperBound { x += 1 } else { y += 1 }
        }
        swap(&windows, &intersection)
        return !windows.isEmpty
    }

    /// Whether the last `search` found a match of the pattern (whether or not an unless match
    /// overlapped it), or stopped at a limit or failure.
    private var lastSearchMatchedOrStopped = false

    /// Moves each window's start back to the start of its UTF-8 character: a search must start on
    /// a character boundary (PCRE2 is told the subject is valid UTF-8).
    private static func startOnCharacters(_ windows: inout [ClosedRange<Int>], in view: NormalizedView) {
        view.utf8.withUnsafeBufferPointer { bytes in
            for index in windows.indices {
                var lower = windows[index].lowerBound
                while lower > 0 && lower < bytes.count && bytes[lower] & 0xC0 == 0x80 { lower -= 1 }
                windows[index] = lower...windows[index].upperBound
            }
        }
    }

    /// Windows closer than this many bytes are searched in one call.
    static let windowGap = 16

    // MARK: One rule on one view

    /// Searches one rule (number `index`) on one view; true when it fired there. `scanned`: the
    /// slot whose literal scan holds the view's literals, if any (unless patterns without theirs
    /// are not searched). `windowed`: only matches starting inside `windows` are looked for (no
    /// other can exist); with `startLimit`, only matches starting at or before it.
    @discardableResult
    private func search(
        _ compiled: CompiledRule, index: Int, on view: NormalizedView, scanned: Int?, ascii: Bool, windowed: Bool, startLimit: Int?,
        mode: MatchMode, into result: inout RuleMatchResult
    ) -> Bool {
        counters.ruleViewsSearched += 1
        lastSearchMatchedOrStopped = false
        var fired = false
        view.utf8.withUnsafeBufferPointer { subject in
            var budget = Budget(limits: limits, subjectLength: subject.count)
            budget.asciiSubject = usesBytesMode && ascii
            var unlessReady = compiled.unless.isEmpty
            unlessSpans.empty()
            var start = 0
            var window = 0
            // The last position a match may start at.
            let lastStart = min(subject.count, startLimit ?? subject.count)
            while start <= lastStart {
                var outcome: SearchOutcome
                if windowed {
                    // The next window that holds a start position at or after `start`.
                    while window < windows.count && windows[window].upperBound < start { window += 1 }
                    guard window < windows.count, windows[window].lowerBound <= lastStart else { return }
                    let from = max(start, windows[window].lowerBound)
                    outcome = find(
                        compiled.pattern, in: subject, from: from, limit: min(windows[window].upperBound, lastStart), budget: &budget)
                    if case .noMatch = outcome {
                        // Nothing starts in this window: on to the next.
                        start = windows[window].upperBound + 1
                        window += 1
                        continue
                    }
                } else {
                    outcome = find(compiled.pattern, in: subject, from: start, limit: startLimit.map { _ in lastStart }, budget: &budget)
                }
                guard case .match(let range) = outcome else {
                    if case .noMatch = outcome {} else { lastSearchMatchedOrStopped = true }
                    record(outcome, rule: compiled.rule, view: view.name, unlessIndex: nil, into: &result)
                    return
                }
                lastSearchMatchedOrStopped = true
                if !unlessReady {
                    collectUnlessSpans(compiled, index: index, in: subject, view: view.name, scanned: scanned, budget: &budget, into: &result)
                    unlessReady = true
                }
                if overlapsUnless(range) {
                    start = skipUnless(from: Self.nextCharacter(after: range.lowerBound, in: subject), length: subject.count)
                    continue
                }
                result.matches.append(
                    RuleMatch(rule: compiled.rule, view: view.name, viewRange: range, originalRange: view.originalRange(of: range)))
                fired = true
                if mode == .firstPerRule { return }
                start = range.isEmpty ? Self.nextCharacter(after: range.upperBound, in: subject) : range.upperBound
            }
        }
        return fired
    }

    /// Every match of every `unless` pattern on the subject, in `unlessSpans`, sorted. An unless
    /// pattern that lacks a required literal in the view's scan (`scanned`) cannot match: it is
    /// not searched.
    private func collectUnlessSpans(
        _ compiled: CompiledRule, index rule: Int, in subject: UnsafeBufferPointer<UInt8>, view: ViewName, scanned: Int?,
        budget: inout Budget, into result: inout RuleMatchResult
    ) {
        for (index, pattern) in compiled.unless.enumerated() {
            if let scanned, !prefilter.admitsUnless(index, ofRule: rule, found: scans[scanned].found) { continue }
            var start = 0
            while start <= subject.count {
                let outcome = find(pattern, in: subject, from: start, budget: &budget)
                guard case .match(let range) = outcome else {
                    record(outcome, rule: compiled.rule, view: view, unlessIndex: index, into: &result)
                    break
                }
                unlessSpans.append(range)
                start = range.isEmpty ? Self.nextCharacter(after: range.upperBound, in: subject) : range.upperBound
            }
        }
        unlessSpans.sort { $0.lowerBound < $1.lowerBound }
    }

    private func overlapsUnless(_ range: Range<Int>) -> Bool {
        for span in unlessSpans {
            if span.lowerBound > range.upperBound { break }
            if range.isEmpty {
                if span.contains(range.lowerBound) { return true }
            } else if range.overlaps(span) {
                return true
            }
        }
        return false
    }

    /// The first position at or after `position` that is not inside an unless span: any match
    /// starting inside one would overlap it.
    private func skipUnless(from position: Int, length: Int) -> Int {
        var position = position
        var moved = true
        while moved {
            moved = false
            for span in unlessSpans where span.contains(position) {
                position = span.upperBound
                moved = true
            }
        }
        return position
    }

    private func record(_ outcome: SearchOutcome, rule: Rule, view: ViewName, unlessIndex: Int?, into result: inout RuleMatchResult) {
        switch outcome {
        case .match, .noMatch:
            break
        case .limit(let reason):
            result.limitHits.append(LimitHit(ruleID: rule.id, view: view, reason: reason, unlessIndex: unlessIndex))
            counters.limitHits += 1
        case .failure(let code, let message):
            result.failures.append(MatchFailure(ruleID: rule.id, view: view, code: code, message: message))
            counters.failures += 1
        }
    }

    // MARK: Searching under the budget

    /// One search from `start`.
    ///
    /// PCRE2's match limit counts per start position, and one unit can scan the rest of the
    /// subject, so on a long subject a single call can run for seconds (`\s+(a|the)?\s*x` on 100 kB
    /// of spaces: about 4 s, under the limit). Subjects longer than `longSubjectBytes` are therefore
    /// searched with the pattern's guarded twin, whose callouts stop the search at the rule's
    /// deadline. Short subjects never look at a clock.
    /// With `limit`, only matches starting at or before that offset are looked for.
    func find(
        _ pattern: CompiledPattern, in subject: UnsafeBufferPointer<UInt8>, from start: Int, limit: Int? = nil, budget: inout Budget
    ) -> SearchOutcome {
        counters.searches += 1
        guard let deadline = budget.deadline else {
            return resources.search(pattern, in: subject, from: start, limit: limit, ascii: budget.asciiSubject && usesBytesMode)
        }
        if PCRE2Info.now() > deadline { return .limit(.timeBudget) }
        return resources.search(pattern, in: subject, from: start, limit: limit, deadline: deadline)
    }

    /// Whether every byte is below 0x80, eight at a time.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        while i + 8 <= raw.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < raw.count {
            if raw[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The offset of the next UTF-8 character after the one starting at `position`.
    static func nextCharacter(after position: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var next = position + 1
        while next < bytes.count && bytes[next] & 0xC0 == 0x80 { next += 1 }
        return next
    }
}

/// The time budget of one rule on one long view: a deadline, or none for short subjects.
struct Budget {
    let deadline: UInt64?
    /// Every byte of the subject is ASCII: the bytes twin of each pattern may be used.
    var asciiSubject = false

    init(limits: MatchLimits, subjectLength: Int) {
        if subjectLength > limits.longSubjectBytes, let budget = limits.timeBudget {
            deadline = PCRE2Info.now() + RuleLinter.nanoseconds(budget)
        } else {
            deadline = nil
        }
    }

    /// A deadline this many nanoseconds from now (lint's cap on one timing).
    init(nanoseconds: UInt64) {
        deadline = PCRE2Info.now() + nanoseconds
    }

    static func now() -> UInt64 { PCRE2Info.now() }
}

extension Array {
    /// Empties a scratch array, keeping its capacity. `removeAll(keepingCapacity:)` goes through
    /// `replaceSubrange`, about 75 instructions even on an empty array, and the rule loop empties
    /// its scratch arrays for every search (1.5 % of a slow 1 KB record); a few `removeLast()`
    /// cost less, many more.
    @inline(__always)
    mutating func empty() {
        if count > 8 {
            removeAll(keepingCapacity: true)
        } else {
            while !isEmpty { removeLast() }
        }
    }
}

/// One search of a rule on a view, as `RuleMatcher.searchLog` records it.
public struct SearchLogEntry: Sendable {
    public var ruleID: String
    /// The rule's label: which stage of the classifier searched it.
    public var label: RuleLabel
    public var view: ViewName
    /// Calls into PCRE2, the rule's unless patterns included.
    public var calls: Int
    /// Wall time of the search.
    public var duration: Duration
    /// Whether the rule fired on the view.
    public var fired: Bool
}
