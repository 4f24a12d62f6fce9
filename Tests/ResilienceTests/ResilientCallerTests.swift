import Clocks
import Resilience
import SafetyCore
import Testing

struct ResilientCallerTests {
    @Test func unavailableTwiceThenOkRepliesAfterTwoRetriesWithTheSeededDelays() async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.unavailable, .unavailable, .ok])
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 42))

        let call = Task { try await caller.call(onEvent: events.append) { try backend.reply() } }

        // Retry 1: full jitter over 0…1 s gives 742 ms for seed 42.
        await waitUntilSleeping(clock)
        #expect(backend.calls == 1)
        #expect(events.retryDelays == [.milliseconds(742)])
        await clock.advance(by: .milliseconds(741))
        #expect(backend.calls == 1)
        await clock.advance(by: .milliseconds(1))

        // Retry 2: 0…2 s gives 319 ms.
        await waitUntilSleeping(clock)
        #expect(backend.calls == 2)
        #expect(events.retryDelays == [.milliseconds(742), .milliseconds(319)])
        #expect(events.retryCounters == ["1/3", "2/3"])
        await clock.advance(by: .milliseconds(318))
        #expect(backend.calls == 2)
        await clock.advance(by: .milliseconds(1))

        #expect(try await call.value == "reply 3")
        #expect(backend.calls == 3)
        #expect(events.all.last == .succeededAfterRetries(attempts: 3))

        let stats = caller.snapshot()
        #expect(stats.calls == 1 && stats.succeeded == 1 && stats.recoveries == 1)
        #expect(stats.attempts == 3 && stats.retries == 2 && stats.failedAttempts == 2)
        #expect(stats.errorsByCode == ["aiUnavailable": 2])
        #expect(stats.errorsByCategory == ["offline": 2])
        #expect(stats.circuit.state == .closed && stats.circuit.consecutiveFailures == 0)
    }

    @Test func aLongOutageOpensTheCircuitWhichFailsFastThenHalfOpensAndCloses() async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.unavailable, .unavailable, .unavailable])
        let caller = ResilientCaller(
            retry: RetryPolicy(maxAttempts: 2, initialDelay: .seconds(1), jitter: .none),
            breaker: CircuitBreakerPolicy(failureThreshold: 3, coolDown: .seconds(30), successThreshold: 2),
            clock: clock, random: SplitMix64(seed: 1), onEvent: events.append)

        // Call 1: two attempts fail (2 consecutive failures), then it gives up.
        let first = Task { try await caller.call { try backend.reply() } }
        await waitUntilSleeping(clock)
        await clock.advance(by: .seconds(1))
        await #expect(throws: GatewayError.aiUnavailable) { try await first.value }
        #expect(backend.calls == 2)
        #expect(caller.availability == .available)

        // Call 2: the third failure opens the circuit; the call stops at once instead of sleeping.
        await #expect(throws: GatewayError.aiUnavailable) { try await caller.call { try backend.reply() } }
        #expect(backend.calls == 3)
        #expect(caller.breaker.state == .open)
        #expect(caller.availability == .degraded(retryIn: .seconds(30)))
        #expect(events.transitions == ["closed->open"])

        // While open, calls fail fast with aiUnavailable and never reach the backend.
        for _ in 0..<3 {
            do {
                _ = try await caller.call { try backend.reply() }
                Issue.record("an open circuit let a call through")
            } catch let error as GatewayError {
                #expect(error.kind == .aiUnavailable)
                #expect(error.underlying is CircuitOpenError)
            }
        }
        #expect(backend.calls == 3)
        #expect(caller.snapshot().rejectedByCircuit == 3)

        // Not yet: 29 s into the cool-down.
        await clock.advance(by: .seconds(29))
        #expect(caller.availability == .degraded(retryIn: .seconds(1)))
        await #expect(throws: GatewayError.aiUnavailable) { try await caller.call { try backend.reply() } }
        #expect(backend.calls == 3)

        // After the cool-down: half-open; two successful probes close it.
        await clock.advance(by: .seconds(1))
        #expect(caller.breaker.state == .halfOpen)
        #expect(try await caller.call { try backend.reply() } == "reply 4")
        #expect(caller.breaker.state == .halfOpen)
        #expect(try await caller.call { try backend.reply() } == "reply 5")
        #expect(caller.breaker.state == .closed)
        #expect(events.transitions == ["closed->open", "open->halfOpen", "halfOpen->closed"])

        let stats = caller.snapshot()
        #expect(stats.circuit.timesOpened == 1)
        #expect(stats.circuitTransitions == ["closed->open": 1, "open->halfOpen": 1, "halfOpen->closed": 1])
        #expect(stats.gaveUpByReason == ["attemptsExhausted": 1, "circuitOpen": 5])
    }

    @Test func rateLimitedWaitsForTheAdvisedTime() async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.rateLimited(.seconds(2))])
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 42))

        let call = Task { try await caller.call(onEvent: events.append) { try backend.reply() } }
        await waitUntilSleeping(clock)
        #expect(events.retryDelays == [.seconds(2)])  // the jittered backoff (742 ms) is shorter
        await clock.advance(by: .milliseconds(1999))
        #expect(backend.calls == 1)
        await clock.advance(by: .milliseconds(1))
        #expect(try await call.value == "reply 2")
        #expect(caller.snapshot().errorsByCategory == ["rateLimited": 1])
    }

    @Test func aRetryAfterBeyondTheLimitGivesUpAtOnce() async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.rateLimited(.seconds(600))])
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 42))
        await #expect(throws: GatewayError.rateLimited(retryAfter: .seconds(600))) {
            try await caller.call(onEvent: events.append) { try backend.reply() }
        }
        #expect(backend.calls == 1)
        #expect(events.gaveUp == [.retryAfterTooLong])
    }

    @Test(arguments: [
        GatewayError.invalidInput(reason: "empty prompt"),
        .configuration(file: "profiles/calendar.yaml", line: 2, reason: "unknown key"),
        .internal,
    ])
    func nonRetryableErrorsAreNotRetriedAndLeaveTheBreakerAlone(error: GatewayError) async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.fail(error)])
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 42))
        await #expect(throws: error) { try await caller.call(onEvent: events.append) { try backend.reply() } }
        #expect(backend.calls == 1)
        #expect(events.gaveUp == [.notRetryable])
        #expect(events.retryDelays.isEmpty)
        #expect(caller.breaker.status.consecutiveFailures == 0)
        #expect(caller.snapshot().windowSamples == 0)
    }

    @Test func unknownErrorsAreInternalAndNotRetried() async throws {
        struct Surprise: Error {}
        let caller = ResilientCaller(clock: TestClock(), random: SplitMix64(seed: 42))
        var runs = 0
        await #expect(throws: Surprise.self) {
            try await caller.call { () throws -> String in
                runs += 1
                throw Surprise()
            }
        }
        #expect(runs == 1)
        #expect(caller.snapshot().errorsByCode == ["internal": 1])
    }

    @Test func cancellationDuringABackoffStopsAtOnce() async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.unavailable, .unavailable, .unavailable])
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 42))

        let call = Task { try await caller.call(onEvent: events.append) { try backend.reply() } }
        await waitUntilSleeping(clock)
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        await clock.advance(by: .seconds(60))
        #expect(backend.calls == 1)
        #expect(events.gaveUp == [.cancelled])
        let stats = caller.snapshot()
        #expect(stats.cancelled == 1 && stats.failed == 0)
    }

    @Test func aCancelledTaskNeverRunsTheOperation() async throws {
        let backend = ScriptedBackend([])
        let caller = ResilientCaller(clock: TestClock(), random: SplitMix64(seed: 42))
        let call = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await caller.call { try backend.reply() }
        }
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(backend.calls == 0)
    }

    @Test func anOperationCancelledMidwayIsNotRetriedNorCountedAgainstTheBackend() async throws {
        let clock = TestClock()
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 42))
        var runs = 0
        await #expect(throws: CancellationError.self) {
            try await caller.call { () throws -> String in
                runs += 1
                throw CancellationError()
            }
        }
        #expect(runs == 1)
        #expect(caller.breaker.status.consecutiveFailures == 0)
        #expect(caller.snapshot().cancelled == 1)
    }

    @Test func theHighErrorRateEventReachesObservers() async throws {
        let clock = TestClock()
        let events = EventRecorder()
        let caller = ResilientCaller(
            retry: .none, breaker: CircuitBreakerPolicy(failureThreshold: 1000),
            monitoring: MonitoringPolicy(windowSize: 20, minimumSamples: 20), clock: clock,
            random: SplitMix64(seed: 1), onEvent: events.append)
        for index in 0..<20 {
            let backend = ScriptedBackend(index < 2 ? [.timeout] : [])
            _ = try? await caller.call { try backend.reply() }
        }
        // 2 of 20 failed (10 %), but only once the window held 20 calls.
        #expect(events.highErrorRates == [HighErrorRate(failures: 2, samples: 20, threshold: 0.05)])
        #expect(caller.snapshot().highErrorRateEvents == 1)
    }

    @Test func statsSnapshotIsJSON() async throws {
        let caller = ResilientCaller(clock: TestClock(), random: SplitMix64(seed: 1))
        _ = try await caller.call { "ok" }
        let text = caller.snapshot().json.text
        #expect(text.hasPrefix(#"{"calls":1,"succeeded":1,"failed":0,"cancelled":0,"recoveries":0,"attempts":1,"#))
        #expect(text.contains(#""circuit":{"state":"closed","#))
    }

    @Test func defaultsLetTheREPLRetryAfterFourFailures() async throws {
        // Issue 6's end-to-end script: `/fail unavailable×4` shows an error card (4 attempts with the
        // default policy), and choosing retry after `/fail ok` gets the reply: the circuit (5) is still closed.
        let clock = TestClock()
        let events = EventRecorder()
        let backend = ScriptedBackend([.unavailable, .unavailable, .unavailable, .unavailable])
        let caller = ResilientCaller(clock: clock, random: SplitMix64(seed: 7))
        var lines: [String] = []

        let call = Task {
            try await caller.call(prompt: PromptInfo("hello")) { event in
                events.append(event)
            } operation: {
                try backend.reply()
            }
        }
        for retry in 0..<3 {
            await waitUntilSleeping(clock)
            await clock.advance(by: events.retryDelays[retry])  // exactly: a longer step could run on
        }
        await #expect(throws: GatewayError.aiUnavailable) { try await call.value }
        for case .retrying(let retry, let retries, let delay, _) in events.all {
            let tenths = Int((delay / .milliseconds(100)).rounded())
            lines.append("Retrying \(retry)/\(retries) in \(tenths / 10).\(tenths % 10) s…")
        }
        #expect(lines == ["Retrying 1/3 in 0.4 s…", "Retrying 2/3 in 0.0 s…", "Retrying 3/3 in 3.6 s…"])
        #expect(events.retryDelays == [.milliseconds(390), .milliseconds(33), .milliseconds(3603)])
        #expect(events.gaveUp == [.attemptsExhausted])
        #expect(caller.availability == .available)

        #expect(try await caller.call { try backend.reply() } == "reply 5")
        let stats = caller.snapshot()
        #expect(stats.calls == 2 && stats.failed == 1 && stats.succeeded == 1 && stats.retries == 3)
        #expect(stats.recoveries == 0)  // a new call, not a retry within one
    }
}
