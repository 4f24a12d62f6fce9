public import Refusals
public import Resilience
public import SafetyClassifier
public import SafetyCore
import RuleEngine

/// The pipeline every user message goes through: classify, then answer offline (refusal,
/// off-topic redirect, crisis message) or ask the language model through the resilience layer,
/// and check what it answers before the user sees it.
///
/// ```swift
/// let gateway = Gateway(classifier: classifier, refusals: try .bundled(), backend: FakeLLMBackend(),
///                       caller: ResilientCaller())
/// let turn = await gateway.respond(to: "I want to kill myself", settings: TurnSettings(region: "US"))
/// turn.reply        // the caring message, with 988 first
/// turn.resources    // the crisis services it lists
/// ```
/// When the language model is down, classifying, refusing and crisis resources keep working:
/// only `safe` prompts need the backend, and their failure is a typed `GatewayError`.
public final class Gateway: Sendable {
    public let classifier: SafetyClassifier
    public let refusals: RefusalGenerator
    public let backend: any LLMBackend
    public let caller: ResilientCaller
    public let resolver: LocaleResolver

    public init(
        classifier: SafetyClassifier, refusals: RefusalGenerator, backend: any LLMBackend, caller: ResilientCaller,
        resolver: LocaleResolver = LocaleResolver()
    ) {
        self.classifier = classifier
        self.refusals = refusals
        self.backend = backend
        self.caller = caller
        self.resolver = resolver
    }

    /// Answers one user message.
    ///
    /// Never throws: a failure comes back as `Turn.error`, converted to `GatewayError` with the
    /// turn's context (so a backend outage right after an emergency reply says the crisis
    /// resources still work). Cancelling the task (Ctrl-C) gives `Turn.cancelled`.
    public func respond(
        to prompt: String, settings: TurnSettings = TurnSettings(), onEvent: (ResilienceEvent) -> Void = { _ in }
    ) async -> Turn {
        let session = classifier.makeSession()
        let profile = settings.profile ?? classifier.defaultProfile
        let decision = session.classify(prompt, profile: profile, localeLanguage: settings.localeLanguage)
        let language = resolver.language(
            detected: decision.language == .und ? nil : decision.language, locale: settings.locale,
            environment: settings.environmentLocale)
        let region = resolver.region(flag: settings.region, locale: settings.locale, environment: settings.environmentLocale)
        var turn = Turn(prompt: prompt, decision: decision, language: language, region: region)

        // Fail closed (DEVELOPERS.md "Fail-safe policy"): a prompt whose label could be too mild —
        // too long to classify whole, or a rule that could have flagged it stopped at a limit — is
        // neither forwarded nor answered with a redirect; the user is told how to get it checked.
        if decision.failedClosed {
            let reason: GatewayError.UncheckedReason =
                decision.truncation.map { .tooLong(bytes: $0.totalBytes, limit: $0.limit) } ?? .searchLimit
            turn.error = GatewayError(.unchecked(reason), underlying: UncheckedPrompt(reason: decision.incompleteReason))
                .in(settings.errorContext)
            return turn
        }

        let identity = AssistantIdentity(displayName: profile.displayName(in: language), helpsWith: profile.helpsWith)
        if let reply = refusals.reply(to: decision.classification, language: language, region: region, assistant: identity) {
            turn.reply = reply.text
            turn.offlineReply = reply
            return turn
        }

        // Safe: the language model answers, through the circuit breaker and retry policy.
        let request = BackendRequest(prompt: prompt, language: language, profileName: profile.name)
        let answer: String
        do {
            answer = try await caller.call(prompt: PromptInfo(prompt), onEvent: onEvent) {
                try await backend.reply(to: request)
            }
        } catch is CancellationError {
            turn.cancelled = true
            return turn
        } catch {
            // The creator of the error attaches its way out: a retryable failure offers Try again,
            // which recovers by running the turn once more (the presenter re-runs it).
            var failure = GatewayError(from: error).in(settings.errorContext)
            if failure.isRetryable && failure.recoveryOptions.isEmpty { failure = failure.adding(.retry) }
            turn.error = failure
            return turn
        }

        // The output check: the answer is classified too, and an unsafe one never reaches the user.
        let output = session.classify(answer, profile: .general, localeLanguage: language)
        switch output.classification {
        case .harmful, .emergency:
            let type = output.classification.type ?? .selfHarm
            let replacement = refusals.refusal(type, language: language, region: region)
            turn.reply = replacement.text
            turn.offlineReply = replacement
            turn.blockedOutput = true
            turn.outputDecision = output
            try? caller.log?.append(
                ErrorLogEvent(
                    kind: .outputBlocked,
                    failure: FailureClassification(GatewayError(.unsafeOutput)),
                    outcome: .recovered, prompt: PromptInfo(prompt)))
        case .safe, .offTopic:
            turn.reply = answer
        }
        return turn
    }

    /// Whether the language model can be reached (the REPL's status line).
    public var availability: Availability { caller.availability }
}

/// Why a prompt failed closed, kept as the `unchecked` error's underlying error for the log.
public struct UncheckedPrompt: Error, Sendable, CustomStringConvertible {
    /// `Decision.incompleteReason`.
    public var reason: String?
    public var description: String { reason ?? "the classification is incomplete" }
}

/// Per-turn settings: who the assistant is, and the user's locale and region flags.
public struct TurnSettings: Sendable {
    public var profile: Profile?
    /// `--locale` (e.g. `tr-TR`), used when the prompt's language cannot be told.
    public var locale: String?
    /// `--region` (e.g. `TR`), for crisis resources.
    public var region: String?
    /// The environment's locale (`LANG`), the last resort for language and region.
    public var environmentLocale: String?
    /// What the user was just shown, for context-aware error messages.
    public var errorContext: ErrorContext

    public init(
        profile: Profile? = nil, locale: String? = nil, region: String? = nil, environmentLocale: String? = nil,
        errorContext: ErrorContext = .smallTalk
    ) {
        self.profile = profile
        self.locale = locale
        self.region = region
        self.environmentLocale = environmentLocale
        self.errorContext = errorContext
    }

    /// The locale's language, as a hint for Turkic case folding.
    var localeLanguage: Language? {
        guard let locale else { return nil }
        return locale.lowercased().hasPrefix("tr") ? .tr : nil
    }
}

/// One turn of the conversation: what safegate decided and what the user sees.
public struct Turn: Sendable {
    public var prompt: String
    public var decision: Decision
    /// The language of the reply.
    public var language: Language
    /// The region crisis resources are for, when known.
    public var region: String?
    /// What the user reads; `nil` when the turn failed or was cancelled.
    public var reply: String?
    /// The refusal, redirect or crisis message safegate answered with itself, if it did.
    public var offlineReply: Reply?
    /// The backend's answer failed the output check and was replaced.
    public var blockedOutput = false
    /// The output check's decision on a blocked answer.
    public var outputDecision: Decision?
    /// Why there is no reply.
    public var error: GatewayError?
    /// The user cancelled the request in flight.
    public var cancelled = false

    init(prompt: String, decision: Decision, language: Language, region: String?) {
        self.prompt = prompt
        self.decision = decision
        self.language = language
        self.region = region
    }

    /// The crisis resources shown with the reply.
    public var resources: [CrisisService] { offlineReply?.resources ?? [] }

    /// The error context for the next turn: after crisis resources were shown, an error must say
    /// they still work.
    public var errorContextForNextTurn: ErrorContext {
        offlineReply?.errorContextForNextTurn ?? .smallTalk
    }
}
