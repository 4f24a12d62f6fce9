import ArgumentParser
import SafetyCore
import Foundation
import TextNormalization

extension SafeGate {
    /// `safegate explain TEXT`: every view of the text, the matches, and the label.
    struct Explain: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the normalised views of TEXT, the rules it matches and its label.")

        @Argument(help: "The prompt to explain.")
        var text: String

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        func run() async throws {
            let console = Console.current
            let normalized = NormalizedText(text)
            if json {
                var views = JSONText.Object()
                for view in normalized.builtViews { views[view.name.rawValue] = .string(view.text) }
                var object = JSONText.Object()
                object["label"] = .null
                object["type"] = .null
                object["lang"] = .string(normalized.language.rawValue)
                object["views"] = .object(views)
                object["matches"] = .array([])
                console.print(object.text)
                return
            }
            console.print("language: \(normalized.language.rawValue)\(normalized.hadInvalidUTF8 ? "  (invalid UTF-8 replaced)" : "")")
            for view in normalized.builtViews {
                let name = view.name.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                console.print("\(name) \(TerminalText.escaped(view.text))")
            }
        }
    }
}
