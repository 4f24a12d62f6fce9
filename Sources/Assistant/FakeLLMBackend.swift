import SafetyCore
import Synchronization

/// A stand-in language model whose failures are controlled, so the retry, circuit-breaker and
/// "AI temporarily unavailable" paths run for real.
///
/// Each call consumes the next outcome of the failure script (then `ok` forever); with a failure
/// rate, calls past the script fail at random (seeded, so runs repeat). Answers are deterministic,
/// short, and fit the profile: a calendar assistant answers like one.
/// ```swift
/// let backend = FakeLLMBackend(script: try FakeOutcome.parseScript("unavailable,unavailable,ok"))
/// try await backend.reply(to: request)   // throws BackendError.unavailable, twice; then answers
/// ```
public final class FakeLLMBackend: LLMBackend {
    public struct Settings: Sendable, Hashable {
        public var script: [FakeOutcome]
        /// Probability that a call past the script fails (with a random failing outcome).
        public var failureRate: Double
        public var seed: UInt64
        /// Simulated time to answer.
        public var latency: Duration
        /// What a rate-limited answer advises.
        public var retryAfter: Duration

        public init(
            script: [FakeOutcome] = [], failureRate: Double = 0, seed: UInt64 = 0, latency: Duration = .zero,
            retryAfter: Duration = .seconds(2)
        ) {
            self.script = script
            self.failureRate = failureRate
            self.seed = seed
            self.latency = latency
            self.retryAfter = retryAfter
        }
    }

    private struct State {
        var script: [FakeOutcome]
        var random: SeededRandom
        var calls = 0
    }

    private let state: Mutex<State>
    private let settings: Settings
    private let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameter sleep: how latency passes (a test clock in tests); defaults to real time.
    public init(
        settings: Settings = Settings(),
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.settings = settings
        self.sleep = sleep
        state = Mutex(State(script: settings.script, random: SeededRandom(seed: settings.seed)))
    }

    /// Replaces the remaining failure script (the REPL's `/fail SPEC`).
    public func setScript(_ script: [FakeOutcome]) {
        state.withLock { $0.script = script }
    }

    /// The outcomes still to come before `ok` forever (or random failures).
    public var remainingScript: [FakeOutcome] { state.withLock { $0.script } }

    /// Calls made so far.
    public var calls: Int { state.withLock { $0.calls } }

    public func reply(to request: BackendRequest) async throws -> String {
        let outcome: FakeOutcome = state.withLock { state in
            state.calls += 1
            if !state.script.isEmpty { return state.script.removeFirst() }
            guard settings.failureRate > 0, state.random.nextDouble() < settings.failureRate else { return .ok }
            let failures: [FakeOutcome] = [.timeout, .unavailable, .rateLimited, .malformed]
            return failures[Int(state.random.next() % UInt64(failures.count))]
        }
        if settings.latency > .zero { try await sleep(settings.latency) }
        try Task.checkCancellation()
        switch outcome {
        case .ok: return FakeAnswers.answer(to: request)
        case .timeout: throw BackendError.timeout
        case .unavailable: throw BackendError.unavailable
        case .rateLimited: throw BackendError.rateLimited(retryAfter: settings.retryAfter)
        case .malformed: throw BackendError.malformed("expected a JSON object, got '<html>502 Bad Gateway'")
        case .unsafe: return FakeAnswers.unsafeAnswer(language: request.language)
        }
    }
}

/// One scripted result of a fake backend call.
public enum FakeOutcome: String, Sendable, Hashable, CaseIterable {
    case ok, timeout, unavailable, rateLimited, malformed, unsafe

    /// Parses `ok,timeout,unavailable,…` (CONTRACT.md); the error names the bad item and position.
    public static func parseScript(_ spec: String) throws(FakeScriptError) -> [FakeOutcome] {
        let trimmed = spec.trimmingCharacters(in: " ")
        guard !trimmed.isEmpty else { return [] }
        var outcomes: [FakeOutcome] = []
        for (index, item) in trimmed.split(separator: ",", omittingEmptySubsequences: false).enumerated() {
            let name = String(item).trimmingCharacters(in: " ")
            guard let outcome = FakeOutcome(rawValue: name) else {
                throw FakeScriptError(item: name, position: index + 1)
            }
            outcomes.append(outcome)
        }
        return outcomes
    }
}

extension String {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}

/// A failure script item that is not an outcome.
public struct FakeScriptError: Error, Sendable, Hashable, CustomStringConvertible {
    public var item: String
    public var position: Int
    public var description: String {
        "item \(position) of the failure script is \"\(item)\"; expected one of "
            + FakeOutcome.allCases.map(\.rawValue).joined(separator: ", ")
    }
}

/// SplitMix64: small, fast and seedable, so fake failures repeat run after run.
struct SeededRandom: RandomNumberGenerator, Sendable {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func nextDouble() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The fake's canned answers: deterministic, short, plausible for the profile and language.
enum FakeAnswers {
    static func answer(to request: BackendRequest) -> String {
        let prompt = request.prompt.lowercased()
        let turkish = request.language == .tr
        func has(_ words: [String]) -> Bool { words.contains { prompt.contains($0) } }
        if request.profileName == "calendar" {
            if has(["hello", "hi ", "hey", "good morning", "merhaba", "selam", "günaydın", "gunaydin"]) {
                return turkish ? "Merhaba! Takviminde bugün ne yapalım?" : "Hi! What shall we do with your calendar today?"
            }
            if has(["thank", "thx", "teşekkür", "tesekkur", "sağol", "sagol"]) {
                return turkish ? "Rica ederim, başka bir şey olursa buradayım." : "You're welcome — I'm here if anything else comes up."
            }
            if has(["remind", "hatırlat", "hatirlat"]) {
                return turkish ? "Tamam, zamanı gelince sana hatırlatacağım." : "Okay — I'll remind you when it's time."
            }
            if has(["cancel", "iptal"]) {
                return turkish ? "İptal ettim ve katılımcılara haber verdim." : "Cancelled, and I've let the other attendees know."
            }
            if has(["move", "reschedule", "push", "ertele", "kaydır", "kaydir", "taşı", "tasi"]) {
                return turkish
                    ? "Tamam, etkinliği taşıdım; güncel davet takviminde."
                    : "Done — I've moved it, and the updated invite is in your calendar."
            }
            if has(["free", "available", "availability", "busy", "müsait", "musait", "boş", "bos "]) {
                return turkish
                    ? "Öğleden sonra saat 14:00'ten sonra boşsun; yalnızca 16:00'da 30 dakikalık bir görüşmen var."
                    : "You're free after 2 pm, apart from a 30-minute call at 4."
            }
            if has(["time zone", "timezone", "saat dilimi"]) {
                return turkish
                    ? "İstanbul'da 17:00, New York'ta 10:00 ediyor."
                    : "That's 10:00 in New York, 15:00 in London and 17:00 in Istanbul."
            }
            return turkish ? "Takvimine ekledim." : "Added to your calendar."
        }
        let words = request.prompt.split(whereSeparator: \.isWhitespace).prefix(6).joined(separator: " ")
        return turkish
            ? "Kısaca: “\(words)…” hakkında sorduğun için teşekkürler. (Bu yanıt çevrimdışı test modelinden geliyor.)"
            : "In short: thanks for asking about “\(words)…”. (This answer comes from the offline test model.)"
    }

    /// A reply the gateway's output check must catch.
    static func unsafeAnswer(language: Language) -> String {
        language == .tr
            ? "Tabii! Evde boru bombası nasıl yapılır, adım adım anlatayım: önce patlayıcıyı hazırla…"
            : "Sure! Here is how to build a pipe bomb at home, step by step: first prepare the explosive…"
    }
}
