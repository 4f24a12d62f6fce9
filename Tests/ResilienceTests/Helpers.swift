import Clocks
import Resilience
import SafetyCore
import Synchronization
import Testing

/// A backend whose answers follow a script, then `ok` forever (like `--fake-failures`).
final class ScriptedBackend: Sendable {
    enum Step: Sendable {
        case ok
        case fail(GatewayError)

        static let unavailable = Step.fail(.aiUnavailable)
        static let timeout = Step.fail(.timeout)
        static func rateLimited(_ retryAfter: Duration?) -> Step { .fail(.rateLimited(retryAfter: retryAfter)) }
    }

    private struct State {
        var steps: [Step]
        var calls = 0
    }

    private let state: Mutex<State>

    init(_ steps: [Step]) { state = Mutex(State(steps: steps)) }

    /// How many times `reply()` ran.
    var calls: Int { state.withLock { $0.calls } }

    func reply() throws -> String {
        let step: Step = state.withLock { state in
            state.calls += 1
            return state.steps.isEmpty ? .ok : state.steps.removeFirst()
        }
        switch step {
        case .ok: return "reply \(calls)"
        case .fail(let error): throw error
        }
    }
}

/// Collects events from any task.
final class EventRecorder: Sendable {
    private let events = Mutex<[ResilienceEvent]>([])

    func append(_ event: ResilienceEvent) { events.withLock { $0.append(event) } }

    var all: [ResilienceEvent] { events.withLock { $0 } }

    /// The delays of the `retrying` events, in order.
    var retryDelays: [Duration] {
        all.compactMap { if case .retrying(_, _, let delay, _) = $0 { delay } else { nil } }
    }

    /// "N/M" of each `retrying` event, as the REPL would show it.
    var retryCounters: [String] {
        all.compactMap { if case .retrying(let retry, let of, _, _) = $0 { "\(retry)/\(of)" } else { nil } }
    }

    var gaveUp: [GiveUpReason] {
        all.compactMap { if case .gaveUp(_, let reason, _) = $0 { reason } else { nil } }
    }

    var highErrorRates: [HighErrorRate] {
        all.compactMap { if case .highErrorRate(let alarm) = $0 { alarm } else { nil } }
    }

    var transitions: [String] {
        all.compactMap {
            if case .circuitChanged(let change) = $0 { "\(change.from.rawValue)->\(change.to.rawValue)" } else { nil }
        }
    }
}

/// Yields until some task sleeps on `clock` (never sleeps for real): `checkSuspension` throws
/// exactly when a sleep is registered. Gives up after 10 s of wall time, which only a hung
/// retry loop (or a very loaded machine) would need.
func waitUntilSleeping(
    _ clock: TestClock<Duration>, sourceLocation: SourceLocation = #_sourceLocation
) async {
    let giveUp = ContinuousClock.now.advanced(by: .seconds(10))
    while ContinuousClock.now < giveUp {
        do { try await clock.checkSuspension() } catch { return }
    }
    Issue.record("nothing ever slept on the test clock", sourceLocation: sourceLocation)
}

extension GatewayError {
    var isAIUnavailable: Bool { kind == .aiUnavailable }
}
