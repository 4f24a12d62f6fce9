import SafetyCore
import Testing
import TextNormalization

@testable import RuleEngine

/// `Rule` keeps its fields in one object that copies share until one changes: it must still act
/// as a plain value.
@Suite struct RuleValueTests {
    static func rule() -> Rule {
        Rule(
            id: "t.violence.kill", label: .harmful, type: .violence, views: [.ascii, .folded], severity: .high, pattern: #"\bkill\b"#,
            unless: [#"\bgame\b"#], examples: RuleExamples(match: [.init("kill him")], noMatch: [.init("kill the process")]), note: "A test rule.")
    }

    @Test func aChangedCopyLeavesTheOriginalAsItWas() {
        let original = Self.rule()
        var copy = original
        #expect(copy == original && copy.hashValue == original.hashValue)
        copy.id = "t.violence.kill2"
        copy.unless.append(#"\bmovie\b"#)
        copy.keyLines["pattern"] = 7
        #expect(original.id == "t.violence.kill" && original.unless == [#"\bgame\b"#] && original.keyLines.isEmpty)
        #expect(copy.id == "t.violence.kill2" && copy.unless.count == 2 && copy.keyLines["pattern"] == 7)
        #expect(copy != original)
        // Views come sorted and without repeats, as before.
        #expect(original.views == [.folded, .ascii])
    }

    @Test func rulesWithEqualFieldsAreEqualAndHashAlike() {
        let a = Self.rule()
        let b = Self.rule()
        #expect(a == b && a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
        var c = b
        c.disabled = true
        #expect(a != c && Set([a, b, c]).count == 2)
        var d = b
        d.keyLines["unless[0]"] = 3
        #expect(d != b)
    }
}
