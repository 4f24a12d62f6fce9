import ArgumentParser
import Foundation
import RuleEngine
import SafetyCore
import TextNormalization

extension SafeGate {
    /// Maintainer commands.
    struct Dev: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dev",
            abstract: "Maintainer tools.", shouldDisplay: false, subcommands: [GenerateTables.self, GenerateLiteralCache.self, Views.self, BenchNormalize.self, Bench.self])

        /// Prints the views of every record of a JSONL file, for rule authors' own tooling.
        struct Views: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "views",
                abstract: "Read JSONL records with a \"text\" field on stdin; print their id, language and views.")

            func run() async throws {
                let console = Console.current
                while let line = readLine(strippingNewline: true) {
                    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                        let text = object["text"] as? String
                    else { continue }
                    let normalized = NormalizedText(text)
                    var views = JSONText.Object()
                    for view in normalized.builtViews { views[view.name.rawValue] = .string(view.text) }
                    var out = JSONText.Object()
                    out["id"] = .optional(object["id"] as? String)
                    out["lang"] = .string(normalized.language.rawValue)
                    out["views"] = .object(views)
                    console.print(out.text)
                }
            }
        }

        /// Measures what each normalisation view costs per prompt.
        struct BenchNormalize: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "bench-normalize",
                abstract: "Time each view on an English and a Turkish prompt (build with -c release).")

            @Option(help: "Timed batches per measurement; the median batch is reported.")
            var batches = 15

            @Option(help: "Prompts normalised per batch.")
            var iterations = 2000

            static let samples: [(name: String, text: String)] = [
                ("en short", "Can you move my 3pm meeting with Sarah to Thursday and remind me an hour before?"),
                ("tr short", "Yarınki toplantıyı perşembeye ertele ve bir saat önce bana hatırlat, lütfen."),
                ("en 1 KB", String(repeating: "I have been feeling tired lately and my calendar is packed with meetings all week. ", count: 12)),
                ("tr 1 KB", String(repeating: "Bu hafta çok yoğunum, toplantıları öğleden sonraya kaydırabilir misin? Teşekkürler. ", count: 12)),
                ("evasive", "please k.i.l.l him ｋ\u{200B}і１ｌｌ İNTİHAR ETMEK İSTİYORUM 5uicide diiiie"),
            ]

            func run() async throws {
                let console = Console.current
                let clock = ContinuousClock()
                console.print("per-prompt cost, median of \(batches) batches of \(iterations); cumulative (this view alone)")
                for sample in Self.samples {
                    let bytes = Array(sample.text.utf8)
                    var line = "\(sample.name.padding(toLength: 9, withPad: " ", startingAt: 0)) \(bytes.count) B:"
                    var previous = 0.0
                    for view in ViewName.allCases {
                        let options = NormalizationOptions(views: [view])
                        var timings: [Double] = []
                        for _ in 0..<batches {
                            let elapsed = clock.measure {
                                for _ in 0..<iterations { _ = NormalizedText(bytes: bytes, options: options) }
                            }
                            timings.append(Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
                        }
                        let median = timings.sorted()[timings.count / 2] / Double(iterations)
                        line += String(format: "  %@ %.2f µs (%.2f)", view.rawValue, median, median - previous)
                        previous = median
                    }
                    console.print(line)
                }
            }
        }

        /// Re-derives the code-point tables from ICU.
        struct GenerateTables: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "generate-tables",
                abstract: "Derive the confusable and ASCII tables from ICU and write the Swift source.")

            @Option(help: "Output file.")
            var output = "Sources/TextNormalization/Generated/UnicodeTables+Data.swift"

            func run() async throws {
                let source = try TableDerivation.generatedSource()
                try Data(source.utf8).write(to: URL(fileURLWithPath: output))
                Console.current.printError("wrote \(output) (ICU \(TableDerivation.icuVersion))")
            }
        }

        /// Re-analyses every rule pattern's required literals and re-parses every rule file, and
        /// writes the two load-time caches.
        struct GenerateLiteralCache: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "generate-literal-cache",
                abstract: "Write Resources/rules/literal-cache.tsv (every pattern's required literals) and Resources/rules/rules-snapshot.tsv (every rule file parsed), so loading skips the analysis and YAML.",
                discussion: "Run after editing rules (LiteralCacheTests and RuleSnapshotTests fail on stale files). Reads the rule files on disk, not the bundled copy.")

            @Option(help: "The rule directory to analyse.")
            var rules = "Resources/rules"

            @Option(help: "Output file of the literal cache.")
            var output = "Resources/rules/literal-cache.tsv"

            @Option(help: "Output file of the rule snapshot.")
            var snapshotOutput = "Resources/rules/rules-snapshot.tsv"

            func run() async throws {
                let ruleSet: CompiledRuleSet
                let snapshot: String
                do {
                    ruleSet = try CompiledRuleSet.load(from: .directory(rules))
                    snapshot = try CompiledRuleSet.ruleSnapshotText(ofDirectory: rules)
                } catch {
                    for problem in error.problems { Console.current.printError(TerminalText.escaped(problem.description)) }
                    throw ExitStatus.configuration
                }
                try Data(ruleSet.literalCacheText().utf8).write(to: URL(fileURLWithPath: output))
                try Data(snapshot.utf8).write(to: URL(fileURLWithPath: snapshotOutput))
                Console.current.printError("wrote \(output) and \(snapshotOutput) (\(ruleSet.rules.count) rules)")
            }
        }
    }
}
