import SafetyCore
import Synchronization
import Testing

/// Counts and records, shared between a test and the closures it hands out.
final class Recorder: Sendable {
    private let state = Mutex<(runs: Int, events: [String])>((0, []))

    func run() -> Int {
        state.withLock {
            $0.runs += 1
            return $0.runs
        }
    }
    func note(_ event: String) { state.withLock { $0.events.append(event) } }
    var runs: Int { state.withLock { $0.runs } }
    var events: [String] { state.withLock { $0.events } }
}

/// A presenter that picks the option for a scripted action and remembers what it was shown.
struct ScriptedPresenter: ErrorPresenter {
    let choice: @Sendable (GatewayError) -> RecoveryAction?
    let recorder: Recorder

    func present(_ error: GatewayError) async -> RecoveryOption? {
        recorder.note(
            "present \(error.code) [\(error.offeredActions.map(\.name).joined(separator: ","))] \(error.context)")
        guard let action = choice(error) else { return nil }
        return error.recoveryOptions.first { $0.action == action }
    }
}

struct RecoveryAttempterTests {
    @Test func recoveringOptionReRunsTheOriginalAction() async throws {
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in .retry }, recorder: recorder))
        let result = await chain.run { () throws -> String in
            let run = recorder.run()
            if run == 1 {
                throw GatewayError.timeout.adding(
                    RecoveryOption(.retry) {
                        recorder.note("retry attempted")
                        return true
                    })
            }
            return "answer \(run)"
        }
        #expect(try result.get() == "answer 2")
        #expect(recorder.runs == 2)
        #expect(recorder.events == ["present timeout [retry,dismiss] general", "retry attempted"])
    }

    @Test func failingRecoveryDoesNotReRun() async {
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in .retry }, recorder: recorder))
        let result = await chain.run { () throws -> String in
            _ = recorder.run()
            throw GatewayError.aiUnavailable.adding(RecoveryOption(.retry) { false })
        }
        #expect(recorder.runs == 1)
        guard case .failure(let error) = result else {
            Issue.record("expected failure")
            return
        }
        #expect(error == .aiUnavailable)
    }

    @Test func dismissNeverRecovers() async {
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in .dismiss }, recorder: recorder))
        let result = await chain.run { () throws -> Int in
            _ = recorder.run()
            throw GatewayError.timeout
        }
        #expect(recorder.runs == 1)
        #expect((try? result.get()) == nil)
    }

    @Test func reRunsAreBounded() async {
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in .retry }, recorder: recorder))
        _ = await chain.run(maxAttempts: 3) { () throws -> Int in
            _ = recorder.run()
            throw GatewayError.timeout
        }
        #expect(recorder.runs == 3)
    }

    @Test func cancellationIsNotPresented() async {
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in .retry }, recorder: recorder))
        let result = await chain.run { () throws -> Int in
            _ = recorder.run()
            throw CancellationError()
        }
        #expect(recorder.runs == 1)
        #expect(recorder.events.isEmpty)
        #expect((try? result.get()) == nil)
    }

    @Test func observerSeesEveryPresentation() async {
        let recorder = Recorder()
        let outcomes = Mutex<[PresentationOutcome]>([])
        let chain = ErrorPresentationChain(
            presenter: ScriptedPresenter(choice: { _ in .retry }, recorder: recorder),
            observer: { outcome in outcomes.withLock { $0.append(outcome) } })
        _ = await chain.run(maxAttempts: 2) { () throws -> Int in
            _ = recorder.run()
            throw GatewayError.rateLimited(retryAfter: .seconds(1))
        }
        let seen = outcomes.withLock { $0 }
        #expect(seen.map(\.attempt) == [1, 2])
        #expect(seen.map(\.chosen) == [.retry, .retry])
        #expect(seen.allSatisfy { $0.recovered && $0.offered == ["retry", "dismiss"] })
    }
}

struct PresentationChainTests {
    @Test func sessionAddsDefaultsAndAlwaysDismiss() async {
        let defaults = SessionDefaultsResponder()
        let plain = await defaults.willPresent(.invalidInput(reason: "empty"))
        #expect(plain?.offeredActions == [.dismiss])

        let config = await defaults.willPresent(.configuration(file: "catalogs/tr.yaml", line: 4, reason: "x"))
        #expect(config?.offeredActions == [.openSettings(path: "catalogs/tr.yaml"), .dismiss])

        let attached = await defaults.willPresent(GatewayError.timeout.adding(.retry))
        #expect(attached?.offeredActions == [.retry, .dismiss])
    }

    @Test func commandRewritesBeforeTheSessionAndThePresenter() async {
        let recorder = Recorder()
        let command = ClosureResponder { error in
            recorder.note("command saw \(error.code)")
            // The command knows it just showed crisis resources, and that an unsafe answer is
            // best shown to the user as the AI being unavailable.
            var rewritten = error.in(.afterEmergency)
            if rewritten.kind == .unsafeOutput { rewritten.kind = .aiUnavailable }
            return rewritten
        }
        let chain = ErrorPresentationChain(
            responders: [command, SessionDefaultsResponder()],
            presenter: ScriptedPresenter(choice: { _ in nil }, recorder: recorder))
        let outcome = await chain.present(GatewayError.unsafeOutput)
        #expect(outcome.error == .aiUnavailable)
        #expect(outcome.error?.context == .afterEmergency)
        #expect(outcome.chosen == nil && !outcome.recovered)
        #expect(
            recorder.events == ["command saw unsafeOutput", "present aiUnavailable [retry,dismiss] afterEmergency"])
    }

    @Test func aResponderCanSwallowAnError() async {
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in .retry }, recorder: recorder))
            .prepending(ClosureResponder { _ in nil })
        let outcome = await chain.present(GatewayError.timeout)
        #expect(outcome.error == nil)
        #expect(recorder.events.isEmpty)
    }

    @Test func unknownErrorsArriveAsInternalWithSupportAndDismiss() async {
        struct Boom: Error {}
        let recorder = Recorder()
        let chain = ErrorPresentationChain(presenter: ScriptedPresenter(choice: { _ in nil }, recorder: recorder))
        let outcome = await chain.present(Boom())
        #expect(outcome.error == .internal)
        #expect(outcome.error?.underlying is Boom)
        #expect(outcome.offered == ["contactSupport", "dismiss"])
    }

    @Test func presentationJSONUsesContractNames() {
        let presentation = ErrorPresentation(
            code: "timeout", symbol: "x", title: "T", message: "M\n",
            options: [
                .init(action: .retry, label: "Try again", key: "r"),
                .init(action: .dismiss, label: "Dismiss", key: "d"),
            ])
        #expect(
            presentation.json.text
                == #"{"code":"timeout","title":"T","message":"M\n","recovery":["retry","dismiss"]}"#)
    }
}
