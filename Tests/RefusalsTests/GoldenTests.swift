import Refusals
import SafetyCore
import Testing

/// Every catalog message and every error card, in both languages, against files in `Golden/`
/// (regenerate with `SAFEGATE_UPDATE_GOLDEN=1`; see `Golden` in Support.swift).
struct GoldenTests {
    static let languages: [Language] = [.en, .tr]

    @Test(arguments: languages) func refusalsAndRedirects(language: Language) throws {
        let generator = try Fixtures.generator()
        var out = ""
        for type in RefusalType.allCases where type != .selfHarm {
            out += section("harmful(\(type.rawValue))", generator.refusal(type, language: language, region: "US").text)
        }
        out += section("offTopic (calendar)", generator.offTopic(language: language, assistant: Fixtures.calendar).text)
        out += section(
            "offTopic (no scope in this language)",
            generator.offTopic(language: language, assistant: AssistantIdentity(displayName: "Takvim", helpsWith: [:]))
                .text)
        try Golden.check(out, file: "\(language.rawValue)/refusals.txt")
    }

    @Test(arguments: languages) func emergencyReplies(language: Language) throws {
        let generator = try Fixtures.generator()
        var out = ""
        for region in Fixtures.regionCodes(generator) {
            out += section("emergency, region \(region)", generator.emergency(language: language, region: region).text)
        }
        try Golden.check(out, file: "\(language.rawValue)/emergency.txt")
    }

    @Test(arguments: languages) func selfHarmRefusals(language: Language) throws {
        let generator = try Fixtures.generator()
        var out = ""
        for region in Fixtures.regionCodes(generator) {
            out += section(
                "harmful(selfHarm), region \(region)",
                generator.refusal(.selfHarm, language: language, region: region).text)
        }
        try Golden.check(out, file: "\(language.rawValue)/selfHarm.txt")
    }

    @Test(arguments: languages) func allResources(language: Language) throws {
        let generator = try Fixtures.generator()
        var out = ""
        for region in Fixtures.regionCodes(generator) {
            out += section(
                "all resources, region \(region)", generator.allResources(language: language, region: region))
        }
        try Golden.check(out, file: "\(language.rawValue)/resources.txt")
    }

    @Test(arguments: languages) func errorCards(language: Language) throws {
        let generator = try Fixtures.generator()
        var out = ""
        for kind in Fixtures.errorKinds {
            for context in ErrorContext.allCases {
                let error = GatewayError(kind, context: context)
                let style = ErrorCard.Style(color: false, interactive: context != .batch)
                out += section(
                    "\(error.description) in \(context.rawValue)",
                    generator.errorCard(for: error, language: language, style: style))
            }
        }
        try Golden.check(out, file: "\(language.rawValue)/error-cards.txt")
    }

    @Test(arguments: languages) func colouredCardsAndInterface(language: Language) throws {
        let generator = try Fixtures.generator()
        var out = ""
        for kind in [
            GatewayError.Kind.aiUnavailable,
            .configuration(file: "rules/en/violence.yaml", line: 7, reason: "bad pattern"), .internal,
        ] {
            out += section(
                "\(GatewayError(kind).description), colour",
                generator.errorCard(for: GatewayError(kind), language: language, style: .init(color: true)))
        }
        let ui = generator.interface(language)
        out += section("degraded status", ui.degradedStatus)
        out += section("choose prompt", ui.choosePrompt)
        var badges: [String] = []
        for classification in [SafetyClassification.safe, .offTopic, .emergency]
            + RefusalType.allCases.map({ .harmful($0) })
        {
            badges.append(ui.badge(for: classification))
        }
        out += section("badges", badges.joined(separator: "\n"))
        try Golden.check(out, file: "\(language.rawValue)/interface.txt")
    }
}
