import SafetyCore
import Synchronization
import Testing

@testable import Refusals

/// Context-aware messages, safe error cards, and the terminal presenter in the presentation chain.
struct ErrorPresentationTests {
    static let retryable: [GatewayError.Kind] = [
        .aiUnavailable, .timeout, .rateLimited(retryAfter: nil), .backendFailed, .unsafeOutput,
    ]

    /// Right after an emergency reply, a backend outage says the crisis contacts still work.
    @Test(arguments: [Language.en, .tr]) func afterAnEmergencyTheMessageKeepsCrisisResourcesInView(language: Language)
        throws
    {
        let generator = try Fixtures.generator()
        let marker = language == .en ? "crisis contacts above" : "Yukarıdaki kriz numaraları"
        for kind in Self.retryable + [.internal] {
            let general = generator.presentation(for: GatewayError(kind), language: language).message
            let afterEmergency = generator.presentation(
                for: GatewayError(kind, context: .afterEmergency), language: language
            ).message
            #expect(afterEmergency != general, "\(kind)")
            #expect(afterEmergency.lowercased().contains(marker.lowercased()), "\(kind): \(afterEmergency)")
            #expect(!general.lowercased().contains(marker.lowercased()))
        }
    }

    @Test func theSameOutageReadsDifferentlyInSmallTalkAndInBatch() throws {
        let generator = try Fixtures.generator()
        let messages = ErrorContext.allCases.map {
            generator.presentation(for: GatewayError.aiUnavailable.in($0), language: .en).message
        }
        #expect(Set(messages).count == ErrorContext.allCases.count)
        #expect(messages[ErrorContext.allCases.firstIndex(of: .smallTalk)!].hasPrefix("I can't reach the AI"))
        #expect(messages[ErrorContext.allCases.firstIndex(of: .batch)!].contains("Run the command again"))
    }

    @Test func contextsWithoutTheirOwnWordsUseTheGeneralMessage() throws {
        let generator = try Fixtures.generator()
        let general = generator.presentation(for: .invalidInput(reason: "empty"), language: .tr).message
        let batch = generator.presentation(for: GatewayError.invalidInput(reason: "empty").in(.batch), language: .tr)
            .message
        #expect(general == batch)
        #expect(general == "safegate bu girdiyle çalışamıyor: empty.")
    }

    @Test func rateLimitedSaysHowLongToWait() throws {
        let generator = try Fixtures.generator()
        #expect(
            generator.presentation(for: .rateLimited(retryAfter: .seconds(30)), language: .en).message.hasSuffix(
                "Wait about 30 s before trying again."))
        #expect(
            generator.presentation(for: .rateLimited(retryAfter: .milliseconds(1)), language: .tr).message.contains(
                "yaklaşık 1 sn"))
        #expect(!generator.presentation(for: .rateLimited(retryAfter: nil), language: .en).message.contains("Wait"))
    }

    @Test func configurationErrorsNameFileAndLineAndOfferToEditIt() throws {
        let generator = try Fixtures.generator()
        let error = GatewayError.configuration(file: "rules/tr/violence.yaml", line: 42, reason: "bad pattern")
        let tr = generator.presentation(for: error, language: .tr)
        #expect(tr.message.hasPrefix("rules/tr/violence.yaml, satır 42: bad pattern."))
        #expect(tr.options.map(\.action) == [.openSettings(path: "rules/tr/violence.yaml"), .dismiss])
        #expect(tr.options.map(\.label) == ["Düzenle: rules/tr/violence.yaml", "Kapat"])
        #expect(tr.recoveryNames == ["openSettings", "dismiss"])
    }

    @Test func attachedOptionsAreShownInOrderWithDismissAdded() throws {
        let generator = try Fixtures.generator()
        let error = GatewayError.timeout.adding(RecoveryOption(.contactSupport)).adding(.retry)
        let presentation = generator.presentation(for: error, language: .en)
        #expect(presentation.recoveryNames == ["contactSupport", "retry", "dismiss"])
        #expect(presentation.options.map(\.key) == ["p", "r", "d"])
    }

    /// Untrusted text in an error (a reason, a path) can never drive the terminal.
    @Test(arguments: [false, true]) func cardsEscapeUntrustedText(color: Bool) throws {
        let generator = try Fixtures.generator()
        let evil = "x\u{1B}]0;pwned\u{7}\r\n\u{202E}gpj.exe\u{9B}31m"
        let errors: [GatewayError] = [
            .invalidInput(reason: evil), .configuration(file: "rules/\(evil).yaml", line: 1, reason: evil),
        ]
        for error in errors {
            for language in [Language.en, .tr] {
                let card = generator.errorCard(for: error, language: language, style: .init(color: color))
                // Strip the card's own colour sequences; nothing unsafe may remain.
                var stripped = card
                for sgr in ["\u{1B}[0m", "\u{1B}[1m", "\u{1B}[31m", "\u{1B}[33m", "\u{1B}[35m", "\u{1B}[36m"] {
                    stripped = stripped.replacingAll(sgr, with: "")
                }
                #expect(!stripped.unicodeScalars.contains { $0 != "\n" && TerminalEscaping.isUnsafe($0) }, "\(card)")
                #expect(card.contains("\\u{1B}]0;pwned\\u{7}\\u{D}\\u{A}\\u{202E}gpj.exe\\u{9B}31m"))
                #expect(color == card.contains("\u{1B}["))
                #expect(card.split(separator: "\n").count == 3, "a reason cannot add lines")
            }
        }
    }

    @Test func batchCardsListWhatOneCanDo() throws {
        let card = try Fixtures.generator().errorCard(for: .timeout, language: .tr, style: .init(interactive: false))
        #expect(card.hasSuffix("  Yapabilecekleriniz: Yeniden dene · Kapat"))
        #expect(!card.contains("[y]"))
    }

    // MARK: The terminal presenter in the chain

    final class Terminal: Sendable {
        let answers: Mutex<[String?]>
        let output = Mutex("")
        init(_ answers: [String?]) { self.answers = Mutex(answers) }
        var written: String { output.withLock { $0 } }
        func presenter(_ generator: RefusalGenerator, _ language: Language) -> TerminalErrorPresenter {
            TerminalErrorPresenter(
                generator: generator, language: language, color: false,
                write: { text in self.output.withLock { $0 += text } },
                readLine: { self.answers.withLock { $0.isEmpty ? nil : $0.removeFirst() } })
        }
    }

    @Test func turkishKeysPickTheOptionAndRecoveryReRunsTheTurn() async throws {
        let generator = try Fixtures.generator()
        let terminal = Terminal(["x", " Y "])
        let runs = Mutex(0)
        let chain = ErrorPresentationChain(
            responders: [ClosureResponder { $0.in(.smallTalk) }, SessionDefaultsResponder()],
            presenter: terminal.presenter(generator, .tr))
        let result = await chain.run { () throws -> String in
            let run = runs.withLock {
                $0 += 1
                return $0
            }
            if run == 1 { throw GatewayError.timeout }
            return "yanıt"
        }
        #expect(try result.get() == "yanıt")
        #expect(runs.withLock { $0 } == 2)
        #expect(
            terminal.written == """
                ⧗ Yapay zekâ geç kaldı
                  Kusura bakmayın, yanıt çok gecikti. Yeniden denerseniz bir kez daha bakarım.
                  [y] Yeniden dene  [k] Kapat
                Seçiminiz: Seçiminiz:\u{20}
                """)
    }

    @Test func endOfInputDismisses() async throws {
        let generator = try Fixtures.generator()
        let terminal = Terminal([])
        let chain = ErrorPresentationChain(presenter: terminal.presenter(generator, .en))
        let outcome = await chain.present(GatewayError.aiUnavailable)
        #expect(outcome.chosen == .dismiss)
        #expect(!outcome.recovered)
    }

    @Test func dismissWorksEvenWhenTheCreatorAttachedOnlyRetry() async throws {
        let generator = try Fixtures.generator()
        let terminal = Terminal(["d"])
        let chain = ErrorPresentationChain(responders: [], presenter: terminal.presenter(generator, .en))
        let outcome = await chain.present(GatewayError.timeout.adding(.retry))
        #expect(outcome.chosen == .dismiss)
        #expect(terminal.written.contains("[r] Try again  [d] Dismiss"))
    }

    @Test func aReplyWithCrisisResourcesMakesTheNextErrorContextAware() throws {
        let generator = try Fixtures.generator()
        let emergency = generator.emergency(language: .en, region: "GB")
        let selfHarm = generator.refusal(.selfHarm, language: .en, region: "GB")
        let violence = generator.refusal(.violence, language: .en, region: "GB")
        #expect(emergency.errorContextForNextTurn == .afterEmergency)
        #expect(selfHarm.errorContextForNextTurn == .afterEmergency)
        #expect(violence.errorContextForNextTurn == .smallTalk)
        let card = generator.errorCard(
            for: GatewayError.aiUnavailable.in(emergency.errorContextForNextTurn), language: .en)
        #expect(card.contains("the crisis contacts above don't depend on it"))
    }

    @Test func openSettingsRecoveryThatFixesTheFileReRuns() async throws {
        let generator = try Fixtures.generator()
        let terminal = Terminal(["e"])
        let fixed = Mutex(false)
        let chain = ErrorPresentationChain(presenter: terminal.presenter(generator, .en))
        let result = await chain.run { () throws -> Int in
            if fixed.withLock({ $0 }) { return 1 }
            throw GatewayError.configuration(file: "profiles/calendar.yaml", line: 3, reason: "unknown key")
                .adding(
                    RecoveryOption(.openSettings(path: "profiles/calendar.yaml")) {
                        fixed.withLock { $0 = true }  // e.g. the user edited the file and it reloads now
                        return true
                    })
        }
        #expect(try result.get() == 1)
        #expect(terminal.written.contains("[e] Edit profiles/calendar.yaml  [d] Dismiss"))
    }
}

extension String {
    func replacingAll(_ old: String, with new: String) -> String {
        split(separator: old, omittingEmptySubsequences: false).joined(separator: new)
    }
}
