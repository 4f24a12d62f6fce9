#if canImport(Glibc)
import Glibc
#endif
public import ArgumentParser

/// The `safegate` command line.
///
/// Every command states its `commandName`: without one, ArgumentParser derives it from
/// `String(describing: Self.self)` for every command in the tree at every start, and each of those
/// casts scans the binary's protocol conformances (about 1.5 ms of the time to first result).
/// `CommandNameTests` checks that none is missing.
public struct SafeGate: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "safegate",
        abstract: "An offline safety gateway for AI assistants.",
        subcommands: [Chat.self, Respond.self, Classify.self, Eval.self, Explain.self, Rules.self, Dev.self]
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
    /// The language model could not answer (an addition to CONTRACT.md's table; sysexits' EX_UNAVAILABLE).
    static let unavailable = ExitCode(69)
}

/// The executable's entry point: parses `CommandLine.arguments`, runs the command, exits.
public enum SafeGateMain {
    public static func run() async {
        // A closed pipe is an error from write(2), handled where output is written, not a signal.
        signal(SIGPIPE, SIG_IGN)
        await SafeGate.main()
    }
}
