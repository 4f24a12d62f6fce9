import Refusals
import SafetyCore
import Testing

struct LocaleResolverTests {
    let resolver = LocaleResolver()

    @Test func parsesLocaleIdentifiers() {
        #expect(LocaleIdentifier("tr-TR") == LocaleIdentifier(language: "tr", region: "TR"))
        #expect(LocaleIdentifier("tr_TR.UTF-8") == LocaleIdentifier(language: "tr", region: "TR"))
        #expect(LocaleIdentifier("en_GB@euro") == LocaleIdentifier(language: "en", region: "GB"))
        #expect(LocaleIdentifier("zh-Hant-TW") == LocaleIdentifier(language: "zh", region: "TW"))
        #expect(LocaleIdentifier("es-419") == LocaleIdentifier(language: "es", region: nil))
        #expect(LocaleIdentifier("TR") == LocaleIdentifier(language: "tr", region: nil))
        #expect(LocaleIdentifier("C") == nil)
        #expect(LocaleIdentifier("C.UTF-8") == nil)
        #expect(LocaleIdentifier("POSIX") == nil)
        #expect(LocaleIdentifier("") == nil)
        #expect(LocaleIdentifier("123") == nil)
    }

    @Test func thePromptsLanguageWins() {
        #expect(resolver.language(detected: .tr, locale: "en-US", environment: "en_US.UTF-8") == .tr)
        #expect(resolver.language(detected: .en, locale: "tr-TR", environment: "tr_TR.UTF-8") == .en)
    }

    @Test func thenTheLocaleFlagThenTheEnvironmentThenEnglish() {
        #expect(resolver.language(detected: .und, locale: "tr-TR", environment: "en_US.UTF-8") == .tr)
        #expect(resolver.language(detected: nil, locale: nil, environment: "tr_TR.UTF-8") == .tr)
        #expect(resolver.language(detected: .und, locale: nil, environment: nil) == .en)
        #expect(resolver.language(detected: .und, locale: nil, environment: "C.UTF-8") == .en)
        // An environment that says nothing about language does not hide a later source.
        #expect(resolver.language(detected: .und, locale: "C", environment: "tr_TR.UTF-8") == .tr)
    }

    @Test func unsupportedLanguagesFallBackToEnglish() {
        // tr-TR → tr → en: a language without a catalog becomes English, not the next source.
        #expect(resolver.language(detected: .und, locale: "de-DE", environment: "tr_TR.UTF-8") == .en)
        #expect(resolver.language(detected: .und, locale: "tr", environment: nil) == .tr)
        #expect(LocaleResolver(supported: [.en]).language(detected: .tr, locale: nil, environment: nil) == .en)
    }

    @Test func regionComesFromTheFlagThenTheLocaleThenTheEnvironment() {
        #expect(resolver.region(flag: "tr", locale: "en-US", environment: "en_GB.UTF-8") == "TR")
        #expect(resolver.region(flag: nil, locale: "en-US", environment: "tr_TR.UTF-8") == "US")
        #expect(resolver.region(flag: nil, locale: "tr", environment: "tr_TR.UTF-8") == "TR")
        #expect(resolver.region(flag: nil, locale: nil, environment: "de_DE.UTF-8") == "DE")
        #expect(resolver.region(flag: nil, locale: nil, environment: "C.UTF-8") == nil)
        #expect(resolver.region(flag: nil, locale: nil, environment: nil) == nil)
        // A malformed flag is ignored here; commands reject it first with normalizedRegion.
        #expect(resolver.region(flag: "USA", locale: "en-GB", environment: nil) == "GB")
    }

    @Test func normalizesRegionFlags() {
        #expect(LocaleResolver.normalizedRegion("tr") == "TR")
        #expect(LocaleResolver.normalizedRegion(" gb ") == "GB")
        #expect(LocaleResolver.normalizedRegion("USA") == nil)
        #expect(LocaleResolver.normalizedRegion("1") == nil)
        #expect(LocaleResolver.normalizedRegion("") == nil)
    }

    @Test func environmentFollowsPOSIXPrecedence() {
        #expect(LocaleResolver.environmentLocale(["LANG": "tr_TR.UTF-8"]) == "tr_TR.UTF-8")
        #expect(
            LocaleResolver.environmentLocale(["LANG": "tr_TR.UTF-8", "LC_MESSAGES": "en_US.UTF-8"]) == "en_US.UTF-8")
        #expect(
            LocaleResolver.environmentLocale(["LANG": "tr_TR.UTF-8", "LC_MESSAGES": "en_US.UTF-8", "LC_ALL": "de_DE"])
                == "de_DE")
        #expect(LocaleResolver.environmentLocale(["LC_ALL": "", "LANG": "en_IE.UTF-8"]) == "en_IE.UTF-8")
        #expect(LocaleResolver.environmentLocale([:]) == nil)
    }

    @Test func endToEndTurkishUserOnAnEnglishPrompt() throws {
        let env = LocaleResolver.environmentLocale(["LANG": "tr_TR.UTF-8"])
        let language = resolver.language(detected: .en, locale: nil, environment: env)
        let region = resolver.region(flag: nil, locale: nil, environment: env)
        let reply = try Fixtures.generator().emergency(language: language, region: region)
        // English words, Turkish resources: 112 and no crisis line that does not exist.
        #expect(reply.language == .en)
        #expect(reply.region == "TR")
        #expect(reply.text.contains("112"))
    }
}
