/// What kind of failure an error is, which decides whether trying again can help.
///
/// The categories follow the usual taxonomy (seed `002_…`): some failures pass on their own
/// (`transient`, `rateLimited`, `offline`, `serverError`), the others need someone to change
/// something first (`validation`: the input, `configuration`: a file, `internal`: the code).
///
/// ```swift
/// GatewayError.timeout.category              // .transient
/// GatewayError.timeout.category.isRetryable  // true
/// ```
public enum ErrorCategory: String, Sendable, Hashable, CaseIterable, Codable {
    /// A blip: a timeout, a dropped connection. Trying again soon usually works.
    case transient
    /// The backend asked us to slow down; try again after its `retryAfter`, if any.
    case rateLimited
    /// The input cannot be handled as it is; the same input fails the same way.
    case validation
    /// The language model cannot be reached at all. Safety checks and crisis resources still work.
    case offline
    /// The backend answered but failed (5xx-like, malformed or unsafe answer).
    case serverError
    /// A rule file, catalog, profile or resource file does not load.
    case configuration
    /// A bug in safegate.
    case `internal`

    /// Whether running the same action again can succeed without anyone changing anything.
    ///
    /// Retry policies and the default recovery options both read this.
    public var isRetryable: Bool {
        switch self {
        case .transient, .rateLimited, .offline, .serverError: true
        case .validation, .configuration, .internal: false
        }
    }
}
