/// One link of the presentation chain (seed `003_…`'s responder chain): sees an error on its way
/// to the user and may rewrite it, or swallow it by returning `nil`.
///
/// The command that hit the error is the innermost responder (it knows what the user was doing),
/// the session comes next (it adds defaults), and the outermost `ErrorPresenter` renders.
///
/// ```swift
/// struct RespondCommandResponder: ErrorResponder {
///     func willPresent(_ error: GatewayError) async -> GatewayError? {
///         error.in(.batch)   // nobody can press a key
///     }
/// }
/// ```
public protocol ErrorResponder: Sendable {
    /// Returns the error to pass on (possibly rewritten), or `nil` to stop it here.
    func willPresent(_ error: GatewayError) async -> GatewayError?
}

/// A responder made from a closure.
public struct ClosureResponder: ErrorResponder {
    private let body: @Sendable (GatewayError) async -> GatewayError?

    public init(_ body: @escaping @Sendable (GatewayError) async -> GatewayError?) { self.body = body }

    public func willPresent(_ error: GatewayError) async -> GatewayError? { await body(error) }
}

/// The session's defaults: an error whose creator attached no recovery options gets the options
/// its kind suggests (`GatewayError.suggestedActions`), and every error offers Dismiss.
///
/// Put it after the command's responder, so the command's rewrite comes first.
public struct SessionDefaultsResponder: ErrorResponder {
    public init() {}

    public func willPresent(_ error: GatewayError) async -> GatewayError? {
        var error = error
        if error.recoveryOptions.isEmpty {
            error.recoveryOptions = error.suggestedActions.map { RecoveryOption($0) }
        }
        if !error.recoveryOptions.contains(where: { $0.action == .dismiss }) {
            error.recoveryOptions.append(.dismiss)
        }
        return error
    }
}

/// The end of the chain: shows the error and returns the option the user chose.
///
/// A terminal REPL renders a card and reads a key; `safegate respond` prints the card (or JSON) and
/// chooses nothing; tests script the choice.
public protocol ErrorPresenter: Sendable {
    /// Shows `error` (its `recoveryOptions` are what to offer) and returns the chosen option, or
    /// `nil` when none was chosen.
    func present(_ error: GatewayError) async -> RecoveryOption?
}

/// What happened when an error was presented: for the caller and for the error log.
public struct PresentationOutcome: Sendable {
    /// The error as presented (after every responder), or `nil` when a responder swallowed it.
    public var error: GatewayError?
    /// The option the user chose, if any.
    public var chosen: RecoveryAction?
    /// Whether the chosen option's attempt reported recovery: the original action should run again.
    public var recovered: Bool
    /// Which run of the original action failed: 1 for the first.
    public var attempt: Int

    public init(error: GatewayError?, chosen: RecoveryAction?, recovered: Bool, attempt: Int) {
        self.error = error
        self.chosen = chosen
        self.recovered = recovered
        self.attempt = attempt
    }

    /// The stable names of the actions offered.
    public var offered: [String] { error?.offeredActions.map(\.name) ?? [] }
}

/// Passes errors from the innermost responder to the presenter, runs the chosen recovery, and
/// re-runs the original action when it recovered.
///
/// ```swift
/// let chain = ErrorPresentationChain(
///     responders: [commandResponder, SessionDefaultsResponder()],
///     presenter: terminalPresenter,
///     observer: { outcome in errorLog.record(outcome) })
/// let reply = await chain.run { try await gateway.respond(to: prompt) }
/// // .success(reply), or .failure(error) once the user dismissed it
/// ```
public struct ErrorPresentationChain: Sendable {
    /// The responders, innermost (the command) first.
    public var responders: [any ErrorResponder]
    /// The outermost presenter.
    public var presenter: any ErrorPresenter
    /// Told about every presentation, e.g. to write the error log.
    public var observer: (@Sendable (PresentationOutcome) async -> Void)?

    public init(
        responders: [any ErrorResponder] = [SessionDefaultsResponder()], presenter: any ErrorPresenter,
        observer: (@Sendable (PresentationOutcome) async -> Void)? = nil
    ) {
        self.responders = responders
        self.presenter = presenter
        self.observer = observer
    }

    /// A chain with `responder` in front (it becomes the innermost).
    public func prepending(_ responder: any ErrorResponder) -> ErrorPresentationChain {
        var copy = self
        copy.responders.insert(responder, at: 0)
        return copy
    }

    /// Presents `error` (converted to a `GatewayError`), runs the chosen option's attempt and
    /// reports whether it recovered.
    public func present(_ error: any Error, attempt: Int = 1) async -> PresentationOutcome {
        var current = GatewayError(from: error)
        for responder in responders {
            guard let next = await responder.willPresent(current) else {
                let outcome = PresentationOutcome(error: nil, chosen: nil, recovered: false, attempt: attempt)
                await observer?(outcome)
                return outcome
            }
            current = next
        }
        let chosen = await presenter.present(current)
        let recovered = await chosen?.attempt() ?? false
        let outcome = PresentationOutcome(
            error: current, chosen: chosen?.action, recovered: recovered, attempt: attempt)
        await observer?(outcome)
        return outcome
    }

    /// Runs `operation`; when it throws, presents the error, and when the chosen option recovers,
    /// runs `operation` again — at most `maxAttempts` runs in all.
    ///
    /// Returns the operation's value, or the last error as presented. Cancellation is not an
    /// error to show: a `CancellationError` (or any error once the task is cancelled) returns at
    /// once, unpresented.
    public func run<Value>(
        maxAttempts: Int = 3, _ operation: () async throws -> Value
    ) async -> Result<Value, GatewayError> {
        var attempt = 1
        while true {
            do {
                return .success(try await operation())
            } catch {
                if error is CancellationError || Task.isCancelled { return .failure(GatewayError(from: error)) }
                let outcome = await present(error, attempt: attempt)
                if outcome.recovered && attempt < max(1, maxAttempts) {
                    attempt += 1
                    continue
                }
                return .failure(outcome.error ?? GatewayError(from: error))
            }
        }
    }
}
