/// The one error type users see: every failure inside safegate ends up as a `GatewayError`.
///
/// A struct over a `Kind` enum (as hummingbird's `PersistError` and argument-parser's `ExitCode`),
/// not a bare enum, because an error carries more than what went wrong: the underlying error for
/// the log, the recovery options its creator attached (closures, seed `003_…`) and the context it
/// is presented in. Those do not take part in equality, so matching stays simple:
///
/// ```swift
/// do {
///     try await backend.reply(to: prompt)
/// } catch GatewayError.timeout {
///     // matches any timeout, whatever options are attached
/// } catch {
///     let gatewayError = GatewayError(from: error)   // anything converts; unknown → .internal
///     log(gatewayError.code, gatewayError.category, gatewayError.underlyingDescription)
/// }
/// ```
///
/// Only the command line maps errors to exit codes (`CONTRACT.md`); see `exitStatus`.
public struct GatewayError: Error, Sendable {
    /// What went wrong. Switch over this; it is the part of the error that equality compares.
    public enum Kind: Sendable, Hashable {
        /// The language model cannot be reached at all (no backend, circuit open).
        case aiUnavailable
        /// The language model did not answer in time.
        case timeout
        /// The backend refused for now; `retryAfter` when it said how long to wait.
        case rateLimited(retryAfter: Duration?)
        /// The backend answered with an error or something unreadable.
        case backendFailed
        /// The input cannot be handled (not UTF-8, too long, empty, …).
        case invalidInput(reason: String)
        /// A configuration or resource file does not load; `line` is 1-based when known.
        case configuration(file: String, line: Int?, reason: String)
        /// The backend's reply failed the output safety check and was withheld.
        case unsafeOutput
        /// The message could not be checked in full and the policy fails closed, so it was not
        /// sent to the language model (`ClassificationPolicy`, DEVELOPERS.md "Fail-safe policy").
        case unchecked(UncheckedReason)
        /// A bug in safegate.
        case `internal`
    }

    /// Why a message could not be checked in full; it decides the way out the user is offered.
    public enum UncheckedReason: Sendable, Hashable {
        /// The message is `bytes` long, over the `limit` classified whole: only its head and tail
        /// were checked. Shortening it helps.
        case tooLong(bytes: Int, limit: Int)
        /// A rule that could have flagged the message stopped at a match limit. Rephrasing helps.
        case searchLimit
    }

    /// What went wrong.
    public var kind: Kind
    /// The error this one was converted from, kept for the log and never shown raw to users.
    public var underlying: (any Error)?
    /// The ways out the creator of the error attached, in the order they are offered.
    /// Empty means "use the defaults" (`SessionDefaultsResponder` fills them in).
    public var recoveryOptions: [RecoveryOption]
    /// Where the user was when it happened; responders in the presentation chain may change it.
    public var context: ErrorContext

    /// An error of `kind`.
    public init(
        _ kind: Kind, underlying: (any Error)? = nil, recoveryOptions: [RecoveryOption] = [],
        context: ErrorContext = .general
    ) {
        self.kind = kind
        self.underlying = underlying
        self.recoveryOptions = recoveryOptions
        self.context = context
    }
}

// MARK: - Construction, spelled like enum cases

extension GatewayError {
    /// The language model cannot be reached.
    public static var aiUnavailable: GatewayError { GatewayError(.aiUnavailable) }
    /// The language model did not answer in time.
    public static var timeout: GatewayError { GatewayError(.timeout) }
    /// The backend's reply failed the output check.
    public static var unsafeOutput: GatewayError { GatewayError(.unsafeOutput) }
    /// A bug in safegate.
    public static var `internal`: GatewayError { GatewayError(.internal) }

    /// The backend refused for now.
    public static func rateLimited(retryAfter: Duration?) -> GatewayError {
        GatewayError(.rateLimited(retryAfter: retryAfter))
    }

    /// The backend failed; `underlying` is kept for the log.
    public static func backendFailed(underlying: (any Error)?) -> GatewayError {
        GatewayError(.backendFailed, underlying: underlying)
    }

    /// The input cannot be handled, for `reason` (short, plain words; shown to the user escaped).
    public static func invalidInput(reason: String) -> GatewayError {
        GatewayError(.invalidInput(reason: reason))
    }

    /// A configuration or resource file does not load: names the file, the 1-based line when
    /// known, and what is wrong.
    public static func configuration(file: String, line: Int?, reason: String) -> GatewayError {
        GatewayError(.configuration(file: file, line: line, reason: reason))
    }

    /// The message could not be checked in full, for `reason`, and was not forwarded.
    public static func unchecked(_ reason: UncheckedReason) -> GatewayError {
        GatewayError(.unchecked(reason))
    }

    /// A bug in safegate, keeping `underlying` for the log.
    public static func `internal`(underlying: (any Error)?) -> GatewayError {
        GatewayError(.internal, underlying: underlying)
    }
}

// MARK: - Code, category, suggested ways out

extension GatewayError.Kind {
    /// The stable code of the kind, as in JSON output and logs.
    public var code: String {
        switch self {
        case .aiUnavailable: "aiUnavailable"
        case .timeout: "timeout"
        case .rateLimited: "rateLimited"
        case .backendFailed: "backendFailed"
        case .invalidInput: "invalidInput"
        case .configuration: "configuration"
        case .unsafeOutput: "unsafeOutput"
        case .unchecked: "unchecked"
        case .internal: "internal"
        }
    }

    /// Every code, one per kind, for tests that check catalogs cover them all.
    public static let allCodes = [
        "aiUnavailable", "timeout", "rateLimited", "backendFailed", "invalidInput", "configuration",
        "unsafeOutput", "unchecked", "internal",
    ]

    /// The category of the kind.
    public var category: ErrorCategory {
        switch self {
        case .aiUnavailable: .offline
        case .timeout: .transient
        case .rateLimited: .rateLimited
        case .backendFailed, .unsafeOutput: .serverError
        case .invalidInput, .unchecked: .validation
        case .configuration: .configuration
        case .internal: .internal
        }
    }

    /// A symbol for the terminal: one text-presentation character, no emoji (stable width).
    public var symbol: String {
        switch self {
        case .aiUnavailable: "\u{2298}"  // ⊘
        case .timeout, .rateLimited: "\u{29D7}"  // ⧗
        case .backendFailed, .internal: "\u{2716}"  // ✖
        case .invalidInput, .unchecked: "\u{270E}"  // ✎ (the user changes the message)
        case .configuration: "\u{2699}"  // ⚙
        case .unsafeOutput: "\u{26A0}"  // ⚠
        }
    }
}

extension GatewayError {
    /// The stable code: `aiUnavailable`, `timeout`, `rateLimited`, `backendFailed`, `invalidInput`,
    /// `configuration`, `unsafeOutput`, `unchecked` or `internal`.
    public var code: String { kind.code }

    /// The category, which decides whether a retry makes sense.
    public var category: ErrorCategory { kind.category }

    /// Whether running the same action again can succeed.
    public var isRetryable: Bool { category.isRetryable }

    /// How long the backend asked to wait, for `rateLimited`.
    public var retryAfter: Duration? {
        if case .rateLimited(let retryAfter) = kind { return retryAfter }
        return nil
    }

    /// The ways out that fit the kind, used when the creator attached none.
    ///
    /// Retryable errors offer `retry`; configuration errors offer `openSettings` for the file;
    /// bugs offer `contactSupport`; every error offers `dismiss`, last.
    public var suggestedActions: [RecoveryAction] {
        switch kind {
        case .aiUnavailable, .timeout, .rateLimited, .backendFailed, .unsafeOutput: [.retry, .dismiss]
        case .invalidInput, .unchecked: [.dismiss]
        case .configuration(let file, _, _): [.openSettings(path: file), .dismiss]
        case .internal: [.contactSupport, .dismiss]
        }
    }

    /// The process exit status of the public contract for this error when a command ends on it:
    /// 78 for configuration, 65 for invalid input or a message that could not be checked, 70 for
    /// everything else.
    public var exitStatus: Int32 {
        switch kind {
        case .configuration: 78
        case .invalidInput, .unchecked: 65
        case .aiUnavailable, .timeout, .rateLimited, .backendFailed, .unsafeOutput, .internal: 70
        }
    }

    /// The underlying error as `TypeName: description`, for the log; `nil` when there is none.
    /// Not escaped: whoever writes it out escapes it.
    public var underlyingDescription: String? {
        guard let underlying else { return nil }
        return "\(String(reflecting: type(of: underlying))): \(String(describing: underlying))"
    }

    /// A copy with `option` appended to the recovery options.
    public func adding(_ option: RecoveryOption) -> GatewayError {
        var copy = self
        copy.recoveryOptions.append(option)
        return copy
    }

    /// A copy presented in `context`.
    public func `in`(_ context: ErrorContext) -> GatewayError {
        var copy = self
        copy.context = context
        return copy
    }

    /// The actions of the attached recovery options, in order.
    public var offeredActions: [RecoveryAction] { recoveryOptions.map(\.action) }
}

// MARK: - Equality and matching

extension GatewayError: Equatable {
    /// Two errors are equal when their kinds are; the underlying error, recovery options and
    /// context are not compared.
    public static func == (lhs: GatewayError, rhs: GatewayError) -> Bool { lhs.kind == rhs.kind }

    /// Lets `catch GatewayError.timeout` match any thrown error that is, or converts to, that kind.
    public static func ~= (pattern: GatewayError, value: any Error) -> Bool {
        GatewayError(from: value).kind == pattern.kind
    }
}

extension GatewayError: CustomStringConvertible {
    /// `code` plus the details of the kind, for logs and debugging (not for users).
    public var description: String {
        switch kind {
        case .rateLimited(let retryAfter?): "rateLimited(retryAfter: \(retryAfter))"
        case .invalidInput(let reason): "invalidInput: \(reason)"
        case .unchecked(.tooLong(let bytes, let limit)): "unchecked: \(bytes) bytes, over the \(limit)-byte limit"
        case .unchecked(.searchLimit): "unchecked: a rule stopped at a match limit"
        case .configuration(let file, let line?, let reason): "configuration: \(file):\(line): \(reason)"
        case .configuration(let file, nil, let reason): "configuration: \(file): \(reason)"
        default: code
        }
    }
}

// MARK: - Conversion at module boundaries

/// A module-local error that converts to the user-facing `GatewayError` at the module boundary
/// (seed `001_…`, "Open-Closed"): modules add error types without touching `GatewayError`.
///
/// ```swift
/// enum BackendError: GatewayErrorConvertible {
///     case http(status: Int)
///     var gatewayError: GatewayError {
///         switch self {
///         case .http(429): .rateLimited(retryAfter: nil)
///         case .http: .backendFailed(underlying: self)
///         }
///     }
/// }
/// ```
public protocol GatewayErrorConvertible: Error {
    /// The user-facing error this one stands for.
    var gatewayError: GatewayError { get }
}

extension GatewayError {
    /// Converts any error: a `GatewayError` stays itself, a `GatewayErrorConvertible` converts
    /// (keeping itself as the underlying error when the conversion did not set one), and anything
    /// else becomes `.internal` with the error kept as `underlying`.
    public init(from error: any Error) {
        if let error = error as? GatewayError {
            self = error
        } else if let convertible = error as? any GatewayErrorConvertible {
            var converted = convertible.gatewayError
            if converted.underlying == nil { converted.underlying = error }
            self = converted
        } else {
            self = GatewayError(.internal, underlying: error)
        }
    }
}
