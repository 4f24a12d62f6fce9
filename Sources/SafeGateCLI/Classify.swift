import ArgumentParser
import Foundation
import RuleEngine
import SafetyClassifier
import SafetyCore

/// Options every command that classifies shares.
struct ClassifierOptions: ParsableArguments {
    @Option(help: "Rule directory to load instead of the rules built into the binary.")
    var rules: String?

    @Option(help: "Assistant profile: general, calendar, or a profile file.")
    var profile = "general"

    @OptionGroup var policy: PolicyOptions

    /// Loads rules and profile; configuration problems become exit 78 with file and line.
    func makeClassifier() throws -> SafetyClassifier {
        let ruleSet: CompiledRuleSet
        do {
            ruleSet = try CompiledRuleSet.load(from: RuleSource(directory: rules))
        } catch {
            Console.current.printError(error.description)
            throw ExitStatus.configuration
        }
        let loaded: Profile
        do {
            loaded = try Profile.load(profile)
        } catch {
            Console.current.printError(error.description)
            throw ExitStatus.configuration
        }
        return SafetyClassifier(rules: ruleSet, profile: loaded, policy: policy.policy)
    }
}

/// The fail-safe flags (DEVELOPERS.md "Fail-safe policy"): the prompt size bound and fail closed
/// or open.
struct PolicyOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Longest prompt classified whole, in bytes (K, M suffixes: KiB, MiB; at least 2). A longer prompt is classified on its first and last N/2 bytes, and the output says so.",
        valueName: "N"))
    var maxPromptBytes = PromptBytes(ClassificationPolicy.defaultMaxPromptBytes)

    @Flag(help: "When a prompt cannot be classified in full (over --max-prompt-bytes, or a rule stopped at a match limit) and the label found is safe or offTopic, use that label, marked incomplete. Default: fail closed (classify: an error record and exit 65; respond/chat: the prompt is not sent to the model).")
    var failOpen = false

    func validate() throws {
        guard maxPromptBytes.bytes >= 2 else {
            throw ValidationError(
                "--max-prompt-bytes must be at least 2 (one byte for the head window, one for the tail), got \(maxPromptBytes.bytes)")
        }
    }

    var policy: ClassificationPolicy {
        ClassificationPolicy(maxPromptBytes: maxPromptBytes.bytes, failure: failOpen ? .failOpen : .failClosed)
    }
}

/// `--max-prompt-bytes`: a `ByteCount` that also parses 0, so that validation can say why it is too small.
struct PromptBytes: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        if argument.allSatisfy({ $0 == "0" }), !argument.isEmpty {
            bytes = 0
        } else if let count = ByteCount(argument: argument) {
            bytes = count.bytes
        } else {
            return nil
        }
    }

    var description: String { ByteCount(bytes).description }
    var defaultValueDescription: String { description }
}

extension SafeGate {
    /// `safegate classify`: a streaming Unix filter, one output record per input record, in order.
    struct Classify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "classify",
            abstract: "Classify prompts from files or stdin; one output record per input record, in order.")

        @Argument(help: "Input files; none or '-' reads stdin.")
        var files: [String] = []

        @Option(help: "text (one prompt per line), jsonl or csv; default: from the file extension, else text.")
        var inputFormat: InputFormatArgument?

        @Option(help: "JSONL field or CSV column holding the prompt.")
        var textField = "text"

        @Option(help: "JSONL field or CSV column copied to the output id (default: the record number).")
        var idField: String?

        @Option(help: "jsonl, csv or table; default: table on a terminal, else jsonl.")
        var outputFormat: OutputFormat?

        @OptionGroup var classifierOptions: ClassifierOptions

        @Option(help: "Worker threads (output order is unchanged).")
        var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

        @Option(help: "K/N: classify only every N-th record starting at record K (0-based), to split a corpus over N processes.")
        var shard: Shard?

        @Option(help: ArgumentHelp(
            "Longest input record in bytes (K, M, G suffixes: KiB, MiB, GiB); a longer one becomes an error record and is skipped in bounded memory.",
            valueName: "N"))
        var maxRecordBytes = ByteCount(LineReader.defaultMaxLineBytes)

        @Flag(help: "No progress line and no summary on stderr.")
        var quiet = false

        @Option(help: "Write the run's summary as JSON to this file.")
        var summaryJson: String?

        func validate() throws {
            guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
        }

        func run() async throws {
            let console = Console.current
            let classifier = try classifierOptions.makeClassifier()
            let inputs = InputFiles.open(files)
            defer { inputs.closeAll() }
            for failure in inputs.failures { console.printError("safegate classify: \(failure)") }
            // Before the stream: Ctrl-C must also end a wait for input (the stream polls its wake pipe).
            let interrupt = Interrupt.install()
            defer { interrupt.remove() }
            let stream = RecordStream(
                files: inputs, format: inputFormat?.format, textField: textField, idField: idField,
                maxRecordBytes: maxRecordBytes.bytes, wakeFD: interrupt.wakeFD)
            let format = outputFormat ?? (console.stdoutIsTerminal ? .table : .jsonl)
            let output = OutputBuffer(console: console)
            if format == .csv { output.append("id,label,type,lang,rules,error\n") }
            if format == .table { output.append(TableRow.header) }

            let progress = Progress(
                console: console, enabled: !quiet && console.stderrIsTerminal, totalBytes: inputs.totalSize)
            let pipeline = ClassifyPipeline(
                classifier: classifier, format: format, jobs: jobs, output: output, progress: progress)
            let started = ContinuousClock.now
            var summary = pipeline.run(
                stream: stream, shard: shard, stop: { interrupt.fired })
            output.flush()
            progress.finish()
            summary.seconds = (ContinuousClock.now - started).seconds
            summary.interrupted = interrupt.fired
            for message in stream.readErrors { console.printError("safegate classify: \(message)") }
            if !quiet { console.printError(summary.text) }
            if let summaryJson {
                do {
                    try Data((summary.json + "\n").utf8).write(to: URL(fileURLWithPath: summaryJson))
                } catch {
                    console.printError("safegate classify: cannot write \(TerminalText.escaped(summaryJson)): \(error.localizedDescription)")
                }
            }
            if interrupt.fired { throw ExitCode(130) }
            if summary.errors > 0 {
                console.printError("safegate classify: \(summary.errors) of \(summary.records) records could not be classified")
            }
            if summary.failedClosed > 0 {
                console.printError(
                    "safegate classify: \(summary.failedClosed) of them were not classified in full and failed closed "
                        + "(--max-prompt-bytes raises the size bound; --fail-open labels them, marked incomplete)")
            }
            // A file that could not be opened or read outweighs malformed records (66 before 65).
            if !inputs.failures.isEmpty || !stream.readErrors.isEmpty {
                let count = inputs.failures.count + stream.readErrors.count
                console.printError("safegate classify: \(count) input file\(count == 1 ? "" : "s") could not be read; the others' records were all written")
                throw ExitStatus.cannotOpen
            }
            if summary.errors > 0 { throw ExitStatus.malformedInput }
        }
    }
}

/// `--shard K/N`.
struct Shard: ExpressibleByArgument, Sendable {
    var index: Int
    var count: Int

    init?(argument: String) {
        let parts = argument.split(separator: "/")
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), count >= 1, (0..<count).contains(index)
        else { return nil }
        self.index = index
        self.count = count
    }

    /// Whether the record numbered `number` (1-based) belongs to this shard.
    func contains(_ number: Int) -> Bool { (number - 1) % count == index }
}

/// A size in bytes on the command line: `1048576`, `512K`, `1M`, `2G` (binary units).
struct ByteCount: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var bytes: Int

    init(_ bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.uppercased().replacingOccurrences(of: "IB", with: "").replacingOccurrences(of: "B", with: "")
        let shifts: [Character: Int] = ["K": 10, "M": 20, "G": 30]
        var digits = Substring(text)
        var shift = 0
        if let last = digits.last, let value = shifts[last] {
            shift = value
            digits = digits.dropLast()
        }
        guard let number = Int(digits), number >= 1, number <= (Int.max >> 31) else { return nil }
        bytes = number << shift
    }

    var description: String {
        bytes % (1 << 20) == 0 ? "\(bytes >> 20)M" : bytes % (1 << 10) == 0 ? "\(bytes >> 10)K" : String(bytes)
    }

    var defaultValueDescription: String { description }
}

/// `--input-format`.
struct InputFormatArgument: ExpressibleByArgument {
    var format: InputFormat
    init?(argument: String) {
        guard let format = InputFormat(rawValue: argument) else { return nil }
        self.format = format
    }
    static var allValueStrings: [String] { InputFormat.allCases.map(\.rawValue) }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, csv, table
}

/// One line of `classify` output.
struct OutputRecord {
    var id: String
    var decision: Decision?
    var error: String?
    /// Something the record's reader repaired (invalid UTF-8); the record was still classified.
    var warning: String?
    var preview: String?
    /// A record that failed closed keeps its truncation here (its decision is withheld).
    var truncation: Truncation?

    /// Appends the record in `format` to `out` (a batch's text).
    func append(_ format: OutputFormat, to out: inout String) {
        switch format {
        case .jsonl: appendJSONLine(to: &out)
        case .csv: out += csvLine
        case .table: out += TableRow.row(self)
        }
    }

    /// The record as one JSON line (CONTRACT.md), appended in place: keys in a fixed order, and
    /// the optional ones only when they apply. Building a `JSONText.Object` per record (an array of
    /// entries, a quoted copy of every key and value, then joins) took a fifth of `classify`'s
    /// time on short prompts.
    func appendJSONLine(to out: inout String) {
        out += "{\"id\":"
        JSONText.appendQuoted(id, to: &out)
        if let decision {
            out += ",\"label\":"
            JSONText.appendQuoted(decision.classification.label.rawValue, to: &out)
            out += ",\"type\":"
            if let type = decision.classification.type?.rawValue { JSONText.appendQuoted(type, to: &out) } else { out += "null" }
            out += ",\"lang\":"
            JSONText.appendQuoted(decision.language.rawValue, to: &out)
            out += ",\"rules\":["
            for (index, rule) in decision.decidingRuleIDs.enumerated() {
                if index > 0 { out += "," }
                JSONText.appendQuoted(rule, to: &out)
            }
            out += "]"
            if !decision.limitHits.isEmpty {
                out += ",\"limit_hits\":" + JSONText.Value.array(decision.limitHits.map { .string($0.description) }).text
            }
            if let truncation = decision.truncation { out += ",\"truncated\":" + Self.json(truncation).text }
            if !decision.isComplete { out += ",\"incomplete\":true" }
            if let warning {
                out += ",\"warning\":"
                JSONText.appendQuoted(warning, to: &out)
            }
        } else {
            out += ",\"label\":null,\"error\":"
            JSONText.appendQuoted(error ?? "unreadable record", to: &out)
            if let truncation { out += ",\"truncated\":" + Self.json(truncation).text }
        }
        out += "}\n"
    }

    /// `{"total_bytes": N, "classified_bytes": M}`.
    static func json(_ truncation: Truncation) -> JSONText.Value {
        var object = JSONText.Object()
        object["total_bytes"] = .int(truncation.totalBytes)
        object["classified_bytes"] = .int(truncation.classifiedBytes)
        return .object(object)
    }

    /// What the table and CSV say about a labelled record that was not classified in full.
    static func incompleteNote(_ decision: Decision) -> String? {
        guard !decision.isComplete else { return nil }
        if let truncation = decision.truncation {
            return "incomplete: classified \(truncation.classifiedBytes) of \(truncation.totalBytes) bytes (head and tail)"
        }
        return "incomplete: " + (decision.incompleteReason ?? "a search stopped early")
    }

    var csvLine: String {
        let fields: [String]
        if let decision {
            fields = [
                id, decision.classification.label.rawValue, decision.classification.type?.rawValue ?? "",
                decision.language.rawValue, decision.decidingRuleIDs.joined(separator: " "),
                Self.incompleteNote(decision) ?? "",
            ]
        } else {
            fields = [id, "", "", "", "", error ?? "unreadable record"]
        }
        return fields.map(CSVText.quote).joined(separator: ",") + "\n"
    }
}

enum CSVText {
    /// RFC 4180 quoting, plus escaping of control characters so one record stays one line.
    static func quote(_ field: String) -> String {
        let escaped = TerminalText.escaped(field)
        guard escaped.contains(where: { $0 == "," || $0 == "\"" }) || escaped.hasPrefix(" ") else { return escaped }
        return "\"" + escaped.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

/// The readable table for terminals.
enum TableRow {
    static let header = pad("ID", 8) + pad("LABEL", 11) + pad("TYPE", 15) + pad("LANG", 5) + "PROMPT\n"

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? String(text.prefix(width - 1)) + " " : text + String(repeating: " ", count: width - text.count)
    }

    static func row(_ record: OutputRecord) -> String {
        // Ids come from the input too: escaped like the prompt.
        let id = TerminalText.escaped(record.id)
        guard let decision = record.decision else {
            return pad(id, 8) + pad("error", 11) + TerminalText.escaped(record.error ?? "") + "\n"
        }
        var preview = TerminalText.escaped(record.preview ?? "")
        if preview.count > 60 { preview = String(preview.prefix(59)) + "…" }
        if record.warning != nil { preview = "(invalid UTF-8 replaced) " + preview }
        if let note = OutputRecord.incompleteNote(decision) { preview = "(\(TerminalText.escaped(note))) " + preview }
        return pad(id, 8) + pad(decision.classification.label.rawValue, 11)
            + pad(decision.classification.type?.rawValue ?? "-", 15) + pad(decision.language.rawValue, 5) + preview + "\n"
    }
}

/// Collects output and writes it in large pieces.
final class OutputBuffer {
    private let console: Console
    private var pending = ""
    let limit: Int

    init(console: Console, limit: Int = 1 << 16) {
        self.console = console
        self.limit = limit
        pending.reserveCapacity(limit + 4096)
    }

    func append(_ text: String) {
        pending += text
        if pending.utf8.count >= limit { flush() }
    }

    /// Output is waiting to be written (the pipeline flushes it before it waits for input).
    var isHolding: Bool { !pending.isEmpty }

    func flush() {
        guard !pending.isEmpty else { return }
        console.writeOut(pending)
        pending.removeAll(keepingCapacity: true)
    }
}
