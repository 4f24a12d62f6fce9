public import SafetyCore

/// A language-model backend: given a prompt that passed the safety check, an answer.
///
/// Cancellable through task cancellation (a cancelled call throws `CancellationError`).
/// Failures are `BackendError`s, which convert to the user-facing `GatewayError` at the
/// gateway's boundary.
public protocol LLMBackend: Sendable {
    /// Answers `request`, or throws.
    func reply(to request: BackendRequest) async throws -> String
}

/// What the gateway asks a backend.
public struct BackendRequest: Sendable, Hashable {
    public var prompt: String
    /// The prompt's language (the answer should be in it).
    public var language: Language
    /// The assistant profile's name (`general`, `calendar`, …).
    public var profileName: String

    public init(prompt: String, language: Language, profileName: String) {
        self.prompt = prompt
        self.language = language
        self.profileName = profileName
    }
}

/// How a backend call fails; module-local, converted at the boundary (seed 001, "Open-Closed").
public enum BackendError: Error, Sendable, Hashable, GatewayErrorConvertible, CustomStringConvertible {
    /// No answer within the deadline.
    case timeout
    /// The service is down or unreachable.
    case unavailable
    /// Too many requests; try again after the advised time, if any.
    case rateLimited(retryAfter: Duration?)
    /// The answer could not be understood.
    case malformed(String)

    public var gatewayError: GatewayError {
        switch self {
        case .timeout: GatewayError(.timeout, underlying: self)
        case .unavailable: GatewayError(.backendFailed, underlying: self)
        case .rateLimited(let retryAfter): .rateLimited(retryAfter: retryAfter)
        case .malformed: GatewayError(.backendFailed, underlying: self)
        }
    }

    public var description: String {
        switch self {
        case .timeout: "backend timed out"
        case .unavailable: "backend unavailable (503)"
        case .rateLimited(let retryAfter): "backend rate limited (429)\(retryAfter.map { ", retry after \($0)" } ?? "")"
        case .malformed(let detail): "backend answer malformed: \(detail)"
        }
    }
}
