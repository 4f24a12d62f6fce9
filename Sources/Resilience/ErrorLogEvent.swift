public import SafetyCore

/// One line of the error log: what failed, how the gateway and the user dealt with it, and how it ended.
///
/// Every field but `kind` is optional; lines carry only what is known. The log adds the time.
///
/// ```swift
/// ErrorLogEvent(kind: .presented, failure: FailureClassification(error),
///               offered: ["retry", "dismiss"], chosen: "retry", outcome: .recovered)
/// ```
public struct ErrorLogEvent: Sendable, Hashable {
    /// What the line records.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// One run of the backend call failed.
        case attemptFailed = "attempt_failed"
        /// A call stopped without success (after its last attempt, or at once for a non-retryable error).
        case gaveUp = "gave_up"
        /// A call succeeded after at least one failed attempt.
        case recovered
        /// The open circuit turned a call away without reaching the backend.
        case rejected
        /// An error was shown to the user with recovery options (and maybe one was chosen).
        case presented
        /// The circuit breaker changed state.
        case circuit
        /// More than the threshold of recent backend calls failed.
        case highErrorRate = "high_error_rate"
        /// The backend's answer failed the output check and was replaced by a refusal.
        case outputBlocked = "output_blocked"
    }

    /// How the step the line records ended.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// Another attempt follows after `delay`.
        case retrying
        /// No more attempts; the error goes to the user.
        case gaveUp = "gave_up"
        /// The call succeeded in the end (or the chosen recovery worked).
        case recovered
        /// The call was turned away (circuit open).
        case rejected
        /// The task was cancelled (Ctrl-C).
        case cancelled
        /// The user saw the error and chose nothing that recovers (e.g. Dismiss).
        case unrecovered
    }

    public var kind: Kind
    /// The error code, e.g. `aiUnavailable`.
    public var code: String?
    /// The error category, e.g. `offline`.
    public var category: ErrorCategory?
    /// The error in words (type and description); escaped when written, truncated to 1 KiB.
    public var detail: String?
    /// Which attempt (1-based).
    public var attempt: Int?
    /// Attempts allowed in all.
    public var maxAttempts: Int?
    public var outcome: Outcome?
    /// The wait before the next attempt, when retrying.
    public var delay: Duration?
    /// Why a call gave up.
    public var reason: GiveUpReason?
    /// Recovery action names offered to the user (`retry`, `dismiss`, …).
    public var offered: [String]?
    /// The recovery action name the user chose, if any.
    public var chosen: String?
    /// Where the user was when the error was shown (`presented` lines).
    public var context: ErrorContext?
    /// The circuit change, for `.circuit` lines.
    public var transition: CircuitTransition?
    /// The error rate, for `.highErrorRate` lines.
    public var errorRate: HighErrorRate?
    /// The prompt the call was for; the log writes its fingerprint and length, and the text only
    /// when prompts are logged.
    public var prompt: PromptInfo?

    public init(
        kind: Kind, failure: FailureClassification? = nil, attempt: Int? = nil, maxAttempts: Int? = nil,
        outcome: Outcome? = nil, delay: Duration? = nil, reason: GiveUpReason? = nil, offered: [String]? = nil,
        chosen: String? = nil, transition: CircuitTransition? = nil, errorRate: HighErrorRate? = nil,
        prompt: PromptInfo? = nil
    ) {
        self.kind = kind
        self.code = failure?.code
        self.category = failure?.category
        self.detail = failure?.detail
        self.attempt = attempt
        self.maxAttempts = maxAttempts
        self.outcome = outcome
        self.delay = delay
        self.reason = reason
        self.offered = offered
        self.chosen = chosen
        self.transition = transition
        self.errorRate = errorRate
        self.prompt = prompt
    }

    /// The line for an error shown through the presentation chain (`ErrorPresentationChain`'s
    /// observer): code, category, the options offered, the one chosen and whether it recovered.
    public init(_ outcome: PresentationOutcome, prompt: PromptInfo? = nil) {
        let failure = outcome.error.map { FailureClassification($0) }
        self.init(
            kind: .presented, failure: failure, attempt: outcome.attempt,
            outcome: outcome.recovered ? .recovered : .unrecovered, offered: outcome.offered,
            chosen: outcome.chosen?.name, prompt: prompt)
        self.context = outcome.error?.context
    }
}
