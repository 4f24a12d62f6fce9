#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where commands write. Tests swap it for a capture so commands run in-process.
public struct Console: Sendable {
    public var writeOut: @Sendable (String) -> Void
    public var writeErr: @Sendable (String) -> Void
    public var stdoutIsTerminal: Bool
    public var stderrIsTerminal: Bool
    public var environment: [String: String]

    public init(
        writeOut: @escaping @Sendable (String) -> Void, writeErr: @escaping @Sendable (String) -> Void,
        stdoutIsTerminal: Bool = false, stderrIsTerminal: Bool = false, environment: [String: String] = [:]
    ) {
        self.writeOut = writeOut
        self.writeErr = writeErr
        self.stdoutIsTerminal = stdoutIsTerminal
        self.stderrIsTerminal = stderrIsTerminal
        self.environment = environment
    }

    /// The process's real standard output and error.
    public static let standard = Console(
        writeOut: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
        writeErr: { text in FileHandle.standardError.write(Data(text.utf8)) },
        stdoutIsTerminal: isatty(1) == 1,
        stderrIsTerminal: isatty(2) == 1,
        environment: ProcessInfo.processInfo.environment
    )

    @TaskLocal public static var current: Console = .standard

    public func print(_ line: String) { writeOut(line + "\n") }
    public func printError(_ line: String) { writeErr(line + "\n") }
}
