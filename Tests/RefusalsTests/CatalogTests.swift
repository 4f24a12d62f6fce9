import Foundation
import SafetyCore
import Testing

@testable import Refusals

/// The catalogs are complete in both languages, and a broken catalog is a configuration error
/// naming its file and line.
struct CatalogTests {
    static let languages: [Language] = [.en, .tr]

    @Test func bothLanguagesAreBundled() throws {
        #expect(try CatalogSet.bundled().languages == [.en, .tr])
    }

    /// Every label × type × language has a message: nothing empty, no brace, no key.
    @Test(arguments: languages) func everyLabelAndTypeHasAMessage(language: Language) throws {
        let generator = try Fixtures.generator()
        var classifications: [SafetyClassification] = [.offTopic, .emergency]
        classifications += RefusalType.allCases.map { .harmful($0) }
        for classification in classifications {
            let reply = try #require(
                generator.reply(to: classification, language: language, region: "TR", assistant: Fixtures.calendar))
            #expect(reply.language == language)
            Self.expectFinished(reply.text, "\(classification) in \(language)")
        }
        #expect(generator.reply(to: .safe, language: language, region: "TR", assistant: Fixtures.calendar) == nil)
    }

    @Test(arguments: languages) func everyErrorHasATitleMessageAndOptions(language: Language) throws {
        let generator = try Fixtures.generator()
        for kind in Fixtures.errorKinds {
            for context in ErrorContext.allCases {
                let presentation = generator.presentation(for: GatewayError(kind, context: context), language: language)
                Self.expectFinished(presentation.title, "\(kind) title")
                Self.expectFinished(presentation.message, "\(kind) in \(context)")
                #expect(presentation.options.last?.action == .dismiss)
                for option in presentation.options {
                    Self.expectFinished(option.label, "\(option.action) label")
                    #expect(option.key.count == 1)
                }
            }
        }
    }

    @Test(arguments: languages) func everySchemaKeyIsPresent(language: Language) throws {
        let catalog = try CatalogSet.bundled().catalog(for: language)
        #expect(catalog.language == language)
        for key in CatalogSchema.standard.requiredKeys {
            #expect(catalog.has(CatalogKey(key)), "\(catalog.file) lacks \(key)")
        }
    }

    /// English and Turkish word the same moments differently, but they cover the same ones.
    @Test func bothLanguagesHaveTheSameKeys() throws {
        let catalogs = try CatalogSet.bundled()
        #expect(catalogs.catalog(for: .en).keys == catalogs.catalog(for: .tr).keys)
    }

    @Test func languageNamesCoverEveryCrisisServiceLanguage() throws {
        let generator = try Fixtures.generator()
        let used = Set(generator.directory.regions.values.flatMap(\.services).flatMap(\.languages))
        for language in Self.languages {
            let catalog = generator.catalogs.catalog(for: language)
            for code in used.sorted() {
                #expect(catalog.has(.languageName(code)), "\(catalog.file) has no name for \(code)")
            }
        }
    }

    @Test func undeterminedLanguageAnswersInEnglish() throws {
        let reply = try Fixtures.generator().refusal(.violence, language: .und, region: nil)
        #expect(reply.language == .en)
    }

    /// Every placeholder is filled, values are escaped, and a missing value never shows its key.
    @Test func placeholdersAreFilledAndEscaped() throws {
        let generator = try Fixtures.generator()
        let hostile = AssistantIdentity(
            displayName: "Ev\u{200B}il\u{1B}[31m\u{202E}bot\n", helpsWith: [.en: "{assistant} and \u{7}bells"])
        let text = generator.offTopic(language: .en, assistant: hostile).text
        #expect(!text.unicodeScalars.contains { TerminalEscaping.isUnsafe($0) })
        #expect(text.contains("Ev\\u{200B}il\\u{1B}[31m\\u{202E}bot\\u{A}"))
        // A value that looks like a placeholder is text, not a second round of filling.
        #expect(text.contains("{assistant} and \\u{7}bells"))

        let template = try Template.parse("Hello {name}!").get()
        #expect(template.fill([:]) == "Hello !")
        #expect(template.placeholders == ["name"])
    }

    @Test func templatesRejectStrayBraces() {
        #expect(Template.parse("a } b") == .failure(.strayBrace))
        #expect(Template.parse("a { b") == .failure(.strayBrace))
        #expect(Template.parse("a {b c} d") == .failure(.badPlaceholder("b c")))
        #expect(Template.parse("{}") == .failure(.badPlaceholder("")))
    }

    // MARK: Broken catalogs

    static func english(replacing old: String, with new: String) throws -> String {
        let text = try #require(BundledFiles.text(at: "catalogs/en.yaml"))
        #expect(text.contains(old), "fixture text not found: \(old)")
        return text.replacingFirst(old, with: new)
    }

    static func loadError(_ text: String) -> GatewayError? {
        do {
            _ = try Catalog.load(text: text, file: "catalogs/en.yaml", language: .en)
            return nil
        } catch {
            return error
        }
    }

    static func lineOf(_ needle: String, in text: String) -> Int? {
        text.split(separator: "\n", omittingEmptySubsequences: false).firstIndex { $0.contains(needle) }.map { $0 + 1 }
    }

    struct Breakage: Sendable, CustomTestStringConvertible {
        var name: String
        var old: String
        var new: String
        /// Text on the line the error must name, or nil when no line can be named.
        var lineText: String?
        var reason: String
        var testDescription: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(
            name: "unknown key", old: "  violence: >-\n", new: "  violense: >-\n", lineText: "violense:",
            reason: "unknown key refusal.violense"),
        Breakage(
            name: "unknown placeholder", old: "I'm {assistant}, and", new: "I'm {asistant}, and",
            lineText: "offTopic: >-", reason: "offTopic uses {asistant}"),
        Breakage(
            name: "dropped number", old: "call: Call {numbers}", new: "call: Call us", lineText: "call: Call us",
            reason: "crisis.call must contain {numbers}"),
        Breakage(
            name: "stray brace", old: "hours24: 24/7", new: "hours24: \"24/7}\"", lineText: "hours24:",
            reason: "crisis.hours24: a brace"),
        Breakage(
            name: "missing message",
            old: "  explicit: >-\n    I can't help with sexual content. I'm happy to help with something else.\n",
            new: "", lineText: "refusal:", reason: "missing message refusal.explicit"),
        Breakage(
            name: "control character", old: "hours24: 24/7", new: "hours24: \"24/7\\u001B[31m\"", lineText: "hours24:",
            reason: "control character U+1B"),
        Breakage(
            name: "duplicate key", old: "  or: or\n", new: "  or: or\n  or: either\n", lineText: nil,
            reason: "duplicate key"),
        Breakage(
            name: "shared recovery key", old: "    key: e\n", new: "    key: d\n", lineText: "recovery:",
            reason: "share a key"),
        Breakage(
            name: "syntax error", old: "  or: or\n", new: "  or: [or\n", lineText: nil, reason: "parsing"),
        Breakage(
            name: "wrong language", old: "language: en", new: "language: tr", lineText: "language: tr",
            reason: "`language` must be en"),
    ]

    @Test(arguments: breakages) func brokenCatalogIsAConfigurationError(_ breakage: Breakage) throws {
        let text = try Self.english(replacing: breakage.old, with: breakage.new)
        let error = try #require(Self.loadError(text))
        guard case .configuration(let file, let line, let reason) = error.kind else {
            Issue.record("expected a configuration error, got \(error)")
            return
        }
        #expect(file == "catalogs/en.yaml")
        #expect(error.exitStatus == 78)
        #expect(reason.contains(breakage.reason), "reason: \(reason)")
        if let lineText = breakage.lineText {
            #expect(line == Self.lineOf(lineText, in: text), "line \(String(describing: line)) for \(reason)")
        } else {
            #expect(line != nil, "a parse error names its line")
        }
    }

    @Test func missingEnglishCatalogIsAConfigurationError() throws {
        let turkish = try Catalog.load(
            text: try #require(BundledFiles.text(at: "catalogs/tr.yaml")), file: "catalogs/tr.yaml", language: .tr)
        #expect(
            throws: GatewayError.configuration(
                file: "catalogs/en.yaml", line: nil, reason: "the English catalog is missing")
        ) {
            try CatalogSet([turkish])
        }
    }

    // MARK: Helpers

    /// A finished user-facing text: not empty, no braces, no catalog key, no unsafe characters.
    static func expectFinished(_ text: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!text.trimmingCharacters(in: " \n").isEmpty, "\(what) is empty", sourceLocation: sourceLocation)
        #expect(
            !text.contains("{") && !text.contains("}"), "\(what) has a brace: \(text)", sourceLocation: sourceLocation)
        for prefix in [
            "refusal.", "errors.", "crisis.", "recovery.", "ui.", "emergency.", "languageNames.", "offTopic",
        ] {
            #expect(!text.contains(prefix), "\(what) shows a key: \(text)", sourceLocation: sourceLocation)
        }
        #expect(
            !text.unicodeScalars.contains { $0 != "\n" && TerminalEscaping.isUnsafe($0) },
            "\(what) has a control character",
            sourceLocation: sourceLocation)
    }
}

extension String {
    func replacingFirst(_ old: String, with new: String) -> String {
        guard let range = range(of: old) else { return self }
        return replacingCharacters(in: range, with: new)
    }

    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
