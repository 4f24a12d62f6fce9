import ArgumentParser
import Foundation
import Testing

@testable import SafeGateCLI

/// What a command printed and how it ended.
struct CLIResult {
    var status: Int32
    var out: String
    var err: String
}

/// Collects a command's output; Sendable so the Console closures can write to it.
final class OutputCapture: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var outText = ""
    nonisolated(unsafe) private var errText = ""

    func out(_ text: String) { lock.withLock { outText += text } }
    func err(_ text: String) { lock.withLock { errText += text } }
    var out: String { lock.withLock { outText } }
    var err: String { lock.withLock { errText } }
}

/// Runs `safegate ARGS` in-process with captured output, the way `main` would, and returns the
/// exit status the process would have had.
func runCLI(_ arguments: [String], environment: [String: String] = [:]) async -> CLIResult {
    let capture = OutputCapture()
    let console = Console(
        writeOut: { capture.out($0) }, writeErr: { capture.err($0) }, environment: environment)
    let status: Int32 = await Console.$current.withValue(console) {
        do {
            var command = try SafeGate.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = SafeGate.exitCode(for: error).rawValue
            let message = SafeGate.fullMessage(for: error)
            if !message.isEmpty { capture.err(message + "\n") }
            return code
        }
    }
    return CLIResult(status: status, out: capture.out, err: capture.err)
}

/// Where the CLI tests write their input files: one directory per test process, removed when the
/// process exits, so repeated `swift test` runs leave nothing behind in the temporary directory.
enum TestScratch {
    static let root: URL = {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("safegate-tests-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestScratch.root) }
        return url
    }()

    /// A fresh, empty directory inside `root`.
    static func directory() throws -> URL {
        let url = root.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
