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
    ///
    /// When the reader of stdout goes away (`safegate classify big.jsonl | head`), there is nobody
    /// left to tell: the process ends at once, silently, with status 0.
    public static let standard = Console(
        writeOut: { text in
            if !writeAll(1, text) && errno == EPIPE { exit(0) }
        },
        writeErr: { text in _ = writeAll(2, text) },
        stdoutIsTerminal: isatty(1) == 1,
        stderrIsTerminal: isatty(2) == 1,
        environment: ProcessInfo.processInfo.environment
    )

    @TaskLocal public static var current: Console = .standard

    /// Writes all of `text` to `fd` with `write(2)`, retrying short writes; false on an error.
    static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    public func print(_ line: String) { writeOut(line + "\n") }
    public func printError(_ line: String) { writeErr(line + "\n") }
}
