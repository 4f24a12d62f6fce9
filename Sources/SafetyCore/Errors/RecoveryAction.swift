/// A way out of an error that the user can choose.
///
/// `name` is the stable spelling used in JSON output (`"recovery": ["retry", "dismiss"]`) and logs.
///
/// ```swift
/// RecoveryAction.openSettings(path: "rules/en/violence.yaml").name  // "openSettings"
/// ```
public enum RecoveryAction: Sendable, Hashable {
    /// Run the action that failed again.
    case retry
    /// Put the error away and carry on.
    case dismiss
    /// Report the problem to whoever runs this gateway.
    case contactSupport
    /// Edit the configuration file at `path`, then try again.
    case openSettings(path: String)

    /// The stable name of the action: `retry`, `dismiss`, `contactSupport` or `openSettings`.
    public var name: String {
        switch self {
        case .retry: "retry"
        case .dismiss: "dismiss"
        case .contactSupport: "contactSupport"
        case .openSettings: "openSettings"
        }
    }

    /// Every action name, in the order cards list them.
    public static let allNames = ["retry", "openSettings", "contactSupport", "dismiss"]
}

/// A recovery action together with the code that attempts it (seed `003_…`'s recovery attempter).
///
/// The creator of an error knows how to recover from it and attaches options; the presenter shows
/// them, runs the one the user picks and learns from `attempt`'s result whether the error was
/// recovered from. When it was, the original action runs again.
///
/// ```swift
/// let error = GatewayError.configuration(file: "profiles/calendar.yaml", line: 3, reason: "unknown key")
///     .adding(RecoveryOption(.openSettings(path: "profiles/calendar.yaml")) { await reloadProfiles() })
/// ```
public struct RecoveryOption: Sendable {
    /// What the option does, as the user sees it.
    public var action: RecoveryAction
    /// Attempts the recovery; returns `true` when the error is recovered from and the original
    /// action should run again.
    public var attempt: @Sendable () async -> Bool

    /// An option for `action` whose `attempt` tells whether it recovered.
    public init(_ action: RecoveryAction, attempt: @escaping @Sendable () async -> Bool) {
        self.action = action
        self.attempt = attempt
    }

    /// The default option for `action`: `retry` always reports success (so the original action
    /// runs again); `dismiss`, `contactSupport` and `openSettings` report no recovery, since the
    /// user has to do something outside safegate first.
    public init(_ action: RecoveryAction) {
        switch action {
        case .retry: self.init(action) { true }
        case .dismiss, .contactSupport, .openSettings: self.init(action) { false }
        }
    }

    /// Try again: recovers, so the original action runs again.
    public static var retry: RecoveryOption { RecoveryOption(.retry) }
    /// Dismiss: never recovers.
    public static var dismiss: RecoveryOption { RecoveryOption(.dismiss) }
}
