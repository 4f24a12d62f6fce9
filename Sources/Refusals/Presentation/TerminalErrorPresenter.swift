public import SafetyCore

/// The outermost presenter of an interactive terminal session: draws the error card, asks for a
/// key and returns the chosen recovery option. End of input (or three unknown answers) chooses
/// Dismiss.
///
/// ```swift
/// let chain = ErrorPresentationChain(
///     responders: [turnResponder, SessionDefaultsResponder()],
///     presenter: TerminalErrorPresenter(
///         generator: refusals, language: .tr, color: console.stdoutIsTerminal,
///         write: { console.writeOut($0) }, readLine: { lineEditor.read() }))
/// ```
public struct TerminalErrorPresenter: ErrorPresenter {
    public let generator: RefusalGenerator
    public let language: Language
    public let color: Bool
    private let write: @Sendable (String) async -> Void
    private let readLine: @Sendable () async -> String?

    /// - Parameters:
    ///   - write: writes text (the card ends with a newline).
    ///   - readLine: reads one answer; `nil` at end of input.
    public init(
        generator: RefusalGenerator, language: Language, color: Bool,
        write: @escaping @Sendable (String) async -> Void, readLine: @escaping @Sendable () async -> String?
    ) {
        self.generator = generator
        self.language = language
        self.color = color
        self.write = write
        self.readLine = readLine
    }

    public func present(_ error: GatewayError) async -> RecoveryOption? {
        let presentation = generator.presentation(for: error, language: language)
        await write(ErrorCard.render(presentation, style: .init(color: color, interactive: true)) + "\n")
        // Same order as `presentation.options`, so the key's index picks the attempt.
        let options = RefusalGenerator.effectiveOptions(of: error)
        let dismiss = options.first { $0.action == .dismiss }
        for _ in 0..<3 {
            await write(generator.interface(language).choosePrompt + " ")
            guard let answer = await readLine() else { return dismiss }
            let key = answer.trimmingCharacters(in: " \t\r\n").lowercased()
            if let index = presentation.options.firstIndex(where: { $0.key == key || $0.label.lowercased() == key }) {
                return options[index]
            }
        }
        return dismiss
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
