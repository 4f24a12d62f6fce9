#if canImport(Glibc)
import Glibc
#endif
import Foundation
import RuleEngine
import SafetyClassifier
import SafetyCore
import TextNormalization

/// The inputs that the fuzz targets (`Sources/SafeGateFuzz`, `Scripts/fuzz`) and the regression
/// test throw at the library: arbitrary bytes in, a list of broken invariants out.
///
/// A crash is a bug; so is any string in the returned list. Errors the input deserves (bad YAML,
/// bad JSON) are not violations.
/// ```swift
/// let harness = FuzzHarness(target: .normalize)
/// harness.run(Array("İNTİHAR".utf8))   // [] when every invariant holds
/// ```
public final class FuzzHarness {
    /// What a harness feeds its bytes to.
    public enum Target: String, CaseIterable, Sendable {
        /// `NormalizedText(bytes:options:)`: maps in range and monotone, views valid UTF-8 and idempotent.
        case normalize
        /// The bundled rules over the bytes, under both bundled profiles.
        case classify
        /// The bytes as one rule file: load, and when it loads, match its examples.
        case rules
        /// The bytes as a JSONL input file of `classify`.
        case jsonl
        /// The bytes as a CSV input file of `classify`.
        case csv
        /// The bytes as an `eval` corpus file, through to the report.
        case corpus
    }

    public let target: Target
    /// Built on first use: loading the bundled rules takes a while and most targets need none.
    private var session: SafetyClassifier.Session?
    private var calendar: Profile?
    private var windowedMatcher: RuleMatcher?
    private var wholeMatcher: RuleMatcher?

    public init(target: Target) {
        self.target = target
    }

    /// Runs one input; returns the invariants it broke (empty when all held).
    public func run(_ bytes: [UInt8]) -> [String] {
        switch target {
        case .normalize: return Self.normalize(bytes)
        case .classify: return classify(bytes)
        case .rules: return Self.rules(bytes)
        case .jsonl: return Self.records(bytes, format: .jsonl)
        case .csv: return Self.records(bytes, format: .csv)
        case .corpus: return corpus(bytes)
        }
    }

    // MARK: Normalisation

    static func normalize(_ bytes: [UInt8]) -> [String] {
        var problems: [String] = []
        let valid = String(validating: bytes, as: UTF8.self) != nil
        // The last byte picks a locale and a subset of views, so that partial builds are fuzzed too.
        let selector = bytes.last ?? 0
        let locales: [Language?] = [nil, .en, .tr, .und]
        let subset = Set(ViewName.allCases.enumerated().filter { selector & (1 << $0.offset) != 0 }.map(\.element))
        for options in [
            NormalizationOptions(),
            NormalizationOptions(localeLanguage: locales[Int(selector >> 6)], views: subset),
        ] {
            let text = NormalizedText(bytes: bytes, options: options)
            if text.original != bytes { problems.append("original is not the input") }
            if text.hadInvalidUTF8 == valid { problems.append("hadInvalidUTF8 is \(text.hadInvalidUTF8) for \(valid ? "valid" : "invalid") UTF-8") }
            if text.isASCII != bytes.allSatisfy({ $0 < 0x80 }) { problems.append("isASCII is \(text.isASCII)") }
            if options.localeLanguage == .tr && !text.turkicFolding { problems.append("locale tr without Turkic folding") }
            for name in options.views where text.viewIfBuilt(name) == nil { problems.append("requested view \(name) not built") }
            if valid, let raw = text.viewIfBuilt(.raw), raw.utf8 != bytes { problems.append("raw view differs from valid UTF-8 input") }
            for view in text.builtViews { problems += checkMap(view, originalCount: bytes.count) }
            if options.views == Set(ViewName.allCases) { problems += checkIdempotent(text) }
        }
        return problems
    }

    /// The promises of `OffsetMap`: one entry per view byte, each a non-empty range inside the
    /// original, both bounds non-decreasing; and the view is valid UTF-8.
    static func checkMap(_ view: NormalizedView, originalCount: Int) -> [String] {
        var problems: [String] = []
        let map = view.map
        if map.count != view.utf8.count { problems.append("\(view.name): map has \(map.count) entries for \(view.utf8.count) bytes") }
        // Read once: an identity map builds these arrays on each access.
        let starts = map.starts
        let ends = map.ends
        if ends.count != starts.count { problems.append("\(view.name): starts and ends differ in length") }
        if map.originalCount != originalCount { problems.append("\(view.name): originalCount \(map.originalCount) != \(originalCount)") }
        var lastStart: UInt32 = 0
        var lastEnd: UInt32 = 0
        for i in 0..<min(starts.count, ends.count) {
            let start = starts[i]
            let end = ends[i]
            guard start >= lastStart, end >= lastEnd, start < end, Int(end) <= originalCount else {
                problems.append("\(view.name): map not monotone or out of bounds at byte \(i): \(start)..<\(end)")
                break
            }
            lastStart = start
            lastEnd = end
        }
        if problems.isEmpty && map.count > 0 {
            let whole = view.originalRange(of: 0..<map.count)
            if whole.lowerBound < 0 || whole.upperBound > originalCount { problems.append("\(view.name): whole view maps to \(whole)") }
            let empty = view.originalRange(of: map.count..<map.count)
            if empty != originalCount..<originalCount { problems.append("\(view.name): empty range at the end maps to \(empty)") }
        }
        if String(validating: view.utf8, as: UTF8.self) == nil { problems.append("\(view.name): not valid UTF-8") }
        return problems
    }

    /// Each view is a fixed point of its own stage under the same folding (as `PropertyTests` holds).
    static func checkIdempotent(_ text: NormalizedText) -> [String] {
        let options = NormalizationOptions(localeLanguage: text.turkicFolding ? .tr : .en)
        var problems: [String] = []
        for view in text.builtViews {
            let again = NormalizedText(bytes: view.utf8, options: options).view(view.name).utf8
            if again != view.utf8 {
                problems.append("\(view.name) is not idempotent: \(Array(view.utf8.prefix(64))) -> \(Array(again.prefix(64)))")
            }
        }
        return problems
    }

    // MARK: Classification

    private func bundledSession() -> SafetyClassifier.Session {
        if let session { return session }
        // The bundled rules are tested to load; if they did not, every target would report it.
        let rules = (try? CompiledRuleSet.load(from: .bundled)) ?? (try? CompiledRuleSet(rules: []))
        guard let rules else { preconditionFailure("an empty rule set must compile") }
        let made = SafetyClassifier(rules: rules).makeSession()
        session = made
        calendar = try? Profile.load("calendar")
        return made
    }

    func classify(_ bytes: [UInt8]) -> [String] {
        let session = bundledSession()
        var problems: [String] = []
        let locale: Language? = bytes.count % 3 == 0 ? .tr : nil
        for profile in [Profile.general, calendar ?? .general] {
            let decision = session.classify(bytes: bytes, profile: profile, localeLanguage: locale)
            problems += Self.checkDecision(decision, bytes: bytes, profile: profile)
        }
        // Windows around anchor words find what whole views find, for every bundled rule.
        let rules = session.classifier.rules
        let text = rules.normalize(String(decoding: bytes, as: UTF8.self), localeLanguage: locale)
        let windowed = windowedMatcher ?? rules.makeMatcher()
        let whole =
            wholeMatcher
            ?? {
                let matcher = rules.makeMatcher()
                matcher.usesWindows = false
                return matcher
            }()
        windowedMatcher = windowed
        wholeMatcher = whole
        let a = windowed.match(text), b = whole.match(text)
        if a.limitHits.isEmpty && b.limitHits.isEmpty && a.matches != b.matches {
            problems.append("windows change the matches: \(a.firedRuleIDs) vs \(b.firedRuleIDs)")
        }
        let all = session.classify(bytes: bytes, localeLanguage: locale, evidence: .all)
        let decisive = session.classify(bytes: bytes, localeLanguage: locale)
        if all.classification != decisive.classification {
            problems.append("decisive label \(decisive.classification) differs from the label with all evidence \(all.classification)")
        }
        return problems
    }

    static func checkDecision(_ decision: Decision, bytes: [UInt8], profile: Profile) -> [String] {
        var problems: [String] = []
        let classification = decision.classification
        if SafetyClassification(label: classification.label, type: classification.type) != classification {
            problems.append("classification \(classification) does not round-trip")
        }
        if (classification.type != nil) != (classification.label == .harmful) {
            problems.append("type \(String(describing: classification.type)) with label \(classification.label)")
        }
        if decision.hadInvalidUTF8 == (String(validating: bytes, as: UTF8.self) != nil) { problems.append("hadInvalidUTF8 wrong") }
        if profile.topics == nil && classification.label == .offTopic { problems.append("offTopic without a scope") }
        for match in decision.matches + decision.decidingRules + decision.suppressed {
            let range = match.originalRange
            if range.lowerBound < 0 || range.upperBound > bytes.count || range.lowerBound > range.upperBound {
                problems.append("\(match.rule.id): span \(range) outside the \(bytes.count)-byte original")
            }
        }
        return problems
    }

    // MARK: Rule files

    static func rules(_ bytes: [UInt8]) -> [String] {
        let text = String(decoding: bytes, as: UTF8.self)
        let ruleSet: CompiledRuleSet
        do {
            ruleSet = try CompiledRuleSet.load(from: .files([RuleFile(name: "fuzz.yaml", text: text)]))
        } catch {
            // A rejected file must say why, with a location in the file.
            return error.problems.isEmpty ? ["load failed without a problem"] : []
        }
        var problems: [String] = []
        // A file that loads gets its examples checked, and its patterns run over a hostile subject.
        _ = ruleSet.checkAllExamples()
        let matcher = ruleSet.makeMatcher()
        // The speed-ups (literal prefilter, windows around anchor words) must find what searching
        // every rule over whole views finds, for whatever pattern the fuzzer wrote.
        let plain = ruleSet.makeMatcher()
        plain.usesPrefilter = false
        plain.usesWindows = false
        let hostile = String(repeating: "a", count: 2_000) + "!" + String(repeating: "ab ", count: 300) + text.prefix(200)
        for subject in [text, hostile, "", String(text.reversed())] {
            let result = matcher.match(subject)
            for match in result.matches where match.originalRange.upperBound > subject.utf8.count {
                problems.append("\(match.rule.id): span \(match.originalRange) beyond the subject")
            }
            let reference = plain.match(subject)
            if result.limitHits.isEmpty && reference.limitHits.isEmpty && result.failures.isEmpty && reference.failures.isEmpty
                && result.matches != reference.matches
            {
                problems.append("prefilter/windows change the matches: \(result.firedRuleIDs) vs \(reference.firedRuleIDs)")
            }
        }
        return problems
    }

    // MARK: Input records

    /// Hands `bytes` to `body` as a readable file descriptor at offset 0 (an unlinked temporary file).
    static func withFile<T>(_ bytes: [UInt8], _ body: (Int32) -> T) -> T {
        guard let file = tmpfile() else { preconditionFailure("tmpfile failed: \(errno)") }
        defer { fclose(file) }
        let fd = fileno(file)
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            precondition(count > 0, "write to a temporary file failed: \(errno)")
            written += count
        }
        lseek(fd, 0, SEEK_SET)
        return body(fd)
    }

    /// What a record reader produced, comparable across chunk sizes.
    struct ReadRecord: Equatable {
        var number: Int
        var id: String
        var text: [UInt8]?
        var error: String?
        var fieldKeys: [String]
    }

    static func read(
        _ bytes: [UInt8], format: InputFormat, textField: String = "text", idField: String?,
        chunkSize: Int = 1 << 16, maxLineBytes: Int = 16 << 20
    ) -> [InputRecord] {
        withFile(bytes) { fd in
            let lines = LineReader(fd: fd, chunkSize: chunkSize, maxLineBytes: maxLineBytes)
            let reader: any RecordReader
            switch format {
            case .text: reader = TextRecordReader(lines: lines, file: "fuzz")
            case .jsonl: reader = JSONLRecordReader(lines: lines, file: "fuzz", textField: textField, idField: idField)
            case .csv:
                reader = CSVRecordReader(
                    lines: lines, file: "fuzz", textField: textField, idField: idField, maxRecordBytes: maxLineBytes)
            }
            var records: [InputRecord] = []
            while let record = reader.next(number: records.count + 1) { records.append(record) }
            return records
        }
    }

    /// The number of lines `LineReader` must return: every LF ends one, and a last line without
    /// a newline still counts.
    static func lineCount(_ bytes: [UInt8]) -> Int {
        bytes.count(where: { $0 == 0x0A }) + (bytes.last == nil || bytes.last == 0x0A ? 0 : 1)
    }

    static func records(_ bytes: [UInt8], format: InputFormat) -> [String] {
        var problems: [String] = []
        let idField: String? = bytes.count % 2 == 0 ? "id" : nil
        let records = read(bytes, format: format, idField: idField)
        // Small chunks and short lines exercise every buffer boundary; small chunks alone must
        // not change a single record.
        let chunk = 1 + bytes.count % 7
        let chunked = read(bytes, format: format, idField: idField, chunkSize: chunk)
        let short = read(bytes, format: format, idField: idField, chunkSize: chunk, maxLineBytes: 1 + bytes.count % 23)
        func comparable(_ list: [InputRecord]) -> [ReadRecord] {
            list.map { ReadRecord(number: $0.number, id: $0.id, text: $0.text, error: $0.error, fieldKeys: $0.fields.keys.sorted()) }
        }
        if comparable(records) != comparable(chunked) { problems.append("records differ with \(chunk)-byte chunks") }
        for (list, name) in [(records, "default"), (short, "short lines")] {
            for (index, record) in list.enumerated() {
                if record.number != index + 1 { problems.append("\(name): record \(index + 1) numbered \(record.number)") }
                if (record.text == nil) == (record.error == nil) {
                    problems.append("\(name): record \(record.number) has \(record.text == nil ? "neither" : "both") text and error")
                }
                // JSON strings are Unicode; CSV and text fields may hold invalid UTF-8 (the classifier repairs it).
                if format == .jsonl, let text = record.text, String(validating: text, as: UTF8.self) == nil {
                    problems.append("\(name): record \(record.number) text is not valid UTF-8")
                }
                if idField == nil && record.id != String(record.number) { problems.append("\(name): id \(record.id) without an id field") }
            }
        }
        if format == .jsonl {
            // Nothing is skipped: one record per line.
            let lines = lineCount(bytes)
            if records.count != lines { problems.append("\(records.count) JSONL records for \(lines) lines") }
            if short.count != lines { problems.append("\(short.count) JSONL records for \(lines) lines with short lines") }
        } else if records.count > lineCount(bytes) {
            problems.append("\(records.count) CSV records for \(lineCount(bytes)) lines")
        }
        return problems
    }

    // MARK: Corpus records

    /// Reads the bytes as an `eval` corpus (the reading `Eval` does), classifies the records that
    /// hold, and renders the report in both formats. Profile names other than the bundled ones are
    /// rejected here rather than read from disk.
    func corpus(_ bytes: [UInt8]) -> [String] {
        let session = bundledSession()
        var evaluation = Evaluation()
        var problems: [String] = []
        var violations: [String] = []
        for record in Self.read(bytes, format: .jsonl, idField: "id") {
            guard let text = record.text else {
                problems.append(record.error ?? "\(record.source): unreadable")
                continue
            }
            let expected: SafetyClassification
            switch record.expectedClassification() {
            case .success(let value): expected = value
            case .failure(let problem):
                problems.append(problem.message)
                continue
            }
            let profile: Profile
            switch record.fields["profile"] as? String {
            case nil, "general": profile = .general
            case "calendar": profile = calendar ?? .general
            default:
                problems.append("\(record.source): unknown profile")
                continue
            }
            let language = (record.fields["lang"] as? String).flatMap(Language.init(rawValue:))
            let decision = session.classify(bytes: text, profile: profile)
            violations += Self.checkDecision(decision, bytes: text, profile: profile)
            evaluation.add(
                id: record.id, language: language ?? decision.language, expected: expected,
                predicted: decision.classification, rules: decision.decidingRuleIDs,
                text: String(decoding: text, as: UTF8.self), tags: (record.fields["tags"] as? [String]) ?? [])
        }
        let thresholds = [
            EvaluationThreshold(metric: .typeAccuracy, bound: 0.5, isMinimum: true),
            EvaluationThreshold(metric: .safeFlaggedRate, bound: 0.5, isMinimum: false),
        ]
        let report = EvalReport(evaluation: evaluation, thresholds: thresholds, problems: problems)
        let json = report.json
        if (try? JSONSerialization.jsonObject(with: Data(json.utf8))) == nil {
            violations.append("the JSON report does not parse: \(json.prefix(200))")
        }
        _ = report.text
        return violations
    }
}
