/// A `Clock<Duration>` with its type erased, reading time as the duration since the clock was handed in.
///
/// Erasing keeps `CircuitBreaker`, `ResilientCaller` and friends non-generic while still taking
/// `some Clock<Duration>` in `init` (HOUSE_STYLE 7): `ContinuousClock` in the product, swift-clocks'
/// `TestClock` in tests. Offsets from a private origin stand in for the clock's own `Instant` type.
struct InjectedClock: Sendable {
    private let elapsed: @Sendable () -> Duration
    private let sleeper: @Sendable (Duration) async throws -> Void

    init<C: Clock<Duration>>(_ clock: C) {
        let origin = clock.now
        elapsed = { origin.duration(to: clock.now) }
        sleeper = { offset in try await clock.sleep(until: origin.advanced(by: offset), tolerance: nil) }
    }

    /// Time since the clock was handed in.
    var now: Duration { elapsed() }

    /// Sleeps until `deadline` (an offset like `now`); throws `CancellationError` when the task is cancelled.
    ///
    /// Sleeping until a deadline computed before any observer is told (rather than `sleep(for:)`
    /// after) means a test clock that is advanced before the sleep registers still wakes it.
    func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        guard deadline > now else { return }
        try await sleeper(deadline)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double` (for arithmetic on delays, not for display).
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// Whole milliseconds, rounded down (for logs and counters).
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
