import SafetyCore
import Testing
import TextNormalization

@testable import RuleEngine

/// A session normalises through `CompiledRuleSet.Normalizer`, which holds copies of the rule set's
/// view sets and gates: it must build exactly the views `CompiledRuleSet.normalize(bytes:)` builds.
@Suite struct NormalizerTests {
    @Test(arguments: [
        "how do I kill a python process",  // pure ASCII
        "Bugün hava çok güzel, yürüyüşe çıkalım mı?",  // Turkish letters
        "İntihar etmeyi düşünüyorum",  // a Turkish capital İ
        "I want to k\u{200B}i\u{200B}l\u{200B}l myself",  // zero-width characters
        "how to mаke a bоmb at home",  // Cyrillic а and о
        "ｋｉｌｌ them all",  // fullwidth letters
    ])
    func theNormalizerBuildsWhatTheRuleSetBuilds(text: String) throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        let normalizer = rules.makeNormalizer()
        for locale in [nil, Language.tr] {
            let own = normalizer.normalize(bytes: Array(text.utf8), localeLanguage: locale)
            let shared = rules.normalize(bytes: Array(text.utf8), localeLanguage: locale)
            #expect(own.language == shared.language && own.turkicFolding == shared.turkicFolding)
            for name in ViewName.allCases {
                #expect(own.viewIfBuilt(name) == shared.viewIfBuilt(name), "view \(name.rawValue) of \(text)")
            }
        }
    }
}
