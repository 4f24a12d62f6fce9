import Clocks
import Foundation
import Resilience
import SafetyCore
import Testing

/// A fresh directory under the system temporary directory, removed at the end of the test.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.path + "/safegate-resilience-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func bytes(_ name: String) -> [UInt8] {
        (FileManager.default.contents(atPath: path + "/" + name)).map { Array($0) } ?? []
    }

    func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: path + "/" + name) }

    /// The lines of a JSONL file, each parsed as a JSON object (a line that does not parse fails the test).
    func records(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) -> [[String: Any]] {
        let lines = bytes(name).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        #expect(lines.last?.isEmpty ?? true, "the file ends with a newline", sourceLocation: sourceLocation)
        return lines.dropLast().compactMap { line in
            let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            #expect(object != nil, "not a JSON object: \(String(decoding: line, as: UTF8.self))",
                    sourceLocation: sourceLocation)
            return object
        }
    }
}

struct ErrorLogTests {
    /// CR, LF, SGR and OSC escape sequences, BEL, a line separator, a bidi override and NUL.
    static let hostilePrompt =
        "line one\nline two\rback\u{1B}[31mred\u{1B}[0m \u{1B}]0;title\u{07} \u{2028}sep\u{202E}rev\u{0}"
    static let fixedTime: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_763_771_045.123) }

    func hostileEvents() -> [ErrorLogEvent] {
        let prompt = PromptInfo(Self.hostilePrompt)
        let badInput = FailureClassification(GatewayError.invalidInput(reason: "bad\ninput\u{1B}[2J"))
        let unavailable = FailureClassification(GatewayError.aiUnavailable)
        return [
            ErrorLogEvent(kind: .attemptFailed, failure: unavailable, attempt: 1, maxAttempts: 4, outcome: .retrying,
                          delay: .milliseconds(742), prompt: prompt),
            ErrorLogEvent(kind: .gaveUp, failure: badInput, attempt: 1, maxAttempts: 4, outcome: .gaveUp,
                          reason: .notRetryable, prompt: prompt),
            ErrorLogEvent(kind: .presented, failure: badInput, attempt: 1, outcome: .unrecovered,
                          offered: ["dismiss"], chosen: "dismiss", prompt: prompt),
        ]
    }

    /// Nothing but printable bytes and the line ends: no raw control character or escape sequence.
    func expectNoRawControls(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let controls = bytes.filter { $0 < 0x20 && $0 != UInt8(ascii: "\n") || $0 == 0x7F }
        #expect(controls.isEmpty, "raw control bytes: \(controls)", sourceLocation: sourceLocation)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(!text.unicodeScalars.contains { $0 == "\u{2028}" || $0 == "\u{202E}" || $0 == "\u{85}" },
                sourceLocation: sourceLocation)
    }

    @Test(arguments: [false, true])
    func hostilePromptsStayOneLinePerEventWithNothingUnescaped(logPrompts: Bool) throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", logPrompts: logPrompts, now: Self.fixedTime)
        for event in hostileEvents() { try log.append(event) }

        let bytes = directory.bytes("errors.jsonl")
        #expect(bytes.count { $0 == UInt8(ascii: "\n") } == 3)
        expectNoRawControls(bytes)
        let records = directory.records("errors.jsonl")
        #expect(records.map { $0["event"] as? String } == ["attempt_failed", "gave_up", "presented"])
        #expect(records.allSatisfy { $0["time"] as? String == "2025-11-22T00:24:05.123Z" })
        #expect(records[1]["detail"] as? String == "invalidInput: bad\ninput\u{1B}[2J")  // escaped, not lost

        for record in records {
            let prompt = try #require(record["prompt"] as? [String: Any])
            #expect(prompt["sha256"] as? String == String(SHA256.hex(of: Self.hostilePrompt).prefix(12)))
            #expect(prompt["bytes"] as? Int == Self.hostilePrompt.utf8.count)
            #expect(prompt["text"] as? String == (logPrompts ? Self.hostilePrompt : nil))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("line one") == logPrompts)
    }

    @Test func theFieldsOfALine() throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", now: Self.fixedTime)
        let line = log.line(for: hostileEvents()[0])
        let fingerprint = String(SHA256.hex(of: Self.hostilePrompt).prefix(12))
        #expect(line == """
            {"time":"2025-11-22T00:24:05.123Z","event":"attempt_failed","code":"aiUnavailable",\
            "category":"offline","attempt":1,"max_attempts":4,"outcome":"retrying","delay_ms":742,\
            "detail":"aiUnavailable","prompt":{"sha256":"\(fingerprint)","bytes":\(Self.hostilePrompt.utf8.count)}}

            """)
    }

    @Test func presentationOutcomesAreLogged() throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", now: Self.fixedTime)
        let error = GatewayError.aiUnavailable.adding(.retry).adding(.dismiss).in(.afterEmergency)
        #expect(log.record(PresentationOutcome(error: error, chosen: .retry, recovered: true, attempt: 2)))
        let record = try #require(directory.records("errors.jsonl").first)
        #expect(record["event"] as? String == "presented")
        #expect(record["recovery_offered"] as? [String] == ["retry", "dismiss"])
        #expect(record["recovery_chosen"] as? String == "retry")
        #expect(record["outcome"] as? String == "recovered")
        #expect(record["attempt"] as? Int == 2)
        #expect(record["context"] as? String == "afterEmergency")
    }

    @Test func rotationKeepsTheSizeBounded() throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", maxBytes: 1024, keptFiles: 2)
        let failure = FailureClassification(GatewayError.timeout)
        for attempt in 1...200 {
            try log.append(
                ErrorLogEvent(kind: .gaveUp, failure: failure, attempt: attempt, prompt: PromptInfo("hello")))
        }
        for name in ["errors.jsonl", "errors.jsonl.1", "errors.jsonl.2"] {
            #expect(directory.exists(name))
            #expect(directory.bytes(name).count <= 1024)
            #expect(!directory.records(name).isEmpty)
        }
        #expect(!directory.exists("errors.jsonl.3"))
        // The newest line is in the live file, and the files hold consecutive, whole events.
        let attempts = ["errors.jsonl.2", "errors.jsonl.1", "errors.jsonl"].flatMap { name in
            directory.records(name).compactMap { $0["attempt"] as? Int }
        }
        #expect(attempts.last == 200)
        #expect(attempts == Array((201 - attempts.count)...200))
    }

    @Test func withoutKeptFilesTheLogStartsOver() throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", maxBytes: 512, keptFiles: 0)
        for attempt in 1...50 {
            let failure = FailureClassification(GatewayError.timeout)
            try log.append(ErrorLogEvent(kind: .gaveUp, failure: failure, attempt: attempt))
        }
        #expect(directory.bytes("errors.jsonl").count <= 512)
        #expect(!directory.exists("errors.jsonl.1"))
    }

    @Test func loggedPromptsAreCutToTheirLimitOnACharacterBoundary() throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", logPrompts: true, maxPromptBytes: 5)
        try log.append(ErrorLogEvent(kind: .gaveUp, prompt: PromptInfo("ağaç ağaç")))  // "ağ" is 3 bytes
        let prompt = try #require(directory.records("errors.jsonl").first?["prompt"] as? [String: Any])
        #expect(prompt["text"] as? String == "ağa")
        #expect(prompt["truncated"] as? Bool == true)
        #expect(prompt["bytes"] as? Int == 13)
    }

    @Test func concurrentWritersNeverInterleaveHalfLines() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/errors.jsonl"
        // Separate instances, as separate processes would be: only O_APPEND keeps lines whole.
        let logs = try (0..<4).map { _ in try ErrorLog(path: path, maxBytes: 1 << 24, logPrompts: true) }
        let longPrompt = String(repeating: "ğ\n", count: 700)
        await withTaskGroup(of: Void.self) { group in
            for (index, log) in logs.enumerated() {
                group.addTask {
                    for attempt in 1...100 {
                        try? log.append(ErrorLogEvent(kind: .attemptFailed, attempt: attempt,
                                                      prompt: PromptInfo("\(index) \(longPrompt)")))
                    }
                }
            }
        }
        #expect(directory.records("errors.jsonl").count == 400)
    }

    @Test func missingDirectoriesAreCreated() throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/state/safegate/errors.jsonl")
        let opened = CircuitTransition(from: .closed, to: .open, at: .zero)
        try log.append(ErrorLogEvent(kind: .circuit, transition: opened))
        let record = try #require(directory.records("state/safegate/errors.jsonl").first)
        #expect(record["from"] as? String == "closed" && record["to"] as? String == "open")
    }

    @Test func theDefaultPathFollowsXDG() {
        #expect(ErrorLog.defaultPath(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/safegate/errors.jsonl")
        #expect(ErrorLog.defaultPath(environment: ["XDG_STATE_HOME": "", "HOME": "/h"])
            == "/h/.local/state/safegate/errors.jsonl")
        #expect(ErrorLog.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h/"])
            == "/h/.local/state/safegate/errors.jsonl")
        #expect(ErrorLog.defaultPath(environment: [:]) == nil)
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"), (951_782_400.5, "2000-02-29T00:00:00.500Z"),
        (-1.0, "1969-12-31T23:59:59.000Z"), (1_763_771_045.123, "2025-11-22T00:24:05.123Z"),
    ])
    func timestampsAreUTCWithMilliseconds(seconds: Double, expected: String) throws {
        let directory = try TemporaryDirectory()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", now: { Date(timeIntervalSince1970: seconds) })
        #expect(log.line(for: ErrorLogEvent(kind: .circuit)).hasPrefix(#"{"time":"\#(expected)""#))
    }

    @Test func theCallerLogsRetriesRecoveriesAndRejections() async throws {
        let directory = try TemporaryDirectory()
        let clock = TestClock()
        let log = try ErrorLog(path: directory.path + "/errors.jsonl", now: Self.fixedTime)
        let caller = ResilientCaller(
            breaker: CircuitBreakerPolicy(failureThreshold: 3), clock: clock, random: SplitMix64(seed: 42), log: log)
        let backend = ScriptedBackend([.unavailable, .unavailable, .ok, .timeout])
        let prompt = PromptInfo(Self.hostilePrompt)

        let call = Task { try await caller.call(prompt: prompt) { try backend.reply() } }
        await waitUntilSleeping(clock)
        await clock.advance(by: .milliseconds(742))
        await waitUntilSleeping(clock)
        await clock.advance(by: .milliseconds(319))
        _ = try await call.value

        let records = directory.records("errors.jsonl")
        #expect(records.map { $0["event"] as? String } == ["attempt_failed", "attempt_failed", "recovered"])
        #expect(records.map { $0["delay_ms"] as? Int } == [742, 319, nil])
        #expect(records.map { $0["attempt"] as? Int } == [1, 2, 3])
        #expect(records.allSatisfy { ($0["prompt"] as? [String: Any])?["text"] == nil })
        expectNoRawControls(directory.bytes("errors.jsonl"))

        caller.record(PresentationOutcome(error: .aiUnavailable, chosen: .dismiss, recovered: false, attempt: 1))
        #expect(directory.records("errors.jsonl").last?["recovery_chosen"] as? String == "dismiss")
    }
}

struct SHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (String(repeating: "a", count: 1_000_000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"),
    ])
    func knownDigests(text: String, hex: String) {
        #expect(SHA256.hex(of: text) == hex)
    }

    @Test func theFingerprintIsTwelveHexDigitsOfTheUTF8() {
        #expect(PromptInfo("abc").fingerprint == "ba7816bf8f01")
        #expect(PromptInfo("İntihar").byteCount == 8)
    }
}
