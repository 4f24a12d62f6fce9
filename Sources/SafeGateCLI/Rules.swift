import ArgumentParser
import Foundation
import RuleEngine
import SafetyCore
import TextNormalization

extension SafeGate {
    /// `safegate rules test|lint|list`: the rule sets as a tested artefact.
    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rules",
            abstract: "Check, time and list the rule sets.",
            discussion: """
                Rule files are YAML (docs/RULES.md). Without --rules the rules bundled in the binary are used; \
                --rules DIR loads every .yaml/.yml file under DIR instead, so rule authors iterate without rebuilding. \
                A rule set that does not load exits 78 with one `file:line: rule-id: problem` line per problem.
                """,
            subcommands: [Test.self, Lint.self, List.self, Bench.self])
    }
}

/// `--rules DIR`, shared by every command that reads rules.
struct RuleSetOptions: ParsableArguments {
    @Option(
        name: .customLong("rules"),
        help: ArgumentHelp("Load the rule files under DIR (recursively) instead of the bundled rules.", valueName: "DIR"))
    var directory: String?

    /// The rule set, or every load problem printed to stderr and exit 78. `checkingPatterns`:
    /// compile every bundled pattern now, so one PCRE2 rejects is a load problem (rules given with
    /// `--rules` always are).
    func load(checkingPatterns: Bool = false) throws -> CompiledRuleSet {
        do {
            return try CompiledRuleSet.load(from: RuleSource(directory: directory), checkingPatterns: checkingPatterns)
        } catch {
            let console = Console.current
            for problem in error.problems { console.printError(TerminalText.escaped(problem.description)) }
            let count = error.problems.count
            console.printError("safegate: the rule set does not load (\(count) problem\(count == 1 ? "" : "s")); \(error.recovery)")
            throw ExitStatus.configuration
        }
    }
}

extension SafeGate.Rules {
    /// `safegate rules test`: every example of every rule.
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Check every rule's examples: each `match` example must fire the rule, no `no_match` example may.",
            discussion: "Examples are normalised exactly as prompts are, with the rule's language as the locale. Exit 1 when an example fails.")

        @OptionGroup var rules: RuleSetOptions

        func run() async throws {
            let console = Console.current
            let ruleSet = try rules.load(checkingPatterns: true)
            let report = ruleSet.checkAllExamples()
            for failure in report.failures { console.print(TerminalText.escaped(failure.description)) }
            console.print("rules test: \(report.summary)")
            if !report.failures.isEmpty { throw ExitStatus.thresholdFailed }
        }
    }

    /// `safegate rules lint`: compile everything and time every pattern on adversarial input.
    struct Lint: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Time every pattern against generated adversarial input and report slow ones.",
            discussion: """
                Each pattern and `unless` pattern is searched on inputs built from it: long runs of what it repeats \
                (alone, then a character that breaks the match, and after its first literal), near-misses of its \
                literals, and generic runs. A search slower than the threshold, one that hits a PCRE2 limit, and a \
                pattern that matches the empty string are reported; exit 1 when anything is.
                """)

        @OptionGroup var rules: RuleSetOptions

        @Option(help: "Report searches slower than this many milliseconds.")
        var thresholdMs: Double = 1

        @Option(help: "Size in bytes of each generated input.")
        var inputBytes: Int = 100_000

        func validate() throws {
            guard thresholdMs > 0 else { throw ValidationError("--threshold-ms must be positive") }
            guard (1...10_000_000).contains(inputBytes) else { throw ValidationError("--input-bytes must be between 1 and 10000000") }
        }

        func run() async throws {
            let console = Console.current
            let ruleSet = try rules.load(checkingPatterns: true)
            let options = LintOptions(inputBytes: inputBytes, slowThreshold: .microseconds(Int64(thresholdMs * 1000)))
            let report = RuleLinter.lint(ruleSet, options: options)
            for finding in report.findings { console.print(TerminalText.escaped(finding.description)) }
            console.print(TerminalText.escaped("rules lint: \(report.summary)"))
            if !report.findings.isEmpty { throw ExitStatus.thresholdFailed }
        }
    }

    /// `safegate rules list`: one line per rule.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the rules: id, label, type, views and file.")

        @OptionGroup var rules: RuleSetOptions

        @Flag(help: "Print one JSON object per rule, one per line.")
        var json = false

        func run() async throws {
            let console = Console.current
            let ruleSet = try rules.load()
            if json {
                for rule in ruleSet.rules {
                    var object = JSONText.Object()
                    object["id"] = .string(rule.id)
                    object["label"] = .string(rule.label.rawValue)
                    object["type"] = .optional(rule.type?.rawValue)
                    object["topic"] = .optional(rule.topic)
                    object["views"] = .array(rule.views.map { .string($0.rawValue) })
                    object["severity"] = .string(rule.severity.rawValue)
                    object["language"] = .string(rule.language.rawValue)
                    object["disabled"] = .bool(rule.disabled)
                    // What the literal prefilter requires (null: searched on every prompt).
                    object["required_literals"] =
                        ruleSet.requiredLiterals(ofRule: rule.id).map { groups in .array(groups.map { .array($0.map { .string($0) }) }) }
                        ?? .null
                    object["file"] = .string(rule.location.file)
                    object["line"] = .int(rule.location.line)
                    console.print(object.text)
                }
                return
            }
            let header = ["ID", "LABEL", "TYPE", "VIEWS", "FILE"]
            let rows = ruleSet.rules.map { rule in
                [
                    rule.id + (rule.disabled ? " (disabled)" : ""),
                    rule.label.rawValue + (rule.topic.map { ":\($0)" } ?? ""),
                    rule.type?.rawValue ?? "-",
                    rule.views.map(\.rawValue).joined(separator: ","),
                    rule.location.description,
                ]
            }
            for line in Table.render([header] + rows) { console.print(TerminalText.escaped(line)) }
            console.print("\(ruleSet.rules.count) rule\(ruleSet.rules.count == 1 ? "" : "s") in \(ruleSet.files.count) file\(ruleSet.files.count == 1 ? "" : "s")")
        }
    }
}

extension SafeGate.Rules {
    /// `safegate rules bench FILE...`: maintainer tool measuring the matcher and its prefilter.
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Time matching over prompts (text lines, or JSONL with a `text` field), with and without the literal prefilter.",
            shouldDisplay: false)

        @OptionGroup var rules: RuleSetOptions

        @Argument(help: "Prompt files.")
        var files: [String]

        @Option(help: "Rounds per variant; the best is reported.")
        var rounds = 3

        @Option(help: "Texts longer than this many bytes are matched under the time budget.")
        var longSubjectBytes = MatchLimits.default.longSubjectBytes

        func run() async throws {
            let console = Console.current
            let ruleSet = try rules.load()
            var prompts: [String] = []
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    console.printError("safegate: cannot open \(file)")
                    throw ExitStatus.cannotOpen
                }
                for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                    if file.hasSuffix(".jsonl") {
                        let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                        if let text = object?["text"] as? String { prompts.append(text) }
                    } else {
                        prompts.append(String(line))
                    }
                }
            }
            let bytes = prompts.reduce(0) { $0 + $1.utf8.count }
            let clock = ContinuousClock()
            var normalized: [NormalizedText] = []
            let normalizing = clock.measure { normalized = prompts.map { ruleSet.normalize($0) } }
            console.print("\(prompts.count) prompts, \(bytes) bytes, \(ruleSet.enabledRules.count) rules (\(ruleSet.prefilteredRuleCount) with required literals), views \(ruleSet.views.sorted().map(\.rawValue).joined(separator: ","))")
            console.print("normalise: \(Self.perPrompt(normalizing, prompts.count))")
            var reference: [[RuleMatch]]?
            for (prefilter, bytesMode) in [(true, true), (false, true), (true, false), (false, false)] {
                var best = Duration.seconds(1_000_000)
                var counters = MatchCounters()
                var results: [[RuleMatch]] = []
                for _ in 0..<max(1, rounds) {
                    var limits = MatchLimits.default
                    limits.longSubjectBytes = longSubjectBytes
                    let matcher = ruleSet.makeMatcher(limits: limits)
                    matcher.usesPrefilter = prefilter
                    matcher.usesBytesMode = bytesMode
                    var round: [[RuleMatch]] = []
                    round.reserveCapacity(normalized.count)
                    let elapsed = clock.measure { for text in normalized { round.append(matcher.match(text).matches) } }
                    if elapsed < best {
                        best = elapsed
                        counters = matcher.counters
                        results = round
                    }
                }
                let n = Double(max(1, prompts.count))
                let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
                console.print(
                    "match, prefilter \(prefilter ? "on " : "off"), ASCII bytes mode \(bytesMode ? "on " : "off"): \(Self.perPrompt(best, prompts.count)), "
                        + "\(String(format: "%.1f", Double(bytes) / 1e6 / max(seconds, 1e-9))) MB/s, "
                        + "\(String(format: "%.1f", Double(counters.ruleViewsSearched) / n)) rule-views searched and "
                        + "\(String(format: "%.1f", Double(counters.ruleViewsSkipped) / n)) skipped per prompt, "
                        + "\(counters.limitHits) limit hits, \(results.reduce(0) { $0 + $1.count }) matches")
                if let reference, reference != results { console.print("warning: results differ between variants") }
                reference = results
            }
        }

        static func perPrompt(_ duration: Duration, _ count: Int) -> String {
            let micros = (Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12) / Double(max(1, count))
            return String(format: "%.1f µs/prompt", micros)
        }
    }
}

/// Left-aligned columns separated by two spaces.
enum Table {
    static func render(_ rows: [[String]]) -> [String] {
        guard let columns = rows.map(\.count).max() else { return [] }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { i, cell in
                i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }
    }
}
