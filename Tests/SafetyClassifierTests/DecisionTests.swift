import RuleEngine
import SafetyCore
import Testing
import TextNormalization

@testable import SafetyClassifier

/// The decision procedure of POLICY.md on small in-memory rule sets: precedence, look-alike
/// suppression, scope, and the choice of harm type.
@Suite struct DecisionTests {
    static func rule(
        _ id: String, _ label: RuleLabel, type: RefusalType? = nil, topic: String? = nil, severity: RuleSeverity = .medium,
        _ pattern: String, views: [ViewName] = [.squashed]
    ) -> Rule {
        Rule(
            id: id, label: label, type: type, topic: topic, views: views, severity: severity, pattern: pattern,
            examples: RuleExamples(match: ["x"], noMatch: ["y"]), note: "test")
    }

    static let rules: [Rule] = [
        rule("t.emergency.want-to-die", .emergency, #"\bi\s+want\s+to\s+die\b"#),
        rule("t.violence.kill", .harmful, type: .violence, #"\bkil+\s+(?:him|her|the\s+\w+)\b"#),
        rule("t.illegal.hack", .harmful, type: .illegal, #"\bhack\s+(?:into\s+)?\w+'?s?\s+account\b"#),
        rule("t.selfharm.lethal", .harmful, type: .selfHarm, severity: .high, #"\blethal\s+dose\b"#),
        rule("t.safe.kill-process", .safe, #"\bkil+\s+the\s+(?:process|thread|job)\b"#),
        rule("t.scope.meeting", .inScope, topic: "scheduling", #"\bmeeting\b"#),
        rule("t.scope.hello", .inScope, topic: "greeting", #"^\s*(?:hi|hello)\b"#),
    ]

    static let classifier = SafetyClassifier(rules: try! CompiledRuleSet(rules: rules))
    static let calendar = Profile(
        name: "calendar", displayName: [.en: "Calendar"], helpsWith: [.en: "meetings"], topics: ["scheduling", "greeting"])

    func classify(_ text: String, profile: Profile = .general) -> Decision {
        Self.classifier.makeSession().classify(text, profile: profile)
    }

    @Test func emergencyBeatsEverything() {
        let decision = classify("I want to die, kill him, and book a meeting", profile: Self.calendar)
        #expect(decision.classification == .emergency)
        #expect(decision.decidingRuleIDs == ["t.emergency.want-to-die"])
    }

    @Test func harmfulBeatsOffTopic() {
        #expect(classify("kill him now", profile: Self.calendar).classification == .harmful(.violence))
    }

    @Test func safeLookAlikeSuppressesTheHarmfulMatchItOverlaps() {
        let decision = classify("how do I kill the process")
        #expect(decision.classification == .safe)
        #expect(decision.suppressed.map(\.rule.id) == ["t.violence.kill"])
    }

    @Test func lookAlikeElsewhereInThePromptDoesNotHideHarm() {
        let decision = classify("kill the process, then hack into Ana's account")
        #expect(decision.classification == .harmful(.illegal))
    }

    @Test func severityThenTypeOrderPicksTheType() {
        // selfHarm (high) beats violence (medium) whatever the order in the text.
        #expect(classify("kill him with a lethal dose").classification == .harmful(.selfHarm))
        // Same severity: violence before illegal.
        #expect(classify("hack into Bo's account and kill him").classification == .harmful(.violence))
    }

    @Test func scopeDecidesOffTopicOnlyForScopedProfiles() {
        #expect(classify("recipe for pancakes", profile: Self.calendar).classification == .offTopic)
        #expect(classify("move my meeting", profile: Self.calendar).classification == .safe)
        #expect(classify("hello!", profile: Self.calendar).classification == .safe)
        #expect(classify("recipe for pancakes").classification == .safe)
    }

    @Test func topicsOutsideTheProfileDoNotCount() {
        let meetingsOnly = Profile(name: "m", displayName: [:], helpsWith: [:], topics: ["scheduling"])
        #expect(classify("hello", profile: meetingsOnly).classification == .offTopic)
    }

    @Test func evasionsReachTheRules() {
        #expect(classify("I want to d1e").classification == .emergency)
        #expect(classify("k.i.l.l h.i.m").classification == .harmful(.violence))
        #expect(classify("I w\u{200B}ant to d\u{456}\u{435}").classification == .emergency)
    }

    @Test func decisionCarriesEvidenceWithOriginalSpans() throws {
        let text = "👩‍💻 please k.i.l.l him"
        let decision = classify(text)
        let match = try #require(decision.decidingRules.first)
        #expect(match.view == .squashed)
        let bytes = Array(text.utf8)
        #expect(String(decoding: bytes[match.originalRange], as: UTF8.self) == "k.i.l.l him")
        #expect(decision.language == .en)
    }
}

@Suite struct ProfileTests {
    @Test func bundledProfilesLoad() throws {
        let general = try Profile.load("general")
        #expect(!general.hasScope)
        let calendar = try Profile.load("calendar")
        #expect(calendar.topics == ["scheduling", "greeting", "thanks", "assistant"])
        #expect(calendar.displayName(in: .tr) == "Takvim Asistanı")
    }

    /// Bundled profiles are read without Yams' regular-expression tag resolution (start-up):
    /// they must come out as `parse`, which uses it, reads them.
    @Test(arguments: Profile.bundledNames)
    func bundledProfilesReadAsWithTagResolution(_ name: String) throws {
        let text = try #require(Profile.bundledText(named: name))
        let resolved = try Profile.parse(text, source: Profile.bundledSource(named: name))
        #expect(try Profile.load(name) == resolved)
    }

    @Test(arguments: [
        ("name: x\ncolour: blue\n", 2, "unknown key colour"),
        ("display_name: {en: X}\n", 1, "missing key name"),
        ("name: x\ntopics: scheduling\n", 2, "topics must be a list"),
        ("name: x\nhelps_with: {de: Termine}\n", 2, "unknown language de"),
        ("name: [unclosed\n", 2, "YAML"),
    ])
    func badProfilesNameFileAndLine(_ yaml: String, _ line: Int, _ message: String) {
        #expect {
            try Profile.parse(yaml, source: "my.yaml")
        } throws: { error in
            let error = error as! ProfileError
            return error.file == "my.yaml" && error.line == line && error.reason.contains(message)
        }
    }

    /// A session classifies under its own copy of the default profile (`Profile.ownCopy`): equal
    /// to the classifier's, in storage of its own.
    @Test(arguments: Profile.bundledNames)
    func aSessionsOwnCopyOfTheProfileIsEqual(_ name: String) throws {
        let profile = try Profile.load(name)
        let copy = profile.ownCopy()
        #expect(copy == profile)
        #expect(copy.source.utf8.count <= 15 || copy.source.utf8.withContiguousStorageIfAvailable { $0.baseAddress }
            != profile.source.utf8.withContiguousStorageIfAvailable { $0.baseAddress })
        let classifier = SafetyClassifier(rules: try CompiledRuleSet.load(from: .bundled), profile: profile)
        #expect(classifier.makeSession().classify("hello there").profileName == profile.name)
    }

    @Test func unknownBundledNameListsTheBundledOnes() {
        #expect {
            try Profile.load("calender")
        } throws: { error in
            (error as! ProfileError).reason.contains("calendar")
        }
    }
}
