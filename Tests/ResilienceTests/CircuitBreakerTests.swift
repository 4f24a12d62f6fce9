import Clocks
import Resilience
import SafetyCore
import Testing

struct CircuitBreakerTests {
    let clock = TestClock()

    func breaker(
        failures: Int = 2, coolDown: Duration = .seconds(10), successes: Int = 2
    ) -> CircuitBreaker {
        CircuitBreaker(
            policy: CircuitBreakerPolicy(failureThreshold: failures, coolDown: coolDown, successThreshold: successes),
            clock: clock)
    }

    func admit(_ breaker: CircuitBreaker, sourceLocation: SourceLocation = #_sourceLocation) -> CircuitBreaker.Permit? {
        if case .admitted(let permit) = breaker.acquire() { return permit }
        Issue.record("expected the call to be admitted", sourceLocation: sourceLocation)
        return nil
    }

    func fail(_ breaker: CircuitBreaker, times: Int) {
        for _ in 0..<times { if let permit = admit(breaker) { breaker.record(.failure, for: permit) } }
    }

    @Test func opensAfterConsecutiveFailuresOnly() {
        let breaker = breaker(failures: 3)
        fail(breaker, times: 2)
        if let permit = admit(breaker) { breaker.record(.success, for: permit) }  // resets the count
        fail(breaker, times: 2)
        #expect(breaker.state == .closed)
        #expect(breaker.status.consecutiveFailures == 2)
        fail(breaker, times: 1)
        #expect(breaker.state == .open)
    }

    @Test func neutralOutcomesDoNotCount() {
        let breaker = breaker(failures: 1)
        if let permit = admit(breaker) { breaker.record(.neutral, for: permit) }
        #expect(breaker.state == .closed)
    }

    @Test func aFailureWhileHalfOpenReopensAndRestartsTheCoolDown() async {
        let breaker = breaker()
        fail(breaker, times: 2)
        await clock.advance(by: .seconds(10))
        #expect(breaker.state == .halfOpen)
        fail(breaker, times: 1)
        #expect(breaker.state == .open)
        #expect(breaker.status.halfOpensIn == .seconds(10))
        await clock.advance(by: .seconds(9))
        #expect(breaker.state == .open)
        await clock.advance(by: .seconds(1))
        #expect(breaker.state == .halfOpen)
        #expect(breaker.status.timesOpened == 2)
    }

    @Test func halfOpenLetsOneProbeThroughAtATime() async {
        let breaker = breaker()
        fail(breaker, times: 2)
        await clock.advance(by: .seconds(10))
        let probe = admit(breaker)
        guard case .rejected(let rejection) = breaker.acquire() else {
            Issue.record("a second concurrent probe was admitted")
            return
        }
        #expect(rejection.halfOpensIn == .zero)
        if let probe { breaker.record(.success, for: probe) }
        if let probe = admit(breaker) { breaker.record(.success, for: probe) }
        #expect(breaker.state == .closed)
    }

    @Test func lateReportsFromBeforeAStateChangeAreIgnored() {
        let breaker = breaker(failures: 1)
        let slow = admit(breaker)
        fail(breaker, times: 1)
        #expect(breaker.state == .open)
        if let slow { breaker.record(.success, for: slow) }
        #expect(breaker.state == .open)
    }

    @Test func runFailsFastWithAIUnavailableWithoutCallingTheOperation() async throws {
        let breaker = breaker(failures: 1)
        let backend = ScriptedBackend([.unavailable])
        await #expect(throws: GatewayError.aiUnavailable) { try await breaker.run { try backend.reply() } }
        await #expect(throws: GatewayError.aiUnavailable) { try await breaker.run { try backend.reply() } }
        #expect(backend.calls == 1)
        #expect(breaker.status.rejectedCalls == 1)
        await clock.advance(by: .seconds(10))
        #expect(try await breaker.run { try backend.reply() } == "reply 2")
    }

    @Test func runDoesNotCountBadInput() async throws {
        let breaker = breaker(failures: 1)
        await #expect(throws: GatewayError.invalidInput(reason: "empty")) {
            try await breaker.run { () throws -> Int in throw GatewayError.invalidInput(reason: "empty") }
        }
        #expect(breaker.state == .closed)
    }

    @Test func transitionsAreReportedAndKept() async {
        let seen = EventRecorder()
        let breaker = CircuitBreaker(
            policy: CircuitBreakerPolicy(failureThreshold: 1, coolDown: .seconds(5), successThreshold: 1),
            clock: clock, onTransition: { seen.append(.circuitChanged($0)) })
        fail(breaker, times: 1)
        await clock.advance(by: .seconds(5))
        if let probe = admit(breaker) { breaker.record(.success, for: probe) }
        #expect(seen.transitions == ["closed->open", "open->halfOpen", "halfOpen->closed"])
        #expect(breaker.status.recentTransitions.map(\.at) == [.zero, .seconds(5), .seconds(5)])
        #expect(breaker.status.transitionCount == 3)
    }

    @Test func resetCloses() {
        let breaker = breaker(failures: 1)
        fail(breaker, times: 1)
        breaker.reset()
        #expect(breaker.state == .closed)
        #expect(breaker.status.consecutiveFailures == 0)
    }
}
