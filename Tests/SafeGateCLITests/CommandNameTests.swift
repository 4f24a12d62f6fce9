import ArgumentParser
import Testing

@testable import SafeGateCLI

/// Every command names itself, so that start-up does not derive names by reflection (`SafeGate`).
@Suite struct CommandNameTests {
    /// Every command type in the tree under `command`, `command` first.
    static func commands(under command: any ParsableCommand.Type) -> [any ParsableCommand.Type] {
        [command] + command.configuration.subcommands.flatMap { commands(under: $0) }
    }

    @Test func everyCommandStatesItsName() {
        let missing = Self.commands(under: SafeGate.self).filter { $0.configuration.commandName == nil }
        #expect(missing.isEmpty, "no commandName: \(missing.map { String(describing: $0) })")
    }

    /// The stated names are the ones ArgumentParser would derive from the type names.
    @Test func statedNamesAreTheDerivedOnes() {
        for command in Self.commands(under: SafeGate.self) where command != SafeGate.self {
            var derived = ""
            for (index, character) in String(describing: command).enumerated() {
                if character.isUppercase, index > 0 { derived += "-" }
                derived += character.lowercased()
            }
            #expect(command.configuration.commandName == derived)
        }
    }
}
