import ArgumentParser
import Foundation
import TextNormalization

extension SafeGate {
    /// Maintainer commands.
    struct Dev: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Maintainer tools.", shouldDisplay: false, subcommands: [GenerateTables.self])

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
