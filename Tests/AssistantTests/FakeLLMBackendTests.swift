import SafetyCore
import Testing

@testable import Assistant

@Suite struct FakeLLMBackendTests {
    static let calendar = BackendRequest(prompt: "Move my 3pm meeting to Thursday", language: .en, profileName: "calendar")

    @Test func scriptIsConsumedOnePerCallThenOkForever() async throws {
        let backend = FakeLLMBackend(settings: .init(script: [.unavailable, .timeout, .rateLimited, .malformed]))
        await #expect(throws: BackendError.unavailable) { try await backend.reply(to: Self.calendar) }
        await #expect(throws: BackendError.timeout) { try await backend.reply(to: Self.calendar) }
        await #expect(throws: BackendError.rateLimited(retryAfter: .seconds(2))) { try await backend.reply(to: Self.calendar) }
        await #expect(throws: BackendError.self) { try await backend.reply(to: Self.calendar) }
        for _ in 0..<3 { _ = try await backend.reply(to: Self.calendar) }
        #expect(backend.calls == 7)
        #expect(backend.remainingScript.isEmpty)
    }

    @Test func parsesTheContractsScriptSpec() throws {
        #expect(try FakeOutcome.parseScript("ok, timeout,unavailable,rateLimited,malformed,unsafe") == FakeOutcome.allCases)
        #expect(try FakeOutcome.parseScript("") == [])
        #expect(throws: FakeScriptError(item: "down", position: 2)) { try FakeOutcome.parseScript("ok,down") }
    }

    @Test func seededFailureRateRepeatsExactly() async {
        func run() async -> [Bool] {
            let backend = FakeLLMBackend(settings: .init(failureRate: 0.3, seed: 42))
            var failed: [Bool] = []
            for _ in 0..<200 { failed.append((try? await backend.reply(to: Self.calendar)) == nil) }
            return failed
        }
        let first = await run()
        #expect(first == (await run()))
        let rate = Double(first.count(where: { $0 })) / Double(first.count)
        #expect(rate > 0.2 && rate < 0.4, "observed \(rate)")
    }

    @Test func calendarAssistantAnswersLikeOne() async throws {
        let backend = FakeLLMBackend()
        #expect(try await backend.reply(to: Self.calendar).contains("moved"))
        let turkish = BackendRequest(prompt: "Yarın 10'da hatırlat", language: .tr, profileName: "calendar")
        #expect(try await backend.reply(to: turkish).contains("hatırlatacağım"))
        let general = BackendRequest(prompt: "Explain photosynthesis", language: .en, profileName: "general")
        #expect(try await backend.reply(to: general).contains("Explain photosynthesis"))
    }

    @Test func latencyPassesOnTheInjectedSleep() async throws {
        let slept = SleepRecorder()
        let backend = FakeLLMBackend(settings: .init(latency: .milliseconds(250))) { await slept.record($0) }
        _ = try await backend.reply(to: Self.calendar)
        #expect(await slept.durations == [.milliseconds(250)])
    }

    @Test func errorsConvertToTheUserFacingError() {
        #expect(GatewayError(from: BackendError.timeout).code == "timeout")
        #expect(GatewayError(from: BackendError.unavailable).isRetryable)
        #expect(GatewayError(from: BackendError.rateLimited(retryAfter: .seconds(3))).retryAfter == .seconds(3))
        #expect(GatewayError(from: BackendError.malformed("x")).category == .serverError)
    }
}

actor SleepRecorder {
    var durations: [Duration] = []
    func record(_ duration: Duration) { durations.append(duration) }
}
