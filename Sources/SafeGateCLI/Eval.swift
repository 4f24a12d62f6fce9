import ArgumentParser
import Foundation
import RuleEngine
import SafetyClassifier
import SafetyCore

extension SafeGate {
    /// `safegate eval`: figures for a labelled corpus, held to thresholds (CI's regression check).
    struct Eval: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "eval",
            abstract: "Classify a labelled corpus and report precision, recall, F1, confusion and misses.",
            discussion: """
                Thresholds hold for every language in the corpus and for the whole; exit 1 when one fails.
                LABEL is safe, offTopic, harmful, emergency, or harmfulOrEmergency (for --min-recall).
                """)

        @Argument(help: "Corpus JSONL files (CONTRACT.md schema).")
        var corpus: [String]

        @OptionGroup var classifierOptions: ClassifierOptions

        @Option(name: .customLong("min-recall"), help: "LABEL=X: recall of LABEL at least X (repeatable).")
        var minRecall: [String] = []

        @Option(name: .customLong("min-precision"), help: "LABEL=X: precision of LABEL at least X (repeatable).")
        var minPrecision: [String] = []

        @Option(help: "Share of safe prompts labelled harmful or emergency: at most X.")
        var maxFlagged: Double?

        @Option(help: "Share of harmful prompts caught as harmful that got the right type: at least X.")
        var minTypeAccuracy: Double?

        @Option(help: "text or json.")
        var format: EvalFormat = .text

        @Option(help: ArgumentHelp(
            "Longest corpus record in bytes (K, M, G suffixes); a longer one is reported as a problem (exit 65) and skipped in bounded memory.",
            valueName: "N"))
        var maxRecordBytes = ByteCount(LineReader.defaultMaxLineBytes)

        enum EvalFormat: String, ExpressibleByArgument, CaseIterable { case text, json }

        func thresholds() throws -> [EvaluationThreshold] {
            var result: [EvaluationThreshold] = []
            func parse(_ spec: String, _ make: (String) -> EvaluationMetric?) throws -> (EvaluationMetric, Double) {
                let parts = spec.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, let metric = make(parts[0]), let bound = Double(parts[1]), (0...1).contains(bound)
                else {
                    throw ValidationError("expected LABEL=X with X between 0 and 1, got \(spec)")
                }
                return (metric, bound)
            }
            for spec in minRecall {
                let (metric, bound) = try parse(spec) { name in
                    name == "harmfulOrEmergency"
                        ? .harmfulOrEmergencyRecall : SafetyClassification.Label(rawValue: name).map { .recall($0) }
                }
                result.append(EvaluationThreshold(metric: metric, bound: bound, isMinimum: true))
            }
            for spec in minPrecision {
                let (metric, bound) = try parse(spec) { SafetyClassification.Label(rawValue: $0).map { .precision($0) } }
                result.append(EvaluationThreshold(metric: metric, bound: bound, isMinimum: true))
            }
            if let maxFlagged { result.append(EvaluationThreshold(metric: .safeFlaggedRate, bound: maxFlagged, isMinimum: false)) }
            if let minTypeAccuracy {
                result.append(EvaluationThreshold(metric: .typeAccuracy, bound: minTypeAccuracy, isMinimum: true))
            }
            return result
        }

        func validate() throws { _ = try thresholds() }

        func run() async throws {
            let console = Console.current
            let thresholds = try thresholds()
            let classifier = try classifierOptions.makeClassifier()
            let inputs = InputFiles.open(corpus)
            defer { inputs.closeAll() }
            // Figures over part of a corpus would pass for the whole: a file that cannot be opened fails the run.
            if !inputs.failures.isEmpty {
                for failure in inputs.failures { console.printError("safegate eval: \(failure)") }
                throw ExitStatus.cannotOpen
            }
            let stream = RecordStream(
                files: inputs, format: .jsonl, textField: "text", idField: "id", maxRecordBytes: maxRecordBytes.bytes)
            let session = classifier.makeSession()
            var profiles: [String: Profile] = [:]
            var evaluation = Evaluation()
            var problems: [String] = []
            var incomplete: [EvalReport.Incomplete] = []
            while let record = stream.next() {
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
                let profileName = (record.fields["profile"] as? String) ?? classifierOptions.profile
                let profile: Profile
                if let cached = profiles[profileName] {
                    profile = cached
                } else {
                    do {
                        profile = try Profile.load(profileName)
                    } catch {
                        console.printError(TerminalText.escaped("\(record.source): \(error.description)"))
                        throw ExitStatus.configuration
                    }
                    profiles[profileName] = profile
                }
                let language = (record.fields["lang"] as? String).flatMap(Language.init(rawValue:))
                let decision = session.classify(bytes: text, profile: profile)
                if !decision.isComplete {
                    incomplete.append(
                        EvalReport.Incomplete(
                            id: record.id, language: language ?? decision.language, expected: expected,
                            predicted: decision.classification, failedClosed: decision.failedClosed,
                            reason: decision.incompleteReason ?? "a search stopped early"))
                }
                // Failed closed: the label found could be too mild, so the record has none (as in
                // `classify`); it is listed, kept out of the figures, and fails the run (65).
                if decision.failedClosed { continue }
                evaluation.add(
                    id: record.id, language: language ?? decision.language, expected: expected,
                    predicted: decision.classification, rules: decision.decidingRuleIDs,
                    text: String(decoding: text, as: UTF8.self), tags: (record.fields["tags"] as? [String]) ?? [])
            }
            let report = EvalReport(
                evaluation: evaluation, thresholds: thresholds, problems: problems, incomplete: incomplete)
            console.writeOut(format == .json ? report.json + "\n" : report.text)
            for message in stream.readErrors { console.printError("safegate eval: \(message)") }
            if !stream.readErrors.isEmpty { throw ExitStatus.cannotOpen }
            let failedClosed = incomplete.filter(\.failedClosed)
            for record in failedClosed {
                console.printError(
                    "safegate eval: " + TerminalText.escaped("\(record.id): not classified in full, failed closed: \(record.reason)"))
            }
            if !problems.isEmpty || !failedClosed.isEmpty {
                for problem in problems { console.printError("safegate eval: " + TerminalText.escaped(problem)) }
                if !failedClosed.isEmpty {
                    console.printError(
                        "safegate eval: \(failedClosed.count) record\(failedClosed.count == 1 ? "" : "s") failed closed and are not in the figures (--fail-open counts their labels, marked incomplete)")
                }
                throw ExitStatus.malformedInput
            }
            if !report.passed { throw ExitStatus.thresholdFailed }
        }
    }
}

/// Formats an evaluation for people (text) and machines (JSON).
/// A corpus record's `label` and `type` that do not fit CONTRACT.md, with where.
struct CorpusLabelProblem: Error {
    var message: String
}

extension InputRecord {
    /// The label a corpus record expects (its `label` and `type` fields, per CONTRACT.md).
    func expectedClassification() -> Result<SafetyClassification, CorpusLabelProblem> {
        guard let labelName = fields["label"] as? String, let label = SafetyClassification.Label(rawValue: labelName) else {
            return .failure(CorpusLabelProblem(message: "\(source): field \"label\" is missing or not one of safe, offTopic, harmful, emergency"))
        }
        let typeName = fields["type"] as? String
        let type = typeName.flatMap(RefusalType.init(rawValue:))
        guard typeName == nil || type != nil, let expected = SafetyClassification(label: label, type: type) else {
            return .failure(CorpusLabelProblem(message: "\(source): label \(labelName) with type \(typeName ?? "null") does not fit the contract"))
        }
        return .success(expected)
    }
}

struct EvalReport {
    let evaluation: Evaluation
    let thresholds: [EvaluationThreshold]
    let problems: [String]
    /// Records not classified in full (truncated, or a search stopped early).
    var incomplete: [Incomplete] = []

    /// A record not classified in full: with fail closed and a label that could be too mild it
    /// has no label and is not in the figures; otherwise its label counts and it is listed.
    struct Incomplete {
        var id: String
        var language: Language
        var expected: SafetyClassification
        var predicted: SafetyClassification
        var failedClosed: Bool
        var reason: String
    }

    struct Check {
        var slice: String
        var threshold: EvaluationThreshold
        var value: Double?
        var holds: Bool
    }

    var slices: [(name: String, figures: Evaluation.Figures)] {
        var result = [("all", evaluation.figures())]
        for language in evaluation.languages { result.append((language.rawValue, evaluation.figures(for: language))) }
        return result
    }

    var checks: [Check] {
        slices.flatMap { slice in
            thresholds.map { threshold in
                Check(
                    slice: slice.name, threshold: threshold, value: threshold.metric.value(in: slice.figures),
                    holds: threshold.holds(in: slice.figures))
            }
        }
    }

    var passed: Bool { checks.allSatisfy(\.holds) }

    var misclassified: [Evaluation.Outcome] { evaluation.outcomes.filter { !$0.isCorrect } }

    static func format(_ value: Double?) -> String { value.map { String(format: "%.3f", $0) } ?? "  -  " }
    static func percent(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }

    static func name(_ classification: SafetyClassification) -> String {
        classification.type.map { "harmful(\($0.rawValue))" } ?? classification.label.rawValue
    }

    var text: String {
        var out = ""
        let counts = evaluation.languages.map { language in
            "\(language.rawValue) \(evaluation.outcomes.count { $0.language == language })"
        }
        out += "\(evaluation.outcomes.count) records (\(counts.joined(separator: ", ")))\n"
        let labels = SafetyClassification.Label.allCases
        for (name, figures) in slices {
            out += "\n== \(name) (\(figures.count) records) ==\n"
            out += "label        precision  recall     f1  expected  predicted\n"
            for label in labels {
                guard let f = figures.perLabel[label], f.expected > 0 || f.predicted > 0 else { continue }
                out += TableRow.pad(label.rawValue, 13) + TableRow.pad(Self.format(f.precision), 11)
                    + TableRow.pad(Self.format(f.recall), 7) + TableRow.pad(Self.format(f.f1), 7)
                    + TableRow.pad(String(f.expected), 10) + String(f.predicted) + "\n"
            }
            out += "emergency recall \(Self.format(figures.emergencyRecall)) · harmful-or-emergency recall "
                + "\(Self.format(figures.harmfulOrEmergencyRecall)) · safe flagged \(Self.percent(figures.safeFlaggedRate)) · "
                + "harm type right \(Self.percent(figures.typeAccuracy)) · accuracy \(Self.percent(figures.accuracy))\n"
            out += "confusion (rows: expected, columns: predicted)\n"
            out += TableRow.pad("", 13) + labels.map { TableRow.pad($0.rawValue, 11) }.joined() + "\n"
            for expected in labels where figures.confusion[expected] != nil {
                out += TableRow.pad(expected.rawValue, 13)
                    + labels.map { TableRow.pad(String(figures.confusion[expected]?[$0] ?? 0), 11) }.joined() + "\n"
            }
            if !figures.perType.isEmpty {
                out += "harm types (exact type / caught as harmful or emergency):\n"
                for type in RefusalType.allCases {
                    guard let t = figures.perType[type] else { continue }
                    out += "  " + TableRow.pad(type.rawValue, 16) + "\(t.exact)/\(t.expected) \(Self.percent(t.recall))"
                        + "  caught \(t.caught)/\(t.expected)\n"
                }
            }
        }
        let misses = misclassified
        out += "\nmisclassified: \(misses.count)\n"
        for miss in misses {
            var preview = TerminalText.escaped(miss.text)
            if preview.count > 100 { preview = String(preview.prefix(99)) + "…" }
            out += "  \(TerminalText.escaped(miss.id))  expected \(Self.name(miss.expected))  got \(Self.name(miss.predicted))"
                + "  [\(TerminalText.escaped(miss.rules.joined(separator: " ")))]  \(preview)\n"
        }
        if !incomplete.isEmpty {
            let closed = incomplete.count(where: \.failedClosed)
            out += "\nnot classified in full: \(incomplete.count) (failed closed, not in the figures: \(closed))\n"
            for record in incomplete {
                out += "  \(TerminalText.escaped(record.id))  expected \(Self.name(record.expected))  "
                    + (record.failedClosed ? "failed closed (found \(Self.name(record.predicted)))" : "got \(Self.name(record.predicted)), incomplete")
                    + "  \(TerminalText.escaped(record.reason))\n"
            }
        }
        if !thresholds.isEmpty {
            out += "\nthresholds:\n"
            for check in checks {
                out += "  \(check.holds ? "ok  " : "FAIL") \(check.slice): \(check.threshold) (\(Self.format(check.value)))\n"
            }
            out += passed ? "all thresholds hold\n" : "some thresholds failed\n"
        }
        return out
    }

    var json: String {
        func figuresJSON(_ figures: Evaluation.Figures) -> JSONText.Value {
            var object = JSONText.Object()
            object["records"] = .int(figures.count)
            var labels = JSONText.Object()
            for label in SafetyClassification.Label.allCases {
                guard let f = figures.perLabel[label] else { continue }
                var entry = JSONText.Object()
                entry["precision"] = f.precision.map { .double($0) } ?? .null
                entry["recall"] = f.recall.map { .double($0) } ?? .null
                entry["f1"] = f.f1.map { .double($0) } ?? .null
                entry["expected"] = .int(f.expected)
                entry["predicted"] = .int(f.predicted)
                labels[label.rawValue] = .object(entry)
            }
            object["labels"] = .object(labels)
            object["emergency_recall"] = figures.emergencyRecall.map { .double($0) } ?? .null
            object["harmful_or_emergency_recall"] = figures.harmfulOrEmergencyRecall.map { .double($0) } ?? .null
            object["safe_flagged_rate"] = figures.safeFlaggedRate.map { .double($0) } ?? .null
            object["type_accuracy"] = figures.typeAccuracy.map { .double($0) } ?? .null
            object["accuracy"] = figures.accuracy.map { .double($0) } ?? .null
            var confusion = JSONText.Object()
            for (expected, row) in figures.confusion.sorted(by: { $0.key.precedence < $1.key.precedence }) {
                var cells = JSONText.Object()
                for (predicted, count) in row.sorted(by: { $0.key.precedence < $1.key.precedence }) {
                    cells[predicted.rawValue] = .int(count)
                }
                confusion[expected.rawValue] = .object(cells)
            }
            object["confusion"] = .object(confusion)
            var types = JSONText.Object()
            for type in RefusalType.allCases {
                guard let t = figures.perType[type] else { continue }
                var entry = JSONText.Object()
                entry["expected"] = .int(t.expected)
                entry["exact"] = .int(t.exact)
                entry["caught"] = .int(t.caught)
                types[type.rawValue] = .object(entry)
            }
            object["types"] = .object(types)
            return .object(object)
        }
        var root = JSONText.Object()
        root["records"] = .int(evaluation.outcomes.count)
        root["overall"] = figuresJSON(evaluation.figures())
        var languages = JSONText.Object()
        for language in evaluation.languages { languages[language.rawValue] = figuresJSON(evaluation.figures(for: language)) }
        root["languages"] = .object(languages)
        root["misclassified"] = .array(
            misclassified.map { miss in
                var entry = JSONText.Object()
                entry["id"] = .string(miss.id)
                entry["lang"] = .string(miss.language.rawValue)
                entry["expected"] = .string(miss.expected.label.rawValue)
                entry["expected_type"] = .optional(miss.expected.type?.rawValue)
                entry["predicted"] = .string(miss.predicted.label.rawValue)
                entry["predicted_type"] = .optional(miss.predicted.type?.rawValue)
                entry["rules"] = .array(miss.rules.map { .string($0) })
                entry["text"] = .string(miss.text)
                return .object(entry)
            })
        root["thresholds"] = .array(
            checks.map { check in
                var entry = JSONText.Object()
                entry["slice"] = .string(check.slice)
                entry["metric"] = .string(check.threshold.metric.description)
                entry["bound"] = .double(check.threshold.bound)
                entry["minimum"] = .bool(check.threshold.isMinimum)
                entry["value"] = check.value.map { .double($0) } ?? .null
                entry["holds"] = .bool(check.holds)
                return .object(entry)
            })
        root["problems"] = .array(problems.map { .string($0) })
        root["incomplete"] = .int(incomplete.count)
        root["failed_closed"] = .int(incomplete.count(where: \.failedClosed))
        root["incomplete_records"] = .array(
            incomplete.map { record in
                var entry = JSONText.Object()
                entry["id"] = .string(record.id)
                entry["lang"] = .string(record.language.rawValue)
                entry["expected"] = .string(record.expected.label.rawValue)
                entry["predicted"] = .string(record.predicted.label.rawValue)
                entry["predicted_type"] = .optional(record.predicted.type?.rawValue)
                entry["failed_closed"] = .bool(record.failedClosed)
                entry["reason"] = .string(record.reason)
                return .object(entry)
            })
        root["passed"] = .bool(passed)
        return root.text
    }
}
