public import SafetyCore
import Synchronization

/// Something that happened while a `ResilientCaller` ran a call, for status lines and tests.
public enum ResilienceEvent: Sendable, Hashable {
    /// Attempt `attempt` of `maxAttempts` failed.
    case attemptFailed(attempt: Int, maxAttempts: Int, failure: FailureClassification)
    /// Retry `retry` of `maxRetries` starts after `delay` — the REPL's "Retrying 2/3 in 1.2 s…".
    case retrying(retry: Int, maxRetries: Int, delay: Duration, failure: FailureClassification)
    /// The call stopped after `attempts` runs of the operation; `failure` is the last failure of
    /// the operation (`nil` when it never failed, and when the open circuit turned the call away).
    case gaveUp(attempts: Int, reason: GiveUpReason, failure: FailureClassification?)
    /// The call succeeded on attempt `attempts`, after `attempts − 1` failures (only sent when > 1).
    case succeededAfterRetries(attempts: Int)
    /// The open circuit turned the call away; the operation did not run.
    case rejected(CircuitOpenError)
    /// The circuit breaker changed state (sent to the caller-wide observer).
    case circuitChanged(CircuitTransition)
    /// More than the threshold of recent backend calls failed.
    case highErrorRate(HighErrorRate)
}

/// Whether the language model can be reached: the REPL's feature status (seed `002_…`).
public enum Availability: Sendable, Hashable {
    /// Calls go to the backend.
    case available
    /// The circuit is open: "AI offline — safety checks and crisis resources still work".
    /// `retryIn` is the time until the breaker lets a probe through.
    case degraded(retryIn: Duration)
}

/// Runs the language-model backend through a circuit breaker, a retry policy, counters and the
/// error log: what the gateway wraps around every backend call.
///
/// ```swift
/// let caller = ResilientCaller(log: try? ErrorLog(path: ErrorLog.defaultPath() ?? "errors.jsonl"))
/// let reply = try await caller.call(prompt: PromptInfo(prompt)) { event in
///     if case .retrying(let retry, let retries, let delay, _) = event {
///         status("Retrying \(retry)/\(retries) in \(delay)…")
///     }
/// } operation: {
///     try await backend.reply(to: prompt)
/// }
/// // throws the last error (convert with GatewayError(from:)), GatewayError.aiUnavailable when
/// // the circuit is open, or CancellationError
/// caller.availability    // .available or .degraded(retryIn:)
/// caller.snapshot().json // for /stats
/// ```
///
/// Each attempt goes through the breaker (retry outside, breaker inside), so the breaker counts
/// attempts, and a call retrying into an opening circuit stops at once instead of waiting out its
/// backoff. Errors are classified by `classify` (default: `GatewayError(from:)`): only retryable
/// categories are retried, `Retry-After` is honoured, and non-backend failures (bad input, bugs)
/// leave the breaker and the error-rate window alone. Cancelling the task stops at once: during a
/// backoff the sleep ends, and no further attempt starts.
public final class ResilientCaller: Sendable {
    public let retryPolicy: RetryPolicy
    public let breaker: CircuitBreaker
    public let metrics: ResilienceMetrics
    public let log: ErrorLog?
    private let clock: InjectedClock
    private let random: Mutex<any RandomNumberGenerator & Sendable>
    private let classify: @Sendable (any Error) -> FailureClassification
    private let onEvent: @Sendable (ResilienceEvent) -> Void

    /// A caller with closed circuit and empty counters.
    ///
    /// - Parameters:
    ///   - clock: time for backoff sleeps and the breaker's cool-down (`TestClock` in tests).
    ///   - random: the jitter's source (`SplitMix64(seed:)` for reproducible delays).
    ///   - log: the error log, or `nil` for none.
    ///   - classify: how errors are read; default `FailureClassification.gateway`.
    ///   - onEvent: told about every event of every call, circuit changes and error-rate alarms.
    public init(
        retry: RetryPolicy = .default, breaker: CircuitBreakerPolicy = .default,
        monitoring: MonitoringPolicy = .default, clock: some Clock<Duration> = ContinuousClock(),
        random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(), log: ErrorLog? = nil,
        classify: @escaping @Sendable (any Error) -> FailureClassification = FailureClassification.gateway,
        onEvent: @escaping @Sendable (ResilienceEvent) -> Void = { _ in }
    ) {
        let metrics = ResilienceMetrics(policy: monitoring)
        self.retryPolicy = retry
        self.metrics = metrics
        self.log = log
        self.clock = InjectedClock(clock)
        self.random = Mutex(random)
        self.classify = classify
        self.onEvent = onEvent
        self.breaker = CircuitBreaker(policy: breaker, clock: clock) { transition in
            metrics.circuitChanged(transition)
            Self.write(ErrorLogEvent(kind: .circuit, transition: transition), to: log, metrics: metrics)
            onEvent(.circuitChanged(transition))
        }
    }

    /// Runs `operation` with retries behind the circuit breaker.
    ///
    /// Returns its value, or throws: the last error when retries are exhausted or the error is not
    /// retryable; `GatewayError.aiUnavailable` (underlying `CircuitOpenError`) when the circuit is
    /// open; `CancellationError` when the task was cancelled. `onEvent` hears this call's events
    /// (synchronously, on the calling task) before the caller-wide observer.
    nonisolated(nonsending) public func call<Value>(
        prompt: PromptInfo? = nil, onEvent callEvent: (ResilienceEvent) -> Void = { _ in },
        operation: () async throws -> Value
    ) async throws -> Value {
        let maxAttempts = retryPolicy.maxAttempts
        var attempt = 0
        var previousDelay: Duration?
        var lastFailure: FailureClassification?

        func emit(_ event: ResilienceEvent) {
            callEvent(event)
            onEvent(event)
        }
        func log(
            _ kind: ErrorLogEvent.Kind, _ outcome: ErrorLogEvent.Outcome, failure: FailureClassification?,
            delay: Duration? = nil, reason: GiveUpReason? = nil
        ) {
            write(ErrorLogEvent(
                kind: kind, failure: failure, attempt: attempt, maxAttempts: maxAttempts, outcome: outcome,
                delay: delay, reason: reason, prompt: prompt))
        }
        func raise(_ alarm: HighErrorRate) {
            write(ErrorLogEvent(kind: .highErrorRate, errorRate: alarm))
            emit(.highErrorRate(alarm))
        }
        /// Ends the call without success: counters, one log line, one event.
        func stop(_ reason: GiveUpReason, failure: FailureClassification?, attempts: Int) {
            metrics.callFailed(reason)
            switch reason {
            case .cancelled: log(.gaveUp, .cancelled, failure: failure, reason: reason)
            case .circuitOpen where failure == nil: break  // logged as `rejected`
            default: log(.gaveUp, .gaveUp, failure: failure, reason: reason)
            }
            emit(.gaveUp(attempts: attempts, reason: reason, failure: failure))
        }

        metrics.callStarted()
        while true {
            guard !Task.isCancelled else {
                stop(.cancelled, failure: lastFailure, attempts: attempt)
                throw CancellationError()
            }
            attempt += 1

            let permit: CircuitBreaker.Permit
            switch breaker.acquire() {
            case .admitted(let admitted):
                permit = admitted
            case .rejected(let rejection):
                let error = rejection.gatewayError
                metrics.attemptRejected()
                log(.rejected, .rejected, failure: FailureClassification(error), reason: .circuitOpen)
                emit(.rejected(rejection))
                stop(.circuitOpen, failure: nil, attempts: attempt - 1)
                throw error
            }

            metrics.attemptStarted(isRetry: attempt > 1)
            do {
                let value = try await operation()
                breaker.record(.success, for: permit)
                if let alarm = metrics.attemptSucceeded() { raise(alarm) }
                metrics.callSucceeded(afterFailedAttempts: attempt - 1)
                if attempt > 1 {
                    log(.recovered, .recovered, failure: lastFailure)
                    emit(.succeededAfterRetries(attempts: attempt))
                }
                return value
            } catch {
                if error is CancellationError || Task.isCancelled {
                    breaker.record(.neutral, for: permit)
                    stop(.cancelled, failure: lastFailure, attempts: attempt)
                    throw error
                }
                let failure = classify(error)
                lastFailure = failure
                breaker.record(failure.isBackendFailure ? .failure : .neutral, for: permit)
                if let alarm = metrics.attemptFailed(failure) { raise(alarm) }
                emit(.attemptFailed(attempt: attempt, maxAttempts: maxAttempts, failure: failure))

                let circuit = breaker.status
                let decision: RetryDecision
                if failure.isRetryable && attempt < maxAttempts && circuit.state == .open {
                    // This failure opened the circuit: a backoff would only end in a rejection.
                    decision = .giveUp(.circuitOpen)
                } else {
                    decision = random.withLock { random in
                        retryPolicy.decision(
                            after: failure, attempt: attempt, previousDelay: previousDelay, using: &random)
                    }
                }
                switch decision {
                case .giveUp(.circuitOpen):
                    stop(.circuitOpen, failure: failure, attempts: attempt)
                    throw CircuitOpenError(halfOpensIn: circuit.halfOpensIn ?? .zero).gatewayError
                case .giveUp(let reason):
                    stop(reason, failure: failure, attempts: attempt)
                    throw error
                case .retry(let delay):
                    let deadline = clock.now + delay
                    log(.attemptFailed, .retrying, failure: failure, delay: delay)
                    emit(.retrying(retry: attempt, maxRetries: retryPolicy.maxRetries, delay: delay, failure: failure))
                    do {
                        try await clock.sleep(until: deadline)
                    } catch {
                        stop(.cancelled, failure: failure, attempts: attempt)
                        throw CancellationError()
                    }
                    previousDelay = delay
                }
            }
        }
    }

    /// Whether the backend can be reached now, for the REPL's status.
    public var availability: Availability {
        let status = breaker.status
        return status.state == .open ? .degraded(retryIn: status.halfOpensIn ?? .zero) : .available
    }

    /// The counters and the circuit state now, for `/stats`.
    public func snapshot() -> ResilienceSnapshot {
        var snapshot = metrics.snapshot()
        snapshot.circuit = breaker.status
        return snapshot
    }

    /// Logs an error shown to the user through the presentation chain: the options offered, the
    /// one chosen, and whether it recovered (`ErrorPresentationChain`'s observer).
    public func record(_ outcome: PresentationOutcome, prompt: PromptInfo? = nil) {
        write(ErrorLogEvent(outcome, prompt: prompt))
    }

    private func write(_ event: ErrorLogEvent) { Self.write(event, to: log, metrics: metrics) }

    private static func write(_ event: ErrorLogEvent, to log: ErrorLog?, metrics: ResilienceMetrics) {
        guard let log else { return }
        do { try log.append(event) } catch { metrics.logWriteFailed() }
    }
}
