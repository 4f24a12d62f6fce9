public import SafetyCore
import Synchronization

/// When the circuit breaker opens and closes.
public struct CircuitBreakerPolicy: Sendable, Hashable {
    /// Consecutive backend failures (attempts, not calls) that open the circuit. Default 5.
    public var failureThreshold: Int
    /// How long the circuit stays open before letting a probe through (half-open). Default 30 s.
    public var coolDown: Duration
    /// Consecutive successes in half-open that close the circuit. Default 2: one success on a
    /// flapping backend can be luck.
    public var successThreshold: Int
    /// Probes allowed in flight at once while half-open; other calls fail fast. Default 1.
    public var maxConcurrentProbes: Int

    public init(
        failureThreshold: Int = 5, coolDown: Duration = .seconds(30), successThreshold: Int = 2,
        maxConcurrentProbes: Int = 1
    ) {
        self.failureThreshold = max(1, failureThreshold)
        self.coolDown = max(.zero, coolDown)
        self.successThreshold = max(1, successThreshold)
        self.maxConcurrentProbes = max(1, maxConcurrentProbes)
    }

    /// Open after 5 consecutive failures, half-open after 30 s, closed after 2 successes.
    public static let `default` = CircuitBreakerPolicy()
}

/// The state of a circuit breaker.
public enum CircuitState: String, Sendable, Hashable, CaseIterable {
    /// Calls go through; consecutive failures are counted.
    case closed
    /// Calls fail at once with `aiUnavailable` and never reach the backend.
    case open
    /// The cool-down is over: probes go through; successes close the circuit, a failure re-opens it.
    case halfOpen
}

/// One change of a circuit breaker's state.
public struct CircuitTransition: Sendable, Hashable {
    public var from: CircuitState
    public var to: CircuitState
    /// When, on the breaker's clock, measured from when the breaker was made.
    public var at: Duration

    public init(from: CircuitState, to: CircuitState, at: Duration) {
        self.from = from
        self.to = to
        self.at = at
    }
}

/// A circuit breaker's state and counters at one moment, for `/stats` and the REPL's status line.
public struct CircuitStatus: Sendable, Hashable {
    public var state: CircuitState
    /// Backend failures in a row (closed state).
    public var consecutiveFailures: Int
    /// Successful probes so far (half-open state).
    public var halfOpenSuccesses: Int
    /// Time left until the circuit half-opens, when open.
    public var halfOpensIn: Duration?
    /// How many times the circuit has opened.
    public var timesOpened: Int
    /// How many state changes there have been.
    public var transitionCount: Int
    /// The most recent state changes, oldest first (at most 16).
    public var recentTransitions: [CircuitTransition]
    /// Calls turned away without reaching the backend.
    public var rejectedCalls: Int

    /// Whether calls can reach the backend now (closed or half-open).
    public var isAvailable: Bool { state != .open }
}

/// Why a call was turned away by an open circuit: the `underlying` error of the `aiUnavailable`
/// that the breaker throws.
public struct CircuitOpenError: Error, Sendable, Hashable, CustomStringConvertible, GatewayErrorConvertible {
    /// Time left until the circuit half-opens (zero when half-open with a probe already in flight).
    public var halfOpensIn: Duration

    public init(halfOpensIn: Duration) { self.halfOpensIn = halfOpensIn }

    public var description: String { "circuit open; half-opens in \(halfOpensIn)" }

    /// `aiUnavailable`, keeping this error as the underlying one.
    public var gatewayError: GatewayError { GatewayError(.aiUnavailable, underlying: self) }
}

/// Stops calling a backend that keeps failing, and tries it again after a cool-down.
///
/// Closed → open after `failureThreshold` consecutive backend failures → half-open after `coolDown`
/// (on the injected clock) → closed after `successThreshold` successful probes; a failure while
/// half-open re-opens it. While open, calls fail at once with `GatewayError.aiUnavailable` and never
/// reach the operation, so the gateway keeps classifying, refusing and giving crisis resources.
///
/// ```swift
/// let breaker = CircuitBreaker(clock: ContinuousClock())
/// let reply = try await breaker.run { try await backend.reply(to: prompt) }
/// if breaker.state == .open { print("AI offline — safety checks and crisis resources still work") }
/// ```
///
/// A `final class` around a `Mutex` (HOUSE_STYLE 8): every decision is a short critical section,
/// never held across an `await`. `ResilientCaller` uses the lower-level `acquire()` / `record(_:for:)`.
public final class CircuitBreaker: Sendable {
    /// Whether a call may go ahead.
    public enum Admission: Sendable, Hashable {
        /// Go ahead, and report the outcome with `record(_:for:)`.
        case admitted(Permit)
        /// Fail fast: the circuit is open (or half-open with its probes in flight).
        case rejected(CircuitOpenError)
    }

    /// A ticket for one admitted call.
    public struct Permit: Sendable, Hashable {
        fileprivate let generation: Int
        fileprivate let isProbe: Bool
    }

    /// How an admitted call ended, as far as the breaker cares.
    public enum Outcome: Sendable, Hashable {
        /// The backend answered.
        case success
        /// A failure that says the backend is unwell.
        case failure
        /// Neither: cancelled, or failed for a reason that says nothing about the backend (bad input).
        case neutral
    }

    public let policy: CircuitBreakerPolicy
    private let clock: InjectedClock
    private let onTransition: (@Sendable (CircuitTransition) -> Void)?
    private let machine: Mutex<Machine>

    /// A closed breaker that follows `policy`, reading time from `clock`.
    /// `onTransition` is called after every state change, outside the breaker's lock.
    public init(
        policy: CircuitBreakerPolicy = .default, clock: some Clock<Duration> = ContinuousClock(),
        onTransition: (@Sendable (CircuitTransition) -> Void)? = nil
    ) {
        self.policy = policy
        self.clock = InjectedClock(clock)
        self.onTransition = onTransition
        self.machine = Mutex(Machine())
    }

    /// The state now (an open circuit whose cool-down is over reads, and becomes, half-open).
    public var state: CircuitState { status.state }

    /// State and counters now.
    public var status: CircuitStatus {
        let now = clock.now
        let (status, transitions) = machine.withLock { machine in
            let transitions = machine.halfOpenIfCooledDown(now: now, policy: policy)
            return (machine.status(now: now, policy: policy), transitions)
        }
        notify(transitions)
        return status
    }

    /// Asks to make one call: admitted (report back with `record(_:for:)`) or rejected.
    public func acquire() -> Admission {
        let now = clock.now
        let (admission, transitions) = machine.withLock { machine in
            let transitions = machine.halfOpenIfCooledDown(now: now, policy: policy)
            return (machine.admit(now: now, policy: policy), transitions)
        }
        notify(transitions)
        return admission
    }

    /// Reports how an admitted call ended. Reports from before the last state change are ignored
    /// (a slow call that started while closed says nothing about the half-open backend).
    public func record(_ outcome: Outcome, for permit: Permit) {
        let now = clock.now
        let transitions = machine.withLock { machine in
            machine.record(outcome, permit: permit, now: now, policy: policy)
        }
        notify(transitions)
    }

    /// Closes the circuit and forgets the failures (for an explicit "try the AI again now").
    public func reset() {
        let now = clock.now
        let transitions = machine.withLock { machine in
            machine.consecutiveFailures = 0
            return machine.move(to: .closed, now: now)
        }
        notify(transitions)
    }

    /// Runs `operation` unless the circuit is open, recording its outcome.
    ///
    /// Throws `GatewayError.aiUnavailable` (underlying: `CircuitOpenError`) without calling
    /// `operation` when open. `isBackendFailure` says which errors count as failures (default: the
    /// retryable categories of `GatewayError(from:)`); others, and cancellation, count as neither.
    nonisolated(nonsending) public func run<Value>(
        isBackendFailure: (any Error) -> Bool = { FailureClassification.gateway($0).isBackendFailure },
        _ operation: () async throws -> Value
    ) async throws -> Value {
        let permit: Permit
        switch acquire() {
        case .admitted(let admitted): permit = admitted
        case .rejected(let rejection): throw rejection.gatewayError
        }
        do {
            let value = try await operation()
            record(.success, for: permit)
            return value
        } catch {
            let counts = !(error is CancellationError) && !Task.isCancelled && isBackendFailure(error)
            record(counts ? .failure : .neutral, for: permit)
            throw error
        }
    }

    private func notify(_ transitions: [CircuitTransition]) {
        guard let onTransition else { return }
        for transition in transitions { onTransition(transition) }
    }
}

/// The breaker's mutable state; only touched inside the mutex.
private struct Machine {
    var state: CircuitState = .closed
    var generation = 0
    var consecutiveFailures = 0
    var halfOpenSuccesses = 0
    var probesInFlight = 0
    var openedAt: Duration = .zero
    var timesOpened = 0
    var transitionCount = 0
    var recent: [CircuitTransition] = []
    var rejected = 0

    mutating func move(to next: CircuitState, now: Duration) -> [CircuitTransition] {
        guard next != state else { return [] }
        let transition = CircuitTransition(from: state, to: next, at: now)
        state = next
        generation += 1
        probesInFlight = 0
        halfOpenSuccesses = 0
        if next == .open {
            openedAt = now
            timesOpened += 1
        }
        if next == .closed { consecutiveFailures = 0 }
        transitionCount += 1
        recent.append(transition)
        if recent.count > 16 { recent.removeFirst(recent.count - 16) }
        return [transition]
    }

    mutating func halfOpenIfCooledDown(now: Duration, policy: CircuitBreakerPolicy) -> [CircuitTransition] {
        guard state == .open, now >= openedAt + policy.coolDown else { return [] }
        return move(to: .halfOpen, now: now)
    }

    mutating func admit(now: Duration, policy: CircuitBreakerPolicy) -> CircuitBreaker.Admission {
        switch state {
        case .closed:
            return .admitted(CircuitBreaker.Permit(generation: generation, isProbe: false))
        case .open:
            rejected += 1
            return .rejected(CircuitOpenError(halfOpensIn: openedAt + policy.coolDown - now))
        case .halfOpen:
            guard probesInFlight < policy.maxConcurrentProbes else {
                rejected += 1
                return .rejected(CircuitOpenError(halfOpensIn: .zero))
            }
            probesInFlight += 1
            return .admitted(CircuitBreaker.Permit(generation: generation, isProbe: true))
        }
    }

    mutating func record(
        _ outcome: CircuitBreaker.Outcome, permit: CircuitBreaker.Permit, now: Duration,
        policy: CircuitBreakerPolicy
    ) -> [CircuitTransition] {
        guard permit.generation == generation else { return [] }
        if permit.isProbe { probesInFlight = max(0, probesInFlight - 1) }
        switch (state, outcome) {
        case (_, .neutral), (.open, _):
            return []
        case (.closed, .success):
            consecutiveFailures = 0
            return []
        case (.closed, .failure):
            consecutiveFailures += 1
            return consecutiveFailures >= policy.failureThreshold ? move(to: .open, now: now) : []
        case (.halfOpen, .success):
            halfOpenSuccesses += 1
            return halfOpenSuccesses >= policy.successThreshold ? move(to: .closed, now: now) : []
        case (.halfOpen, .failure):
            return move(to: .open, now: now)
        }
    }

    func status(now: Duration, policy: CircuitBreakerPolicy) -> CircuitStatus {
        CircuitStatus(
            state: state, consecutiveFailures: consecutiveFailures, halfOpenSuccesses: halfOpenSuccesses,
            halfOpensIn: state == .open ? max(.zero, openedAt + policy.coolDown - now) : nil,
            timesOpened: timesOpened, transitionCount: transitionCount, recentTransitions: recent,
            rejectedCalls: rejected)
    }
}
