import ArgumentParser
import Foundation
import SafetyCore
import TextNormalization

extension SafeGate {
    /// Maintainer commands.
    struct Dev: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Maintainer tools.", shouldDisplay: false, subcommands: [GenerateTables.self, Views.self])

        /// Prints the views of every record of a JSONL file, for rule authors' own tooling.
        struct Views: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
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

        /// Re-derives the code-point tables from ICU.
        struct GenerateTables: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Derive the confusable and ASCII tables from ICU and write the Swift source.")

            @Option(help: "Output file.")
            var output = "Sources/TextNormalization/Generated/UnicodeTables+Data.swift"

            func run() async throws {
                let source = try TableDerivation.generatedSource()
                try Data(source.utf8).write(to: URL(fileURLWithPath: output))
                Console.current.printError("wrote \(output) (ICU \(TableDerivation.icuVersion))")
            }
        }
    }
}
