#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Assistant
import Dispatch
import Foundation
import Refusals
import Resilience
import RuleEngine
import TextNormalization
import SafetyClassifier
import SafetyCore
import Synchronization

extension SafeGate {
    /// `safegate chat`: the interactive REPL over the gateway.
    struct Chat: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "chat",
            abstract: "Chat through the gateway (line editing and history on a terminal; plain lines from a pipe).",
            discussion: "Type /help for commands. Ctrl-C cancels the request in flight; Ctrl-D exits.")

        @OptionGroup var classifierOptions: ClassifierOptions
        @OptionGroup var turnOptions: TurnOptions
        @OptionGroup var fakeOptions: FakeBackendOptions

        func run() async throws {
            let console = Console.current
            let classifier = try classifierOptions.makeClassifier()
            // Patterns are JIT-compiled at first use; compile them all in the background now, so
            // the first messages do not pay for it while the user types.
            let prepare = Thread { classifier.rules.prepareAll() }
            prepare.name = "safegate.prepare-rules"
            prepare.qualityOfService = .utility
            prepare.start()
            let status = StatusLine(console: console)
            let (gateway, backend) = try GatewayFactory.make(
                classifier: classifier, fake: fakeOptions, turn: turnOptions, console: console,
                onEvent: { status.event($0) })
            let interactive = isatty(0) == 1
            let input: any LineInput = interactive ? EditLineInput() : PlainLineInput()
            let session = ChatSession(
                gateway: gateway, backend: backend, console: console, input: input,
                settings: turnOptions.settings(profile: classifier.defaultProfile, console: console),
                color: console.stdoutIsTerminal && console.environment["NO_COLOR"] == nil, interactive: interactive,
                log: gateway.caller.log)
            status.session = session
            await session.run()
        }
    }
}

/// Shows retry progress ("Retrying 2/3 in 1.2 s…") as the resilience layer reports it.
final class StatusLine: Sendable {
    let console: Console
    private let owner = Mutex<ChatSession?>(nil)

    init(console: Console) { self.console = console }

    var session: ChatSession? {
        get { owner.withLock { $0 } }
        set { owner.withLock { $0 = newValue } }
    }

    func event(_ event: ResilienceEvent) {
        session?.show(event)
    }
}

/// One chat: the loop, the slash commands, and how turns and errors are shown.
final class ChatSession: @unchecked Sendable {
    // @unchecked: the session's mutable state is only touched from the REPL loop's task; the
    // resilience observer calls `show`, which only writes to the console.
    let gateway: Gateway
    let backend: FakeLLMBackend
    let console: Console
    let input: any LineInput
    var settings: TurnSettings
    let color: Bool
    let interactive: Bool
    let log: ErrorLog?
    private(set) var lastTurn: Turn?
    private(set) var turnsByLabel: [String: Int] = [:]
    private(set) var blockedOutputs = 0
    private(set) var cancelledTurns = 0
    private let inFlight = Mutex<Task<Turn, Never>?>(nil)
    private var interruptSource: (any DispatchSourceSignal)?

    init(
        gateway: Gateway, backend: FakeLLMBackend, console: Console, input: any LineInput, settings: TurnSettings,
        color: Bool, interactive: Bool, log: ErrorLog?
    ) {
        self.gateway = gateway
        self.backend = backend
        self.console = console
        self.input = input
        self.settings = settings
        self.color = color
        self.interactive = interactive
        self.log = log
    }

    var language: Language {
        lastTurn?.language
            ?? gateway.resolver.language(detected: nil, locale: settings.locale, environment: settings.environmentLocale)
    }

    var strings: InterfaceStrings { gateway.refusals.interface(language) }

    func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    // MARK: The loop

    func run() async {
        installInterruptHandler()
        defer { interruptSource?.cancel() }
        let profile = settings.profile ?? gateway.classifier.defaultProfile
        console.print(
            paint("safegate chat", "1") + " — \(TerminalText.escaped(profile.displayName(in: language))) "
                + "(profile \(TerminalText.escaped(profile.name))). "
                + "/help for commands, Ctrl-D to quit.")
        while true {
            if case .degraded = gateway.availability {
                console.print(paint("⚠ " + strings.degradedStatus, "33"))
            }
            guard let line = input.readLine(prompt: interactive ? paint("you› ", "36") : "") else { break }
            let text = line.trimmingCharacters(in: " \t")
            if text.isEmpty { continue }
            // From a pipe nothing is echoed: show the line, so the transcript reads like a chat.
            if !interactive { console.print("you› " + TerminalText.escaped(text)) }
            if text.hasPrefix("/") {
                if command(text) == .quit { break }
                continue
            }
            await turn(text)
        }
        if interactive { console.print("") }
    }

    /// One prompt through the gateway; errors go up the presentation chain, and a recovery
    /// (Try again) runs the turn once more.
    func turn(_ prompt: String) async {
        let context = lastTurn?.errorContextForNextTurn ?? .smallTalk
        let presenter = TerminalErrorPresenter(
            generator: gateway.refusals, language: language, color: color,
            write: { [console] text in console.writeOut(text) },
            readLine: { [weak self] in self?.readChoice() })
        let log = self.log
        let chain = ErrorPresentationChain(
            presenter: presenter,
            observer: { outcome in _ = log?.record(outcome, prompt: PromptInfo(prompt)) })
        var turnSettings = settings
        turnSettings.errorContext = context
        let result = await chain.run(maxAttempts: 5) { () async throws -> Turn in
            let turn = await self.runCancellable(prompt, settings: turnSettings)
            if turn.cancelled { throw CancellationError() }
            if let error = turn.error { throw error }
            return turn
        }
        switch result {
        case .success(let turn):
            show(turn)
        case .failure(let error):
            if case .internal = error.kind, error.underlying is CancellationError {
                cancelledTurns += 1
                console.print(paint("(cancelled)", "2"))
            }
        }
    }

    /// Runs a turn as a task that Ctrl-C can cancel.
    func runCancellable(_ prompt: String, settings: TurnSettings) async -> Turn {
        let gateway = self.gateway
        let task = Task { await gateway.respond(to: prompt, settings: settings) }
        inFlight.withLock { $0 = task }
        let turn = await task.value
        inFlight.withLock { $0 = nil }
        return turn
    }

    /// A line at the error card's prompt: slash commands run there too (e.g. `/fail ok`, then `r`).
    func readChoice() -> String? {
        while let line = input.readLine(prompt: "") {
            let text = line.trimmingCharacters(in: " \t")
            if !interactive { console.print(TerminalText.escaped(text)) }
            guard text.hasPrefix("/") else { return text }
            if command(text) == .quit { return nil }
            console.writeOut(strings.choosePrompt + " ")
        }
        return nil
    }

    func show(_ turn: Turn) {
        lastTurn = turn
        turnsByLabel[turn.decision.classification.label.rawValue, default: 0] += 1
        if turn.blockedOutput { blockedOutputs += 1 }
        let badgeColor: String
        switch turn.decision.classification {
        case .safe: badgeColor = "32"
        case .offTopic: badgeColor = "34"
        case .harmful: badgeColor = "31"
        case .emergency: badgeColor = "35"
        }
        let badge = paint("[" + strings.badge(for: turn.decision.classification) + "]", badgeColor)
        let reply = TerminalText.escapedKeepingLines(turn.reply ?? "")
        console.print(badge + (turn.blockedOutput ? paint(" (answer withheld: it failed the output check)", "2") : ""))
        console.print(reply)
    }

    /// Retry progress from the resilience layer.
    func show(_ event: ResilienceEvent) {
        if case .retrying(let retry, let retries, let delay, _) = event {
            let seconds = Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18
            console.print(paint(String(format: "Retrying %d/%d in %.1f s…", retry, retries, seconds), "2"))
        }
    }

    // MARK: Ctrl-C

    /// Ctrl-C cancels the request in flight, not the session.
    func installInterruptHandler() {
        guard interactive else { return }
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in
            guard let self else { return }
            let task = self.inFlight.withLock { $0 }
            if let task {
                task.cancel()
            } else {
                self.console.writeOut("\n(Ctrl-D or /quit to leave)\n")
            }
        }
        source.resume()
        interruptSource = source
    }

    // MARK: Slash commands

    enum CommandResult { case handled, quit }

    static let help = """
        /help            this list
        /explain         the last prompt's views, rule matches and label
        /profile NAME    switch profile (general, calendar, or a profile file)
        /locale TAG      your locale, e.g. tr-TR (reply language when the prompt's cannot be told)
        /region CC       your region for crisis resources, e.g. TR, US
        /fail SPEC       script the fake backend: ok,timeout,unavailable,rateLimited,malformed,unsafe
        /stats           counters and circuit state
        /quit            leave (or Ctrl-D)
        """

    func command(_ line: String) -> CommandResult {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        let name = parts[0].lowercased()
        let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: " \t") : ""
        switch name {
        case "/quit", "/exit", "/q":
            return .quit
        case "/help", "/?":
            console.print(Self.help)
        case "/explain":
            explainLast()
        case "/profile":
            do {
                let profile = try Profile.load(argument.isEmpty ? "general" : argument)
                settings.profile = profile
                console.print(TerminalText.escaped("profile: \(profile.name) — \(profile.displayName(in: language))"))
            } catch {
                console.print("profile not changed: \(TerminalText.escaped(error.description))")
            }
        case "/locale":
            guard !argument.isEmpty, LocaleIdentifier(argument) != nil else {
                console.print("usage: /locale TAG (for example en-US or tr-TR)")
                return .handled
            }
            settings.locale = argument
            console.print("locale: \(TerminalText.escaped(argument))")
        case "/region":
            guard let region = LocaleResolver.normalizedRegion(argument) else {
                console.print("usage: /region CC (a two-letter country code, for example TR or US)")
                return .handled
            }
            settings.region = region
            console.print("region: \(region)")
        case "/fail":
            do {
                let script = try FakeOutcome.parseScript(argument)
                backend.setScript(script)
                console.print("fake backend: next calls \(script.isEmpty ? "ok" : script.map(\.rawValue).joined(separator: ", ")), then ok")
            } catch {
                console.print("script not changed: \(TerminalText.escaped(error.description))")
            }
        case "/stats":
            stats()
        default:
            console.print("unknown command \(TerminalText.escaped(name)); /help lists them")
        }
        return .handled
    }

    func explainLast() {
        guard let turn = lastTurn else {
            console.print("nothing to explain yet")
            return
        }
        let text = NormalizedText(turn.prompt)
        console.print("label: \(turn.decision.classification.label.rawValue)"
            + (turn.decision.classification.type.map { " (\($0.rawValue))" } ?? "") + " · lang \(turn.decision.language.rawValue)")
        for view in text.builtViews {
            console.print("  " + view.name.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0) + TerminalText.escaped(view.text))
        }
        let bytes = Array(turn.prompt.utf8)
        for match in turn.decision.matches {
            let span = String(decoding: bytes[match.originalRange], as: UTF8.self)
            console.print("  match \(TerminalText.escaped(match.rule.id)) (\(match.rule.label.rawValue)) on \(match.view.rawValue) at bytes "
                + "\(match.originalRange.lowerBound)..<\(match.originalRange.upperBound): \"\(TerminalText.escaped(span))\"")
        }
        if turn.decision.matches.isEmpty { console.print("  no rule matched") }
        // With --fail-open a prompt not classified in full still gets its label: say so.
        if let reason = turn.decision.incompleteReason { console.print(TerminalText.escaped("  incomplete: \(reason)")) }
    }

    func stats() {
        let snapshot = gateway.caller.snapshot()
        let labels = SafetyClassification.Label.allCases.map { "\($0.rawValue) \(turnsByLabel[$0.rawValue] ?? 0)" }
        console.print("turns: " + labels.joined(separator: " · ") + " · output blocked \(blockedOutputs) · cancelled \(cancelledTurns)")
        console.print("backend calls \(snapshot.calls): succeeded \(snapshot.succeeded), failed \(snapshot.failed), "
            + "recoveries \(snapshot.recoveries); attempts \(snapshot.attempts), retries \(snapshot.retries), "
            + "turned away by the open circuit \(snapshot.rejectedByCircuit)")
        let errors = snapshot.errorsByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        console.print("errors: " + (errors.isEmpty ? "none" : errors.joined(separator: ", ")))
        console.print("circuit: \(snapshot.circuit.state) · recent error rate \(String(format: "%.0f%%", snapshot.windowErrorRate * 100)) of \(snapshot.windowSamples)"
            + (snapshot.highErrorRateEvents > 0 ? " · high-error-rate events \(snapshot.highErrorRateEvents)" : ""))
        if case .degraded = gateway.availability { console.print(strings.degradedStatus) }
    }
}
