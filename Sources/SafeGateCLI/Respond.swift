import ArgumentParser
import Assistant
import Refusals
import SafetyClassifier
import SafetyCore

extension SafeGate {
    /// `safegate respond TEXT`: one turn of the full pipeline, non-interactive.
    struct Respond: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "respond",
            abstract: "Answer one prompt through the whole gateway: refusal, crisis message or the model's answer.",
            discussion: """
                Exit status: 0 with a reply; 69 when the language model could not answer (the error \
                card says why and what to do); 65 when the prompt could not be checked in full and \
                was not sent (error code `unchecked`: over --max-prompt-bytes, or a rule stopped at a \
                match limit; --fail-open sends it); 64, 70, 78 as in CONTRACT.md (78: the rule set \
                does not load, and nothing is answered).
                """)

        @Argument(help: "The prompt.")
        var text: String

        @Flag(help: "Print one JSON object (CONTRACT.md) instead of text.")
        var json = false

        @OptionGroup var classifierOptions: ClassifierOptions
        @OptionGroup var turnOptions: TurnOptions
        @OptionGroup var fakeOptions: FakeBackendOptions

        func run() async throws {
            let console = Console.current
            let classifier = try classifierOptions.makeClassifier()
            let (gateway, _) = try GatewayFactory.make(
                classifier: classifier, fake: fakeOptions, turn: turnOptions, console: console)
            let turn = await gateway.respond(
                to: text, settings: turnOptions.settings(profile: classifier.defaultProfile, console: console, context: .batch))

            // `respond` is a presenter too, one that cannot ask: the chain adds the session's
            // defaults (Dismiss at least), and the card shows the options for the caller to act on.
            var presented: (error: GatewayError, presentation: ErrorPresentation)?
            if let error = turn.error {
                let recorder = RecordingPresenter()
                let chain = ErrorPresentationChain(presenter: recorder)
                let outcome = await chain.present(error)
                let shown = outcome.error ?? error
                presented = (shown, gateway.refusals.presentation(for: shown, language: turn.language))
            }

            if json {
                var object = JSONText.Object()
                // A prompt that failed closed has no label (as in `classify`): the one found could be too mild.
                let decision = turn.decision
                object["label"] = decision.failedClosed ? .null : .string(decision.classification.label.rawValue)
                object["type"] = decision.failedClosed ? .null : .optional(decision.classification.type?.rawValue)
                object["lang"] = .string(turn.language.rawValue)
                object["reply"] = .optional(turn.reply)
                object["resources"] = turn.offlineReply?.resourcesJSON ?? .array([])
                object["blocked_output"] = .bool(turn.blockedOutput)
                if let presented {
                    var error = JSONText.Object()
                    error["code"] = .string(presented.presentation.code)
                    error["title"] = .string(presented.presentation.title)
                    error["message"] = .string(presented.presentation.message)
                    error["recovery"] = .array(presented.presentation.recoveryNames.map { .string($0) })
                    object["error"] = .object(error)
                } else {
                    object["error"] = .null
                }
                object["rules"] = .array(turn.decision.decidingRuleIDs.map { .string($0) })
                if let truncation = decision.truncation { object["truncated"] = OutputRecord.json(truncation) }
                if !decision.isComplete { object["incomplete"] = .bool(true) }
                console.print(object.text)
            } else if let reply = turn.reply {
                console.print(TerminalText.escapedKeepingLines(reply))
            } else if let presented {
                console.print(
                    ErrorCard.render(
                        presented.presentation, style: .init(color: console.stdoutIsTerminal && console.environment["NO_COLOR"] == nil, interactive: false)))
            }
            if let error = presented?.error { throw GatewayFactory.exitStatus(for: error) }
        }
    }
}

/// A presenter that cannot ask anyone: it chooses nothing, so nothing is retried.
struct RecordingPresenter: ErrorPresenter {
    func present(_ error: GatewayError) async -> RecoveryOption? { nil }
}
