public import ArgumentParser

/// The `safegate` command line.
public struct SafeGate: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "safegate",
        abstract: "An offline safety gateway for AI assistants.",
        subcommands: [Explain.self, Dev.self]
    )

    public init() {}
}

/// Exit codes of the public contract (CONTRACT.md).
enum ExitStatus {
    static let thresholdFailed = ExitCode(1)
    static let usage = ExitCode(64)
    static let malformedInput = ExitCode(65)
    static let cannotOpen = ExitCode(66)
    static let internalError = ExitCode(70)
    static let configuration = ExitCode(78)
}

/// The executable's entry point: parses `CommandLine.arguments`, runs the command, exits.
public enum SafeGateMain {
    public static func run() async {
        await SafeGate.main()
    }
}
