import ArgumentParser
import Assistant
import Foundation
import Refusals
import Resilience
import SafetyClassifier
import SafetyCore

/// The fake language-model backend's controls (CONTRACT.md), with their environment fallbacks.
struct FakeBackendOptions: ParsableArguments {
    @Option(help: "The language-model backend (only 'fake' exists today).")
    var backend = "fake"

    @Option(name: .customLong("fake-failures"), help: "Comma list consumed one per call, then ok: ok, timeout, unavailable, rateLimited, malformed, unsafe. Env: SAFEGATE_FAKE_FAILURES.")
    var failures: String?

    @Option(name: .customLong("fake-failure-rate"), help: "Probability that a call past the script fails. Env: SAFEGATE_FAKE_FAILURE_RATE.")
    var failureRate: Double?

    @Option(help: "Seed for random failures and retry jitter. Env: SAFEGATE_SEED.")
    var seed: UInt64?

    @Option(name: .customLong("fake-latency"), help: "Milliseconds the fake takes to answer. Env: SAFEGATE_FAKE_LATENCY_MS.")
    var latencyMS: Int?

    @Option(help: "Attempts per backend call, retries included.")
    var maxAttempts: Int = RetryPolicy.default.maxAttempts

    @Option(help: "First retry delay in milliseconds (doubles per retry, with jitter; 0: retry at once).")
    var retryDelayMs: Int = 1000

    func validate() throws {
        guard backend == "fake" else { throw ValidationError("--backend: only 'fake' exists today, got '\(backend)'") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard retryDelayMs >= 0 else { throw ValidationError("--retry-delay-ms must not be negative") }
        if let failureRate, !(0...1).contains(failureRate) {
            throw ValidationError("--fake-failure-rate must be between 0 and 1, got \(failureRate)")
        }
        if let latencyMS, latencyMS < 0 { throw ValidationError("--fake-latency must not be negative") }
        if let failures {
            do { _ = try FakeOutcome.parseScript(failures) } catch { throw ValidationError("--fake-failures: \(error)") }
        }
    }

    /// The settings, flags first, then the environment; a bad environment value is a usage error.
    func settings(environment: [String: String]) throws -> FakeLLMBackend.Settings {
        var settings = FakeLLMBackend.Settings()
        if let spec = failures ?? environment["SAFEGATE_FAKE_FAILURES"] {
            do { settings.script = try FakeOutcome.parseScript(spec) } catch {
                throw ValidationError("SAFEGATE_FAKE_FAILURES: \(error)")
            }
        }
        if let rate = try failureRate ?? Self.number("SAFEGATE_FAKE_FAILURE_RATE", environment, Double.init) {
            guard (0...1).contains(rate) else { throw ValidationError("SAFEGATE_FAKE_FAILURE_RATE must be between 0 and 1") }
            settings.failureRate = rate
        }
        settings.seed = try seed ?? Self.number("SAFEGATE_SEED", environment, UInt64.init) ?? 0
        if let latency = try latencyMS ?? Self.number("SAFEGATE_FAKE_LATENCY_MS", environment, Int.init) {
            guard latency >= 0 else { throw ValidationError("SAFEGATE_FAKE_LATENCY_MS must not be negative") }
            settings.latency = .milliseconds(latency)
        }
        return settings
    }

    static func number<T>(_ name: String, _ environment: [String: String], _ parse: (String) -> T?) throws -> T? {
        guard let text = environment[name], !text.isEmpty else { return nil }
        guard let value = parse(text) else { throw ValidationError("\(name): not a valid number: \(text)") }
        return value
    }
}

/// Locale, region and error-log flags of the assistant commands.
struct TurnOptions: ParsableArguments {
    @Option(help: "Your locale, e.g. en-US or tr-TR: the reply language when the prompt's cannot be told.")
    var locale: String?

    @Option(help: "Your region (ISO country code, e.g. TR, US) for crisis resources; default: from the locale, then LANG.")
    var region: String?

    @Option(help: "Error log file (default: $XDG_STATE_HOME/safegate/errors.jsonl).")
    var logFile: String?

    @Flag(help: "Write prompt text to the error log (by default only a hash prefix and the length).")
    var logPrompts = false

    @Flag(help: "Write no error log.")
    var noLog = false

    func validate() throws {
        if let region, LocaleResolver.normalizedRegion(region) == nil {
            throw ValidationError("--region: expected a two-letter country code such as TR or US, got '\(region)'")
        }
    }

    /// The error log, or nil when disabled or it cannot be created (a warning says so).
    func errorLog(console: Console) -> ErrorLog? {
        guard !noLog else { return nil }
        guard let path = logFile ?? ErrorLog.defaultPath(environment: console.environment) else { return nil }
        do {
            return try ErrorLog(path: path, logPrompts: logPrompts)
        } catch {
            console.printError("safegate: warning: no error log: \(error)")
            return nil
        }
    }

    func settings(profile: Profile, console: Console, context: ErrorContext = .smallTalk) -> TurnSettings {
        TurnSettings(
            profile: profile, locale: locale, region: region,
            environmentLocale: LocaleResolver.environmentLocale(console.environment), errorContext: context)
    }
}

/// Builds the gateway the assistant commands share.
enum GatewayFactory {
    static func make(
        classifier: SafetyClassifier, fake: FakeBackendOptions, turn: TurnOptions, console: Console,
        onEvent: @escaping @Sendable (ResilienceEvent) -> Void = { _ in }
    ) throws -> (gateway: Gateway, backend: FakeLLMBackend) {
        let refusals: RefusalGenerator
        do {
            refusals = try RefusalGenerator.bundled()
        } catch {
            console.printError("safegate: \(error)")
            throw ExitStatus.configuration
        }
        let settings: FakeLLMBackend.Settings
        do {
            settings = try fake.settings(environment: console.environment)
        } catch {
            console.printError("safegate: \(error)")
            throw ExitStatus.usage
        }
        let backend = FakeLLMBackend(settings: settings)
        let caller = ResilientCaller(
            retry: RetryPolicy(maxAttempts: fake.maxAttempts, initialDelay: .milliseconds(fake.retryDelayMs)),
            random: SplitMix64(seed: settings.seed),
            log: turn.errorLog(console: console), onEvent: onEvent)
        return (Gateway(classifier: classifier, refusals: refusals, backend: backend, caller: caller), backend)
    }

    /// The process exit status for a turn that ended in `error` (CONTRACT.md, plus 69: the
    /// language model could not answer).
    static func exitStatus(for error: GatewayError) -> ExitCode {
        switch error.category {
        case .configuration: ExitStatus.configuration
        case .validation: ExitStatus.malformedInput
        case .internal: ExitStatus.internalError
        case .transient, .rateLimited, .offline, .serverError: ExitStatus.unavailable
        }
    }
}
