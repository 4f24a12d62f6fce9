import ArgumentParser
import SafetyCore
import Foundation
import RuleEngine
import SafetyClassifier
import TextNormalization

extension SafeGate {
    /// `safegate explain TEXT`: every view of the text, the matches, and the label.
    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "explain",
            abstract: "Show the normalised views of TEXT, the rules it matches and its label.")

        @Argument(help: "The prompt to explain.")
        var text: String

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        @OptionGroup var rules: RuleSetOptions
        @OptionGroup var policy: PolicyOptions

        func run() async throws {
            let console = Console.current
            let ruleSet = try rules.load()
            let normalized = NormalizedText(text)
            // Every rule's evidence, through the classifier so the size bound and policy apply:
            // over --max-prompt-bytes the matches come from the head and tail windows.
            let classifier = SafetyClassifier(rules: ruleSet, policy: policy.policy)
            let result = classifier.makeSession().classify(text, evidence: .all)
            if json {
                var views = JSONText.Object()
                for view in normalized.builtViews { views[view.name.rawValue] = .string(view.text) }
                var object = JSONText.Object()
                object["label"] = result.failedClosed ? .null : .string(result.classification.label.rawValue)
                object["type"] = result.failedClosed ? .null : .optional(result.classification.type?.rawValue)
                object["lang"] = .string(normalized.language.rawValue)
                object["views"] = .object(views)
                object["matches"] = .array(
                    result.matches.map { match in
                        var entry = JSONText.Object()
                        entry["rule"] = .string(match.rule.id)
                        entry["view"] = .string(match.view.rawValue)
                        entry["start"] = .int(match.originalRange.lowerBound)
                        entry["end"] = .int(match.originalRange.upperBound)
                        return .object(entry)
                    })
                object["limit_hits"] = .array(
                    result.limitHits.map { hit in
                        var entry = JSONText.Object()
                        entry["rule"] = .string(hit.ruleID)
                        entry["view"] = .string(hit.view.rawValue)
                        entry["reason"] = .string(hit.reason.rawValue)
                        return .object(entry)
                    })
                if let truncation = result.truncation { object["truncated"] = OutputRecord.json(truncation) }
                if !result.isComplete { object["incomplete"] = .bool(true) }
                if let reason = result.incompleteReason { object["incomplete_reason"] = .string(reason) }
                object["failed_closed"] = .bool(result.failedClosed)
                console.print(object.text)
                return
            }
            console.print("language: \(normalized.language.rawValue)\(normalized.hadInvalidUTF8 ? "  (invalid UTF-8 replaced)" : "")")
            for view in normalized.builtViews {
                let name = view.name.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                console.print("\(name) \(TerminalText.escaped(view.text))")
            }
            if result.matches.isEmpty {
                console.print("matches:  none (\(ruleSet.enabledRules.count) rules)")
            } else {
                console.print("matches:")
                let original = normalized.original
                let rows = result.matches.map { match in
                    let span = match.originalRange
                    let excerpt = String(decoding: original[span.clamped(to: 0..<original.count)], as: UTF8.self)
                    return ["  " + match.rule.id, match.view.rawValue, "bytes \(span.lowerBound)..<\(span.upperBound)", JSONText.quote(excerpt)]
                }
                for line in Table.render(rows) { console.print(TerminalText.escaped(line)) }
            }
            for hit in result.limitHits {
                console.print(TerminalText.escaped("limit hit: \(hit)"))
            }
            if let truncation = result.truncation {
                let windows = truncation.classified.map { "\($0.lowerBound)..<\($0.upperBound)" }.joined(separator: " and ")
                console.print(
                    "truncated: \(truncation.totalBytes) bytes, over --max-prompt-bytes \(truncation.limit): "
                        + "classified bytes \(windows) (\(truncation.classifiedBytes) bytes)")
            }
            if let reason = result.incompleteReason {
                console.print(TerminalText.escaped("incomplete: \(reason)"))
            }
            let label = EvalReport.name(result.classification)
            if result.failedClosed {
                console.print("label:    none — failed closed: the label found (\(label)) could be too mild (--fail-open shows it)")
            } else {
                console.print("label:    \(label)\(result.isComplete ? "" : " (incomplete)")")
            }
        }
    }
}
