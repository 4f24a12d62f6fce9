public import SafetyCore

/// Draws an `ErrorPresentation` for a terminal, as plain strings:
///
/// ```
/// ⊘ The AI can't be reached
///   The AI isn't answering right now. Safety checks and crisis resources still work.
///   [r] Try again  [d] Dismiss
/// ```
///
/// Every piece of text is escaped (no raw control characters, ANSI sequences or bidi overrides
/// reach the terminal); the only escape sequences in the output are the card's own colours,
/// and only when `Style.color` is on.
public enum ErrorCard {
    public struct Style: Sendable, Hashable {
        /// Colour with ANSI SGR sequences.
        public var color: Bool
        /// Show options as keys to press (`[r] Try again`); otherwise as a list of what one can do.
        public var interactive: Bool

        public init(color: Bool = false, interactive: Bool = true) {
            self.color = color
            self.interactive = interactive
        }
    }

    /// The card, lines separated by `\n`, ending without a newline.
    public static func render(
        _ presentation: ErrorPresentation, style: Style = Style(), optionsHeading: String = ""
    ) -> String {
        let paint = Painter(enabled: style.color)
        let symbol = paint(presentation.symbol, colorCode(for: presentation.code))
        var lines = [symbol + " " + paint(TerminalEscaping.escaped(presentation.title), "1")]
        for line in presentation.message.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append("  " + TerminalEscaping.escaped(String(line)))
        }
        if !presentation.options.isEmpty {
            if style.interactive {
                lines.append(
                    "  "
                        + presentation.options.map { option in
                            paint("[" + TerminalEscaping.escaped(option.key) + "]", "1") + " "
                                + TerminalEscaping.escaped(option.label)
                        }.joined(separator: "  "))
            } else {
                let list = presentation.options.map { TerminalEscaping.escaped($0.label) }.joined(separator: " · ")
                lines.append(
                    "  " + (optionsHeading.isEmpty ? list : TerminalEscaping.escaped(optionsHeading) + " " + list))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Yellow for passing trouble, red for failures, magenta for configuration.
    private static func colorCode(for code: String) -> String {
        switch code {
        case "aiUnavailable", "timeout", "rateLimited": "33"
        case "configuration": "35"
        case "invalidInput": "36"
        default: "31"
        }
    }

    private struct Painter {
        let enabled: Bool
        func callAsFunction(_ text: String, _ sgr: String) -> String {
            enabled ? "\u{1B}[\(sgr)m" + text + "\u{1B}[0m" : text
        }
    }
}

extension RefusalGenerator {
    /// The card for `error` in `language`; non-interactive cards list the options after the
    /// catalog's `ui.options` heading.
    public func errorCard(for error: GatewayError, language: Language, style: ErrorCard.Style = .init()) -> String {
        ErrorCard.render(
            presentation(for: error, language: language), style: style,
            optionsHeading: catalog(language).text(.uiOptions))
    }
}
