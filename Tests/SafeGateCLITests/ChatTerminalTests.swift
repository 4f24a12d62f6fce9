#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The REPL on a real pseudo-terminal: libedit's line editing, history (arrow up) and Turkish
/// letters typed at the prompt.
@Suite struct ChatTerminalTests {
    /// A child process on a pseudo-terminal: util-linux's `script` allocates it and relays our
    /// pipe to it, so the child sees a real terminal (isatty, line discipline, libedit).
    final class Terminal {
        let master: Int32
        let input: FileHandle
        let process: Process
        private(set) var output = ""

        init(arguments: [String], environment: [String: String]) throws {
            let binary = try #require(ChatEndToEndTests.binary)
            let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
            process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
            process.arguments = ["-qfec", command, "/dev/null"]
            var env = ProcessInfo.processInfo.environment
            for (key, value) in environment { env[key] = value }
            process.environment = env
            let stdin = Pipe()
            let stdout = Pipe()
            process.standardInput = stdin
            process.standardOutput = stdout
            process.standardError = stdout
            try process.run()
            input = stdin.fileHandleForWriting
            master = stdout.fileHandleForReading.fileDescriptor
        }

        func type(_ text: String) {
            input.write(Data(text.utf8))
        }

        /// Reads until `needle` appears (or the deadline passes); returns whether it did.
        @discardableResult
        func waitFor(_ needle: String, seconds: Double = 20) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !output.contains(needle) {
                let remaining = deadline.timeIntervalSinceNow
                guard remaining > 0 else { return false }
                var poller = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, Int32(min(remaining, 1) * 1000)) > 0 else { continue }
                let count = read(master, &buffer, buffer.count)
                guard count > 0 else { return false }
                output += String(decoding: buffer[0..<count], as: UTF8.self)
            }
            return true
        }

        func close() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    @Test func historyArrowKeysAndTurkishLetters() throws {
        let terminal = try Terminal(
            arguments: ["chat", "--no-log", "--region", "TR"],
            environment: ["NO_COLOR": "1", "LANG": "C", "LC_ALL": "", "TERM": "xterm"])
        defer { terminal.close() }
        #expect(terminal.waitFor("you›"))
        terminal.type("hello there\r")
        #expect(terminal.waitFor("[safe]"))
        #expect(terminal.waitFor("you›"))
        // Arrow up brings "hello there" back; arrow left twice and a typed letter edit it in place.
        terminal.type("\u{1B}[A\u{1B}[D\u{1B}[DX\r")
        #expect(terminal.waitFor("hello theXre"), "history and cursor keys")
        // Turkish capitals survive libedit (the C locale trap) and reach the classifier intact.
        terminal.type("İNTİHAR ETMEK İSTİYORUM\r")
        #expect(terminal.waitFor("112"), "the Turkish crisis reply, with 112")
        #expect(terminal.output.contains("İNTİHAR"))
        terminal.type("/quit\r")
        terminal.process.waitUntilExit()
        #expect(terminal.process.terminationStatus == 0)
    }
}
