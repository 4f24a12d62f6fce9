#if canImport(Glibc)
import Glibc
#endif
public import ArgumentParser
import RuleEngine

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
    /// Whether the command line names a command that loads the bundled rules (no `--rules`, no
    /// help): for those, decoding them starts at once on another thread (`startDecodingBundled`).
    /// A wrong guess costs a few milliseconds of another core, never a different result.
    static func loadsBundledRules(_ arguments: [String]) -> Bool {
        guard let command = arguments.dropFirst().first,
            ["classify", "eval", "explain", "respond", "chat", "rules"].contains(command)
        else { return false }
        return !arguments.dropFirst(2).contains { argument in
            argument == "--rules" || argument.hasPrefix("--rules=") || argument == "--help" || argument == "-h"
        }
    }

    public static func run() async {
        // A closed pipe is an error from write(2), handled where output is written, not a signal.
        signal(SIGPIPE, SIG_IGN)
        if loadsBundledRules(CommandLine.arguments) { CompiledRuleSet.startDecodingBundled() }
        await SafeGate.main()
    }
}
