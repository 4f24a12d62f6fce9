#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import SafetyCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The error log: one JSON object per line, appended to a size-bounded, rotated file.
///
/// ```swift
/// let log = try ErrorLog(path: ErrorLog.defaultPath() ?? "errors.jsonl", logPrompts: false)
/// try log.append(ErrorLogEvent(kind: .gaveUp, failure: FailureClassification(GatewayError.timeout),
///                              attempt: 4, outcome: .gaveUp, reason: .attemptsExhausted,
///                              prompt: PromptInfo("hello")))
/// // {"time":"2025-11-22T10:04:05.120Z","event":"gave_up","code":"timeout","category":"transient",
/// //  "attempt":4,"outcome":"gave_up","reason":"attemptsExhausted","detail":"timeout",
/// //  "prompt":{"sha256":"2cf24dba5fb0","bytes":5}}
/// ```
///
/// - Every field goes through `JSONText.quote`: newlines, carriage returns, escape sequences, other
///   control characters, U+2028/9 and bidi overrides are escaped, so one event is one line.
/// - Prompt text is written only with `logPrompts`; otherwise its SHA-256 prefix and UTF-8 length.
/// - Each line is one `write(2)` on a descriptor opened with `O_APPEND`, so writers in this and
///   other processes never interleave half lines.
/// - When a line would take the file past `maxBytes`, the file is rotated first:
///   `errors.jsonl` → `errors.jsonl.1` → … → `errors.jsonl.<keptFiles>` (the oldest is dropped).
///   Rotation is serialised within a process; two processes rotating at the same moment may
///   rotate twice, which loses no line that was written whole.
public final class ErrorLog: Sendable {
    /// Where the log is written.
    public let path: String
    /// A file is rotated before it would grow past this many bytes. Default 1 MiB.
    public let maxBytes: Int
    /// Rotated files kept (`.1` … `.N`). Default 3, so at most 4 MiB in all by default.
    public let keptFiles: Int
    /// Whether prompt text is written (`--log-prompts`). Default `false`.
    public let logPrompts: Bool
    /// Prompt text is cut to this many UTF-8 bytes when logged. Default 4 KiB.
    public let maxPromptBytes: Int
    private let now: @Sendable () -> Date
    private let lock = Mutex(())

    /// A log at `path`; the directory is created (mode 0700) when missing.
    ///
    /// `now` is the wall clock for the `time` field (injected for tests).
    public init(
        path: String, maxBytes: Int = 1 << 20, keptFiles: Int = 3, logPrompts: Bool = false,
        maxPromptBytes: Int = 4096, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(ErrorLogError) {
        self.path = path
        self.maxBytes = max(256, maxBytes)
        self.keptFiles = max(0, keptFiles)
        self.logPrompts = logPrompts
        self.maxPromptBytes = max(0, maxPromptBytes)
        self.now = now
        try Self.makeDirectories(for: path)
    }

    /// `$XDG_STATE_HOME/safegate/errors.jsonl`, or `~/.local/state/safegate/errors.jsonl` when
    /// `XDG_STATE_HOME` is unset, empty or relative (XDG Base Directory spec); `nil` without a home.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/safegate/errors.jsonl"
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/.local/state/safegate/errors.jsonl"
    }

    /// Appends `event` as one line, rotating first when the file would grow past `maxBytes`.
    public func append(_ event: ErrorLogEvent) throws(ErrorLogError) {
        let line = line(for: event)
        try lock.withLock { _ throws(ErrorLogError) in try write(line) }
    }

    /// Appends the line for an error shown through the presentation chain; a failed write is
    /// reported by the `false` result, never thrown (logging must not break a recovery).
    ///
    /// ```swift
    /// ErrorPresentationChain(presenter: terminal, observer: { outcome in log.record(outcome) })
    /// ```
    @discardableResult
    public func record(_ outcome: PresentationOutcome, prompt: PromptInfo? = nil) -> Bool {
        (try? append(ErrorLogEvent(outcome, prompt: prompt))) != nil
    }

    /// The line `append` writes for `event`, newline included.
    public func line(for event: ErrorLogEvent) -> String {
        var object = JSONText.Object()
        object["time"] = .string(Self.timestamp(now()))
        object["event"] = .string(event.kind.rawValue)
        if let code = event.code { object["code"] = .string(code) }
        if let category = event.category { object["category"] = .string(category.rawValue) }
        if let attempt = event.attempt { object["attempt"] = .int(attempt) }
        if let maxAttempts = event.maxAttempts { object["max_attempts"] = .int(maxAttempts) }
        if let outcome = event.outcome { object["outcome"] = .string(outcome.rawValue) }
        if let delay = event.delay { object["delay_ms"] = .int(Int(delay.wholeMilliseconds)) }
        if let reason = event.reason { object["reason"] = .string(reason.rawValue) }
        if let offered = event.offered { object["recovery_offered"] = .array(offered.map { .string($0) }) }
        if event.offered != nil || event.chosen != nil { object["recovery_chosen"] = .optional(event.chosen) }
        if let context = event.context { object["context"] = .string(context.rawValue) }
        if let transition = event.transition {
            object["from"] = .string(transition.from.rawValue)
            object["to"] = .string(transition.to.rawValue)
        }
        if let rate = event.errorRate {
            object["failures"] = .int(rate.failures)
            object["samples"] = .int(rate.samples)
            object["threshold"] = .double(rate.threshold)
        }
        if let detail = event.detail { object["detail"] = .string(Self.prefix(detail, bytes: 1024)) }
        if let prompt = event.prompt {
            var info = JSONText.Object()
            info["sha256"] = .string(prompt.fingerprint)
            info["bytes"] = .int(prompt.byteCount)
            if logPrompts {
                let text = Self.prefix(prompt.text, bytes: maxPromptBytes)
                info["text"] = .string(text)
                if text.utf8.count < prompt.byteCount { info["truncated"] = .bool(true) }
            }
            object["prompt"] = .object(info)
        }
        return object.text + "\n"
    }

    // MARK: - Files

    private func write(_ line: String) throws(ErrorLogError) {
        let bytes = Array(line.utf8)
        var descriptor = try open()
        var info = stat()
        if fstat(descriptor, &info) == 0, info.st_size > 0, Int(info.st_size) + bytes.count > maxBytes {
            close(descriptor)
            try rotate()
            descriptor = try open()
        }
        defer { close(descriptor) }
        while true {
            let written = bytes.withUnsafeBytes { posixWrite(descriptor, $0.baseAddress, $0.count) }
            if written == bytes.count { return }
            if written < 0 && errno == EINTR { continue }
            throw ErrorLogError(path: path, operation: "write", code: written < 0 ? errno : 0)
        }
    }

    private func open() throws(ErrorLogError) -> Int32 {
        let descriptor = posixOpen(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ErrorLogError(path: path, operation: "open", code: errno) }
        return descriptor
    }

    /// `path.(N-1)` → `path.N`, …, `path` → `path.1`; with `keptFiles == 0` the file is just removed.
    private func rotate() throws(ErrorLogError) {
        guard keptFiles > 0 else {
            if unlink(path) != 0 && errno != ENOENT {
                throw ErrorLogError(path: path, operation: "unlink", code: errno)
            }
            return
        }
        unlink("\(path).\(keptFiles)")
        for index in stride(from: keptFiles - 1, through: 1, by: -1) {
            rename("\(path).\(index)", "\(path).\(index + 1)")
        }
        if rename(path, "\(path).1") != 0 && errno != ENOENT {
            throw ErrorLogError(path: path, operation: "rename", code: errno)
        }
    }

    private static func makeDirectories(for path: String) throws(ErrorLogError) {
        guard let slash = path.lastIndex(of: "/") else { return }
        var directory = path.hasPrefix("/") ? "/" : ""
        for component in path[..<slash].split(separator: "/") {
            directory += component
            if mkdir(directory, 0o700) != 0 && errno != EEXIST {
                throw ErrorLogError(path: directory, operation: "mkdir", code: errno)
            }
            directory += "/"
        }
    }

    // MARK: - Text

    /// `text` cut to at most `bytes` UTF-8 bytes, on a scalar boundary.
    static func prefix(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var used = 0
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            used += UTF8.width(scalar)
            if used > bytes { break }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// `2025-11-22T10:04:05.120Z`: UTC, milliseconds, computed without locale or calendar.
    static func timestamp(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (days, dayMilliseconds) = milliseconds.quotientAndRemainderFloored(dividingBy: 86_400_000)
        // Howard Hinnant's civil_from_days.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let seconds = dayMilliseconds / 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):"
            + "\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(dayMilliseconds % 1000, 3))Z"
    }
}

/// The error log could not be written: the path, the system call and `errno`.
public struct ErrorLogError: Error, Sendable, Hashable, CustomStringConvertible {
    public var path: String
    public var operation: String
    public var code: Int32

    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(code)))"
    }
}

extension Int64 {
    fileprivate func quotientAndRemainderFloored(dividingBy divisor: Int64) -> (Int64, Int64) {
        var (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

// The C calls share names with this type's methods; these spell out the ones meant.
private func posixOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
