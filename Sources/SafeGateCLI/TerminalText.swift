import SafetyCore

/// Untrusted text on a terminal goes through SafetyCore's `TerminalEscaping`: control
/// characters, escape sequences, bidi overrides and invisible characters are shown as `\u{…}`.
typealias TerminalText = TerminalEscaping
