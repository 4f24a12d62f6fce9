/// When and how long to wait before trying a failed operation again: exponential backoff with
/// jitter, capped in delay and in attempts, honouring a backend's `Retry-After`.
///
/// The policy is plain configuration plus pure functions; time and randomness come from whoever
/// runs it (`ResilientCaller`), so the same seed gives the same delays.
///
/// ```swift
/// let policy = RetryPolicy.default     // 4 attempts: the first and 3 retries
/// var random = SplitMix64(seed: 42)
/// let failure = FailureClassification(GatewayError.aiUnavailable)
/// policy.decision(after: failure, attempt: 1, previousDelay: nil, using: &random)
/// // .retry(after: .milliseconds(742))
/// ```
///
/// ## Jitter: "full jitter" by default
///
/// Retry *n* waits a uniformly random time in `0 ... min(maxDelay, initialDelay × multiplier^(n−1))`
/// (Brooker, "Exponential Backoff and Jitter", AWS Architecture Blog, 2015). Why this kind:
/// - it spreads clients that failed together over the whole window, which in that study gave the
///   least total work and the fewest collisions of the jittered schemes;
/// - each delay depends only on the retry number and one random draw, not on the previous delay,
///   so a delay is easy to state, test and reason about, and the worst case of a whole call is the
///   sum of the envelopes (1 + 2 + 4 = 7 s with the defaults);
/// - a short wait is harmless here: the number of attempts is capped and the circuit breaker
///   stops hammering a backend that stays down.
/// `.decorrelated` (`min(maxDelay, random(initialDelay ... 3 × previous))`) is there for callers
/// that want a floor under every wait; `.none` waits the envelope itself.
/// Delays are whole milliseconds, so logs, the REPL and tests see exact values.
public struct RetryPolicy: Sendable, Hashable {
    /// How a delay is drawn from the exponential envelope.
    public enum Jitter: String, Sendable, Hashable, CaseIterable {
        /// Uniform in `0 ... envelope` (the default; see the type's documentation).
        case full
        /// Uniform in `initialDelay ... 3 × previous delay`, capped at `maxDelay`.
        case decorrelated
        /// No randomness: the envelope itself.
        case none
    }

    /// Attempts in all, the first included; `1` never retries. Default 4 (3 retries).
    public var maxAttempts: Int
    /// The envelope of the first retry. Default 1 s.
    public var initialDelay: Duration
    /// The envelope grows by this factor per retry. Default 2.
    public var multiplier: Double
    /// No backoff delay exceeds this. Default 10 s. (An advised `Retry-After` is not capped by it.)
    public var maxDelay: Duration
    /// The jitter kind. Default `.full`.
    public var jitter: Jitter
    /// The longest `Retry-After` worth waiting for; a backend asking for more is given up on at once
    /// rather than leaving the user staring at a status line. Default 20 s.
    public var maxRetryAfter: Duration

    public init(
        maxAttempts: Int = 4, initialDelay: Duration = .seconds(1), multiplier: Double = 2,
        maxDelay: Duration = .seconds(10), jitter: Jitter = .full, maxRetryAfter: Duration = .seconds(20)
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.initialDelay = max(.zero, initialDelay)
        self.multiplier = max(1, multiplier)
        self.maxDelay = max(.zero, maxDelay)
        self.jitter = jitter
        self.maxRetryAfter = max(.zero, maxRetryAfter)
    }

    /// 4 attempts, 1 s initial envelope doubling up to 10 s, full jitter, `Retry-After` up to 20 s.
    public static let `default` = RetryPolicy()

    /// Never retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// Retries after the first attempt: `maxAttempts − 1` (the *M* of "Retrying N/M").
    public var maxRetries: Int { maxAttempts - 1 }

    /// The exponential envelope of retry `retry` (1-based): `min(maxDelay, initialDelay × multiplier^(retry−1))`.
    public func envelope(forRetry retry: Int) -> Duration {
        let exponent = Double(max(0, retry - 1))
        let milliseconds = Double(initialDelay.wholeMilliseconds) * power(multiplier, exponent)
        let cap = Double(maxDelay.wholeMilliseconds)
        return .milliseconds(Int64(min(cap, milliseconds).rounded(.down)))
    }

    /// The backoff before retry `retry` (1-based), drawing from `random` per `jitter`.
    /// `previous` is the delay before the previous retry (only `.decorrelated` uses it).
    public func backoff(
        forRetry retry: Int, previous: Duration?, using random: inout some RandomNumberGenerator
    ) -> Duration {
        let cap = maxDelay.wholeMilliseconds
        switch jitter {
        case .none:
            return envelope(forRetry: retry)
        case .full:
            let ceiling = envelope(forRetry: retry).wholeMilliseconds
            return .milliseconds(Self.uniform(0, ceiling, &random))
        case .decorrelated:
            let floor = min(initialDelay.wholeMilliseconds, cap)
            let upper = min(cap, max(floor, (previous ?? initialDelay).wholeMilliseconds * 3))
            return .milliseconds(Self.uniform(floor, upper, &random))
        }
    }

    /// What to do after attempt `attempt` (1-based) failed with `failure`.
    ///
    /// - Not retryable → give up (`.notRetryable`).
    /// - `attempt == maxAttempts` → give up (`.attemptsExhausted`).
    /// - `retryAfter` longer than `maxRetryAfter` → give up (`.retryAfterTooLong`).
    /// - Otherwise retry after the backoff, or after `retryAfter` when that is longer: the advised
    ///   time is a minimum, never shortened by jitter.
    public func decision(
        after failure: FailureClassification, attempt: Int, previousDelay: Duration?,
        using random: inout some RandomNumberGenerator
    ) -> RetryDecision {
        guard failure.isRetryable else { return .giveUp(.notRetryable) }
        guard attempt < maxAttempts else { return .giveUp(.attemptsExhausted) }
        if let advised = failure.retryAfter, advised > maxRetryAfter { return .giveUp(.retryAfterTooLong) }
        let backoff = backoff(forRetry: attempt, previous: previousDelay, using: &random)
        return .retry(after: max(backoff, failure.retryAfter ?? .zero))
    }

    /// A uniform integer in `low ... high` from one draw.
    private static func uniform(_ low: Int64, _ high: Int64, _ random: inout some RandomNumberGenerator) -> Int64 {
        guard high > low else { return low }
        let span = Double(high - low + 1)
        return low + min(high - low, Int64((random.nextUnitInterval() * span).rounded(.down)))
    }
}

/// The outcome of `RetryPolicy.decision(after:attempt:previousDelay:using:)`.
public enum RetryDecision: Sendable, Hashable {
    /// Wait this long, then try again.
    case retry(after: Duration)
    /// Stop and report the failure.
    case giveUp(GiveUpReason)
}

/// Why a call stopped without success.
public enum GiveUpReason: String, Sendable, Hashable, CaseIterable {
    /// The failure's category is not retryable (bad input, configuration, a bug).
    case notRetryable
    /// Every allowed attempt failed.
    case attemptsExhausted
    /// The backend asked to wait longer than `RetryPolicy.maxRetryAfter`.
    case retryAfterTooLong
    /// The circuit breaker is open: the operation was not run.
    case circuitOpen
    /// The task was cancelled.
    case cancelled
}

/// `base^exponent` for a small whole `exponent` (no Foundation needed), stopping once huge.
private func power(_ base: Double, _ exponent: Double) -> Double {
    var result = 1.0
    var remaining = Int(exponent)
    while remaining > 0 && result < 1e15 {
        result *= base
        remaining -= 1
    }
    return result
}
