import Dispatch
public import SafetyCore
public import TextNormalization

/// A loaded, checked and compiled rule set, shared by every thread.
///
/// Load it once; give each thread its own `RuleMatcher`:
/// ```swift
/// let rules = try CompiledRuleSet.load(from: .bundled)        // throws RuleSetError
/// let matcher = rules.makeMatcher()
/// let text = rules.normalize("please k.i.l.l him")
/// for match in matcher.match(text).matches {
///     print(match.rule.id, match.view, match.originalRange)     // … squashed 7..<14
/// }
/// ```
public final class CompiledRuleSet: Sendable {
    /// Every rule loaded, disabled ones included, in file order.
    public let rules: [Rule]
    /// The names of the files the rules came from, in load order.
    public let files: [String]
    /// The views that the enabled rules read: build these (see `normalizationOptions`).
    public let views: Set<ViewName>
    let compiled: [CompiledRule]
    let prefilter: LiteralPrefilter
    /// Views that need no building or scanning unless the ascii view holds certain words.
    let viewGates: ViewGates
    /// The views read, less the gated ones: what `normalize(bytes:)` builds first.
    private let ungatedViews: Set<ViewName>
    private let indexByID: [String: Int]
    /// The enabled rules of each label, in set order.
    private let selectionByLabel: [RuleLabel: RuleSelection]

    /// Loads, checks and compiles the rule files of `source`.
    ///
    /// Throws every problem of the run at once: YAML errors, unknown or missing keys, bad values,
    /// patterns PCRE2 rejects (with its message and the offset), duplicate ids, missing examples.
    ///
    /// Rule files you give (`.directory`, `.files`) always have every pattern compiled, so checked,
    /// here. The bundled rules, checked by the test suite, are read from their snapshot
    /// (`RuleSnapshot`) when it is current and have each pattern compiled at its first search,
    /// which keeps start-up short; `checkingPatterns` compiles them here too (`rules test`,
    /// `rules lint`, the tests). A bundled pattern that does not compile at first use fails every
    /// search of its rule (`MatchFailure`), which the classifier reports, failing closed.
    public static func load(from source: RuleSource, checkingPatterns: Bool = false) throws(RuleSetError) -> CompiledRuleSet {
        let (files, readProblems) = source.ruleFiles()
        var problems = readProblems
        var rules: [Rule] = []
        // `files` are the bundled files whenever `source` is `.bundled`: the decoded snapshot is theirs.
        let snapshot = source == .bundled ? RuleSnapshot.bundled : [:]
        for file in files {
            if let current = snapshot[file.name] {
                rules += current
                continue
            }
            let parsed = RuleFileParser.parse(file: file.name, text: file.text)
            rules += parsed.rules
            problems += parsed.problems
        }
        let deferCompilation = source == .bundled && !checkingPatterns
        do {
            return try CompiledRuleSet(
                rules: rules, files: files.map(\.name), earlierProblems: problems, deferringCompilation: deferCompilation)
        } catch {
            throw error
        }
    }

    /// Starts decoding the bundled rules' snapshot and literal cache on another thread, for a
    /// command that is about to load the bundled rules: the decoding (about 4 ms) then overlaps
    /// with parsing the command line instead of following it. `load(from: .bundled)` takes the
    /// decoded values, waiting for them if they are not ready (each is a `static let`, computed
    /// once whichever thread asks first), so what it returns is the same.
    public static func startDecodingBundled() {
        DispatchQueue.global(qos: .userInitiated).async {
            // The literal cache first: loading needs the snapshot first, and waits for it anyway,
            // but finds the cache ready instead of waiting a second time.
            _ = LiteralCache.bundled
            _ = RuleSnapshot.bundled
        }
    }

    /// Checks and compiles rules made in code (or already parsed).
    public convenience init(rules: [Rule]) throws(RuleSetError) {
        var files: [String] = []
        for rule in rules where !files.contains(rule.location.file) { files.append(rule.location.file) }
        try self.init(rules: rules, files: files, earlierProblems: [], deferringCompilation: false)
    }

    /// Rules made in code whose patterns are compiled at their first search, as the bundled rules'
    /// are (for tests of that path).
    convenience init(deferringCompilationOf rules: [Rule]) throws(RuleSetError) {
        var files: [String] = []
        for rule in rules where !files.contains(rule.location.file) { files.append(rule.location.file) }
        try self.init(rules: rules, files: files, earlierProblems: [], deferringCompilation: true)
    }

    private init(rules: [Rule], files: [String], earlierProblems: [RuleProblem], deferringCompilation: Bool) throws(RuleSetError) {
        var problems = earlierProblems
        // Where each id is first defined (positions, not copies of the rules: this runs at start-up).
        var firstByID: [String: Int] = [:]
        firstByID.reserveCapacity(rules.count)
        var compiled: [CompiledRule] = []
        compiled.reserveCapacity(rules.count)
        var kept: [Rule] = []
        kept.reserveCapacity(rules.count)
        for (index, rule) in rules.enumerated() {
            if let first = firstByID[rule.id] {
                problems.append(
                    RuleProblem(.duplicateID, at: rule.location, rule: rule.id, "duplicate id: also defined at \(rules[first].location)"))
                continue
            }
            firstByID[rule.id] = index
            if !RuleFileParser.isValidID(rule.id) {
                problems.append(RuleProblem(.badValue, at: rule.location, rule: rule.id, "id must be lowercase words joined by dots"))
            }
            if rule.examples.match.isEmpty || rule.examples.noMatch.isEmpty {
                problems.append(
                    RuleProblem(.badExamples, at: rule.location, rule: rule.id, "needs at least one `match` and one `no_match` example"))
            }
            let (compiledRule, errors) = CompiledRule.compile(rule, deferred: deferringCompilation)
            problems += errors
            if let compiledRule {
                compiled.append(compiledRule)
                kept.append(rule)
            }
        }
        guard problems.isEmpty else {
            let order = Dictionary(files.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
            let sorted = problems.enumerated().sorted { a, b in
                let fa = order[a.element.location.file] ?? Int.max, fb = order[b.element.location.file] ?? Int.max
                if fa != fb { return fa < fb }
                if a.element.location.line != b.element.location.line { return a.element.location.line < b.element.location.line }
                return a.offset < b.offset
            }
            throw RuleSetError(problems: sorted.map(\.element))
        }
        self.rules = kept
        self.files = files
        self.compiled = compiled
        self.views = Set(compiled.filter(\.enabled).flatMap(\.views))
        self.prefilter = LiteralPrefilter(
            requirements: compiled.map { $0.enabled ? $0.requirement : nil }, anchors: compiled.map { $0.enabled ? $0.anchor : nil },
            bounded: compiled.map { $0.inspection != nil }, unlessRequirements: compiled.map { $0.enabled ? $0.unlessRequirements : [] })
        self.viewGates = ViewGates(compiled)
        ungatedViews = views.subtracting(viewGates.gatedViews)
        self.indexByID = Dictionary(kept.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        var byLabel: [RuleLabel: RuleSelection] = [:]
        for label in RuleLabel.allCases {
            byLabel[label] = RuleSelection(
                indices: compiled.indices.filter { compiled[$0].enabled && compiled[$0].rule.label == label }, in: compiled)
        }
        selectionByLabel = byLabel
    }

    /// Every enabled rule, in set order.
    public var allEnabled: RuleSelection {
        RuleSelection(indices: compiled.indices.filter { compiled[$0].enabled }, in: compiled)
    }

    /// The enabled rules with this label, in set order.
    public func selection(label: RuleLabel) -> RuleSelection { selectionByLabel[label] ?? RuleSelection(indices: [], in: compiled) }

    /// The enabled `inScope` rules of these topics, in set order.
    public func selection(inScopeTopics topics: Set<String>) -> RuleSelection {
        RuleSelection(
            indices: selection(label: .inScope).indices.filter { topics.contains(compiled[$0].rule.topic ?? "") }, in: compiled)
    }

    /// The enabled rules with these ids, in set order.
    public func selection(ids: Set<String>) -> RuleSelection {
        RuleSelection(
            indices: compiled.indices.filter { compiled[$0].enabled && ids.contains(compiled[$0].rule.id) }, in: compiled)
    }

    /// The rule with this id.
    public func rule(id: String) -> Rule? { indexByID[id].map { rules[$0] } }

    /// The rules that are matched (not disabled).
    public var enabledRules: [Rule] { rules.filter { !$0.disabled } }

    /// Options that build exactly the views this rule set reads.
    public func normalizationOptions(localeLanguage: Language? = nil) -> NormalizationOptions {
        NormalizationOptions(localeLanguage: localeLanguage, views: views.isEmpty ? [.raw] : views)
    }

    /// Normalises `text` with the views this rule set reads.
    public func normalize(_ text: String, localeLanguage: Language? = nil) -> NormalizedText {
        NormalizedText(text, options: normalizationOptions(localeLanguage: localeLanguage))
    }

    /// Normalises `bytes` for matching with this rule set: like `normalize(_:)`, except that views
    /// behind a shut gate (`ViewGates`) are not built. A view whose gate opens is built by
    /// normalising again with every view (a rare second pass, cheaper than always building it).
    public func normalize(bytes: [UInt8], localeLanguage: Language? = nil) -> NormalizedText {
        Self.normalize(
            bytes: bytes, localeLanguage: localeLanguage, views: normalizationOptions().views, ungatedViews: ungatedViews,
            gates: viewGates)
    }

    /// `normalize(bytes:localeLanguage:)` for one thread (`makeNormalizer()`): the view sets and
    /// gates it reads per prompt are copies of its own. Retaining and releasing the rule set's own
    /// (a few times a prompt) is an atomic write to a cache line that every thread writes: on
    /// short prompts with two threads, that sharing cost each thread time on every prompt.
    public struct Normalizer {
        private let views: Set<ViewName>
        private let ungatedViews: Set<ViewName>
        private let gates: ViewGates

        init(_ rules: CompiledRuleSet) {
            // Built element by element: `Set(set)` would share the storage.
            views = Set(rules.normalizationOptions().views.map { $0 })
            ungatedViews = Set(rules.ungatedViews.map { $0 })
            gates = rules.viewGates.withOwnArrays()
        }

        public func normalize(bytes: [UInt8], localeLanguage: Language? = nil) -> NormalizedText {
            CompiledRuleSet.normalize(bytes: bytes, localeLanguage: localeLanguage, views: views, ungatedViews: ungatedViews, gates: gates)
        }
    }

    /// A normaliser for the calling thread.
    public func makeNormalizer() -> Normalizer { Normalizer(self) }

    private static func normalize(
        bytes: [UInt8], localeLanguage: Language?, views: Set<ViewName>, ungatedViews: Set<ViewName>, gates viewGates: ViewGates
    ) -> NormalizedText {
        let options = NormalizationOptions(localeLanguage: localeLanguage, views: views)
        // Pure ASCII: every view up to ascii is the same lowercased bytes, built once and scanned
        // once whatever the gates say.
        guard !viewGates.gatedViews.isEmpty, ungatedViews.contains(.ascii), !bytes.withUnsafeBufferPointer({ RuleMatcher.isASCII($0) })
        else { return NormalizedText(bytes: bytes, options: options) }
        let lean = NormalizedText(bytes: bytes, options: NormalizationOptions(localeLanguage: localeLanguage, views: ungatedViews))
        for gate in viewGates.gates.indices where viewGates.isOpen(gate: gate, in: lean) {
            return NormalizedText(bytes: bytes, options: options)
        }
        return lean
    }

    /// Compiles (when deferred) and JIT-compiles every pattern now instead of at its first search.
    /// For a warm start: benchmarks, or a background thread after start-up.
    public func prepareAll() {
        for rule in compiled where rule.enabled {
            rule.pattern.prepare()
            for pattern in rule.unless { pattern.prepare() }
        }
    }

    /// A matcher for the calling thread.
    public func makeMatcher(limits: MatchLimits = .default) -> RuleMatcher {
        RuleMatcher(ruleSet: self, limits: limits)
    }

    /// How many enabled rules the literal prefilter can rule out by their required words.
    public var prefilteredRuleCount: Int { compiled.count { $0.enabled && $0.requirement != nil } }

    /// The words the prefilter requires of a rule, in groups: the rule is searched on a view only
    /// when a word of every group occurs there; `nil` when the rule is always searched. A word
    /// written `\bkill` counts only where no ASCII letter, digit or `_` comes before it (`kill\b`:
    /// after it).
    public func requiredLiterals(ofRule id: String) -> [[String]]? {
        indexByID[id].flatMap { compiled[$0].requirement?.map { $0.map(\.description) } }
    }

    /// The PCRE2 library in use, e.g. `10.42 2022-12-11`, and whether its JIT is available.
    public static var engineDescription: String { "PCRE2 \(PCRE2Info.version)\(PCRE2Info.hasJIT ? " (JIT)" : " (no JIT)")" }
}

/// Some of a rule set's rules, in set order: what one call of `RuleMatcher.match(_:into:)` searches.
public struct RuleSelection: Sendable, Hashable {
    /// Positions in the rule set's compiled rules.
    let indices: [Int]
    /// The same as a bit set (`RuleBits.words(for:)` words).
    let bits: [UInt64]
    /// Rule-and-view pairs selected.
    let viewPairs: Int

    init(indices: [Int], in compiled: [CompiledRule]) {
        self.indices = indices
        viewPairs = indices.reduce(0) { $0 + compiled[$1].viewSlots.count }
        let ruleCount = compiled.count
        var bits = [UInt64](repeating: 0, count: RuleBits.words(for: ruleCount))
        for index in indices { bits[index >> 6] |= 1 << UInt64(index & 63) }
        self.bits = bits
    }

    /// How many rules are selected.
    public var count: Int { indices.count }

    /// The same selection in buffers of its own (for one `RuleMatcher`).
    func ownCopy() -> RuleSelection { RuleSelection(indices: indices.map { $0 }, bits: bits.map { $0 }, viewPairs: viewPairs) }

    private init(indices: [Int], bits: [UInt64], viewPairs: Int) {
        self.indices = indices
        self.bits = bits
        self.viewPairs = viewPairs
    }
}

/// Bit sets over a rule set's rules, 64 to a word.
enum RuleBits {
    static func words(for count: Int) -> Int { (count + 63) / 64 }
}

/// A rule with its compiled patterns (a class: the matcher walks these for every text, and a
/// reference costs one retain where a struct copy would retain every field of the rule).
final class CompiledRule: Sendable {
    let rule: Rule
    let pattern: CompiledPattern
    let unless: [CompiledPattern]
    let views: [ViewName]
    /// The position of each view in `ViewName.allCases`.
    let viewSlots: [Int]
    let enabled: Bool
    /// Groups of literals: any match contains a literal of every group; nil when none is known.
    let requirement: [[RequiredLiteral]]?
    /// The same for each `unless` pattern: one that cannot match a view is not searched there.
    let unlessRequirements: [[[RequiredLiteral]]?]
    /// Literals one of which every match contains near its start: the matcher searches only from
    /// just before their occurrences. Nil when none is known (the view is searched whole).
    let anchor: Anchor?
    /// How far from a match attempt's start its pattern reads (`LiteralAnalysis.inspectionBound`),
    /// nil when not bounded.
    let inspection: InspectionBound?

    init(
        rule: Rule, pattern: CompiledPattern, unless: [CompiledPattern], views: [ViewName], viewSlots: [Int], enabled: Bool,
        requirement: [[RequiredLiteral]]?, unlessRequirements: [[[RequiredLiteral]]?], anchor: Anchor?, inspection: InspectionBound?
    ) {
        self.rule = rule
        self.pattern = pattern
        self.unless = unless
        self.views = views
        self.viewSlots = viewSlots
        self.enabled = enabled
        self.requirement = requirement
        self.unlessRequirements = unlessRequirements
        self.anchor = anchor
        self.inspection = inspection
    }

    /// Compiles a rule's patterns and looks up its literal analyses. `deferred`: the patterns are
    /// compiled at their first search instead (no problem is reported here then).
    static func compile(_ rule: Rule, deferred: Bool = false) -> (CompiledRule?, [RuleProblem]) {
        if deferred {
            let analysis = LiteralCache.entry(of: rule.pattern)
            return (
                CompiledRule(
                    rule: rule, pattern: CompiledPattern(deferred: rule.pattern), unless: rule.unless.map(CompiledPattern.init(deferred:)),
                    views: rule.views, viewSlots: rule.views.map { ViewName.allCases.firstIndex(of: $0) ?? 0 }, enabled: !rule.disabled,
                    requirement: analysis.requirement, unlessRequirements: rule.unless.map(LiteralCache.requirement(of:)),
                    anchor: analysis.anchor, inspection: analysis.inspection), []
            )
        }
        var problems: [RuleProblem] = []
        var pattern: CompiledPattern?
        do {
            pattern = try CompiledPattern(rule.pattern)
        } catch {
            problems.append(
                RuleProblem(.badRegex, at: rule.location(ofKey: "pattern"), rule: rule.id, "pattern: \(error.message) at offset \(error.offset)"))
        }
        var unless: [CompiledPattern] = []
        for (index, source) in rule.unless.enumerated() {
            do {
                unless.append(try CompiledPattern(source))
            } catch {
                problems.append(
                    RuleProblem(.badRegex, at: rule.location(ofKey: "unless[\(index)]"), rule: rule.id, "unless[\(index)]: \(error.message) at offset \(error.offset)"))
            }
        }
        guard let pattern, problems.isEmpty else { return (nil, problems) }
        let analysis = LiteralCache.entry(of: rule.pattern)
        let slots = rule.views.map { view in ViewName.allCases.firstIndex(of: view) ?? 0 }
        return (
            CompiledRule(
                rule: rule, pattern: pattern, unless: unless, views: rule.views, viewSlots: slots, enabled: !rule.disabled,
                requirement: analysis.requirement, unlessRequirements: rule.unless.map(LiteralCache.requirement(of:)),
                anchor: analysis.anchor, inspection: analysis.inspection), []
        )
    }
}
