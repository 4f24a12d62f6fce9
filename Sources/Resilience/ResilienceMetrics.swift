public import SafetyCore
import Synchronization

/// How the error rate is watched.
public struct MonitoringPolicy: Sendable, Hashable {
    /// The sliding window: the last this many backend calls (attempts). Default 100.
    public var windowSize: Int
    /// No high-error-rate event until the window holds at least this many calls. Default 20.
    public var minimumSamples: Int
    /// The event fires when the failed share of the window is *more* than this. Default 0.05 (5 %).
    public var highErrorRateThreshold: Double

    public init(windowSize: Int = 100, minimumSamples: Int = 20, highErrorRateThreshold: Double = 0.05) {
        self.windowSize = max(1, windowSize)
        self.minimumSamples = min(max(1, minimumSamples), self.windowSize)
        self.highErrorRateThreshold = min(max(0, highErrorRateThreshold), 1)
    }

    /// A window of 100 calls, at least 20 seen, more than 5 % failed.
    public static let `default` = MonitoringPolicy()
}

/// More than the threshold of the recent backend calls failed (seed `002_…`'s `high_error_rate`).
public struct HighErrorRate: Sendable, Hashable {
    /// Failed calls in the window.
    public var failures: Int
    /// Calls in the window.
    public var samples: Int
    /// The threshold that was exceeded.
    public var threshold: Double

    public init(failures: Int, samples: Int, threshold: Double) {
        self.failures = failures
        self.samples = samples
        self.threshold = threshold
    }

    /// `failures / samples`.
    public var rate: Double { samples == 0 ? 0 : Double(failures) / Double(samples) }
}

/// Counters of a `ResilientCaller`, for `/stats`: errors by code and category, attempts, retries,
/// recoveries, circuit state and transitions, and the recent error rate.
///
/// ```swift
/// let stats = caller.snapshot()
/// print("\(stats.recoveries) recovered, circuit \(stats.circuit.state)")
/// print(stats.json.text)   // {"calls":12,"succeeded":11,…}
/// ```
public struct ResilienceSnapshot: Sendable, Hashable {
    /// Calls made through the caller.
    public var calls = 0
    /// Calls that returned a value.
    public var succeeded = 0
    /// Calls that ended in an error (cancelled ones not included).
    public var failed = 0
    /// Calls that were cancelled.
    public var cancelled = 0
    /// Calls that returned a value after at least one failed attempt.
    public var recoveries = 0
    /// Runs of the operation (first attempts and retries).
    public var attempts = 0
    /// Runs of the operation that failed.
    public var failedAttempts = 0
    /// Retries: attempts after the first.
    public var retries = 0
    /// Attempts turned away by the open circuit without running the operation.
    public var rejectedByCircuit = 0
    /// Failures by error code (failed attempts and rejections), e.g. `["aiUnavailable": 3]`.
    public var errorsByCode: [String: Int] = [:]
    /// Failures by category, keyed by the category's raw value, e.g. `["offline": 3]`.
    public var errorsByCategory: [String: Int] = [:]
    /// Why failed calls stopped, keyed by `GiveUpReason` raw value.
    public var gaveUpByReason: [String: Int] = [:]
    /// The circuit breaker's state and counters.
    public var circuit = CircuitStatus(
        state: .closed, consecutiveFailures: 0, halfOpenSuccesses: 0, halfOpensIn: nil, timesOpened: 0,
        transitionCount: 0, recentTransitions: [], rejectedCalls: 0)
    /// State changes by `"from->to"`, e.g. `["closed->open": 1]`.
    public var circuitTransitions: [String: Int] = [:]
    /// Backend calls in the sliding window.
    public var windowSamples = 0
    /// Failed backend calls in the sliding window.
    public var windowFailures = 0
    /// How many times the high-error-rate event fired.
    public var highErrorRateEvents = 0
    /// Error-log lines that could not be written.
    public var logWriteFailures = 0

    public init() {}

    /// The failed share of the sliding window (0 when empty).
    public var windowErrorRate: Double { windowSamples == 0 ? 0 : Double(windowFailures) / Double(windowSamples) }

    /// The snapshot as one JSON object with keys in a fixed order (dictionaries sorted by key).
    public var json: JSONText.Object {
        func counts(_ dictionary: [String: Int]) -> JSONText.Value {
            var object = JSONText.Object()
            for key in dictionary.keys.sorted() { object[key] = .int(dictionary[key] ?? 0) }
            return .object(object)
        }
        var object = JSONText.Object()
        object["calls"] = .int(calls)
        object["succeeded"] = .int(succeeded)
        object["failed"] = .int(failed)
        object["cancelled"] = .int(cancelled)
        object["recoveries"] = .int(recoveries)
        object["attempts"] = .int(attempts)
        object["failed_attempts"] = .int(failedAttempts)
        object["retries"] = .int(retries)
        object["rejected_by_circuit"] = .int(rejectedByCircuit)
        object["errors_by_code"] = counts(errorsByCode)
        object["errors_by_category"] = counts(errorsByCategory)
        object["gave_up"] = counts(gaveUpByReason)
        var circuitObject = JSONText.Object()
        circuitObject["state"] = .string(circuit.state.rawValue)
        circuitObject["consecutive_failures"] = .int(circuit.consecutiveFailures)
        circuitObject["times_opened"] = .int(circuit.timesOpened)
        circuitObject["half_opens_in_ms"] = circuit.halfOpensIn.map { .int(Int($0.wholeMilliseconds)) } ?? .null
        circuitObject["transitions"] = counts(circuitTransitions)
        object["circuit"] = .object(circuitObject)
        var window = JSONText.Object()
        window["samples"] = .int(windowSamples)
        window["failures"] = .int(windowFailures)
        window["high_error_rate_events"] = .int(highErrorRateEvents)
        object["window"] = .object(window)
        object["log_write_failures"] = .int(logWriteFailures)
        return object
    }
}

/// The counters behind `ResilienceSnapshot`, safe to update from any task.
///
/// `ResilientCaller` feeds it; it is public so other callers (and tests) can too.
public final class ResilienceMetrics: Sendable {
    public let policy: MonitoringPolicy
    private let counters: Mutex<Counters>

    public init(policy: MonitoringPolicy = .default) {
        self.policy = policy
        self.counters = Mutex(Counters(windowSize: policy.windowSize))
    }

    /// A copy of the counters now (the circuit status is filled in by the caller that owns the breaker).
    public func snapshot() -> ResilienceSnapshot { counters.withLock { $0.snapshot } }

    /// A call began.
    public func callStarted() { counters.withLock { $0.snapshot.calls += 1 } }

    /// A call returned a value after `failedAttempts` failed attempts.
    public func callSucceeded(afterFailedAttempts failedAttempts: Int) {
        counters.withLock {
            $0.snapshot.succeeded += 1
            if failedAttempts > 0 { $0.snapshot.recoveries += 1 }
        }
    }

    /// A call ended in an error.
    public func callFailed(_ reason: GiveUpReason) {
        counters.withLock {
            if reason == .cancelled {
                $0.snapshot.cancelled += 1
            } else {
                $0.snapshot.failed += 1
            }
            $0.snapshot.gaveUpByReason[reason.rawValue, default: 0] += 1
        }
    }

    /// The operation is about to run; `isRetry` when it is not the call's first attempt.
    public func attemptStarted(isRetry: Bool) {
        counters.withLock {
            $0.snapshot.attempts += 1
            if isRetry { $0.snapshot.retries += 1 }
        }
    }

    /// An attempt succeeded. Returns the high-error-rate event when the window has just reached
    /// `minimumSamples` with too many failures in it.
    @discardableResult
    public func attemptSucceeded() -> HighErrorRate? {
        counters.withLock { $0.push(failed: false, policy: policy) }
    }

    /// An attempt failed with `failure`. Returns the high-error-rate event when this failure pushed
    /// the window over the threshold (once per crossing: it fires again only after the rate has
    /// fallen back to the threshold or below).
    @discardableResult
    public func attemptFailed(_ failure: FailureClassification) -> HighErrorRate? {
        counters.withLock {
            $0.snapshot.failedAttempts += 1
            $0.count(failure)
            return failure.isBackendFailure ? $0.push(failed: true, policy: policy) : nil
        }
    }

    /// An attempt was turned away by the open circuit.
    public func attemptRejected() {
        counters.withLock {
            $0.snapshot.rejectedByCircuit += 1
            $0.count(FailureClassification(GatewayError.aiUnavailable))
        }
    }

    /// The circuit changed state.
    public func circuitChanged(_ transition: CircuitTransition) {
        counters.withLock {
            $0.snapshot.circuitTransitions["\(transition.from.rawValue)->\(transition.to.rawValue)", default: 0] += 1
        }
    }

    /// A line of the error log could not be written.
    public func logWriteFailed() { counters.withLock { $0.snapshot.logWriteFailures += 1 } }
}

private struct Counters {
    var snapshot = ResilienceSnapshot()
    /// Ring buffer of the last `windowSize` backend outcomes; `true` = failed.
    var window: [Bool] = []
    var next = 0
    var isHigh = false
    let windowSize: Int

    init(windowSize: Int) {
        self.windowSize = windowSize
        window.reserveCapacity(windowSize)
    }

    mutating func count(_ failure: FailureClassification) {
        snapshot.errorsByCode[failure.code, default: 0] += 1
        snapshot.errorsByCategory[failure.category.rawValue, default: 0] += 1
    }

    mutating func push(failed: Bool, policy: MonitoringPolicy) -> HighErrorRate? {
        if window.count < windowSize {
            window.append(failed)
        } else {
            if window[next] { snapshot.windowFailures -= 1 }
            window[next] = failed
            next = (next + 1) % windowSize
        }
        if failed { snapshot.windowFailures += 1 }
        snapshot.windowSamples = window.count

        let rate = snapshot.windowErrorRate
        guard rate > policy.highErrorRateThreshold else {
            isHigh = false
            return nil
        }
        guard !isHigh, window.count >= policy.minimumSamples else { return nil }
        isHigh = true
        snapshot.highErrorRateEvents += 1
        return HighErrorRate(
            failures: snapshot.windowFailures, samples: window.count, threshold: policy.highErrorRateThreshold)
    }
}
