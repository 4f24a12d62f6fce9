public import SafetyCore

/// What the resilience machinery needs to know about a failure: its code and category for the
/// counters and the log, whether to retry it, how long the backend asked to wait, and whether it
/// says anything about the backend's health (and so counts towards the circuit breaker).
///
/// The default classification converts the error to a `GatewayError` (`GatewayError(from:)`):
///
/// ```swift
/// let failure = FailureClassification(GatewayError.rateLimited(retryAfter: .seconds(2)))
/// failure.isRetryable   // true
/// failure.retryAfter    // 2 seconds
/// ```
///
/// Tests and other callers may classify errors their own way (`ResilientCaller(classify:)`).
public struct FailureClassification: Sendable, Hashable {
    /// The stable error code, e.g. `aiUnavailable`.
    public var code: String
    /// The category, e.g. `.offline`.
    public var category: ErrorCategory
    /// Whether running the operation again may succeed; by default `category.isRetryable`.
    public var isRetryable: Bool
    /// How long the backend asked to wait before the next try (rate limits).
    public var retryAfter: Duration?
    /// Whether the failure says the backend is unwell, so the circuit breaker and the error-rate
    /// window count it. Bad input, bad configuration and bugs in safegate do not: the backend may be
    /// fine. By default `category.isRetryable`.
    public var isBackendFailure: Bool
    /// The error in words for the log (type and description of the underlying error); never shown
    /// to users, escaped when written.
    public var detail: String?

    public init(
        code: String, category: ErrorCategory, isRetryable: Bool? = nil, retryAfter: Duration? = nil,
        isBackendFailure: Bool? = nil, detail: String? = nil
    ) {
        self.code = code
        self.category = category
        self.isRetryable = isRetryable ?? category.isRetryable
        self.retryAfter = retryAfter
        self.isBackendFailure = isBackendFailure ?? category.isRetryable
        self.detail = detail
    }

    /// The classification of a user-facing error: its code, category and `retryAfter`.
    public init(_ error: GatewayError) {
        self.init(
            code: error.code, category: error.category, retryAfter: error.retryAfter,
            detail: error.underlyingDescription ?? error.description)
    }

    /// The default classifier: `GatewayError(from:)`, so unknown errors are `internal` (not retried).
    public static let gateway: @Sendable (any Error) -> FailureClassification = { error in
        FailureClassification(GatewayError(from: error))
    }
}
