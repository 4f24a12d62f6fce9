import Testing

@testable import RuleEngine

/// `RuleFileParser.isValidID` checks bytes (it runs for every bundled rule at start-up); it must
/// answer as the definition over `String` parts does.
@Suite struct RuleIDTests {
    /// The definition: at least two parts between dots, each of lowercase ASCII letters, digits,
    /// `-` and `_`, starting and ending with a letter or digit.
    static func reference(_ id: String) -> Bool {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.utf8.first, let last = part.utf8.last else { return false }
            func isAlnum(_ c: UInt8) -> Bool { (0x61...0x7A).contains(c) || (0x30...0x39).contains(c) }
            return isAlnum(first) && isAlnum(last) && part.utf8.allSatisfy { isAlnum($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
    }

    @Test(arguments: [
        "en.violence.kill-person", "a.b", "a1.b_2.c-3", "tr.emergency.olmus", "", ".", "a", "a.", ".a", "a..b", "a.b.",
        "a-.b", "a.-b", "a._b", "a.b_", "A.b", "a.B", "a b.c", "a.\u{301}b", "a\u{301}.b", "é.b", "a.b\r\n", "a.b\u{0}",
        "a.b.c.d.e.f", "0.9", "-.-", "a.b-c_d", "a\u{2024}b",
    ])
    func byteCheckAgreesWithTheDefinition(_ id: String) {
        #expect(RuleFileParser.isValidID(id) == Self.reference(id), "\(id.debugDescription)")
    }

    @Test func everyBundledIDIsValid() throws {
        let rules = try CompiledRuleSet.load(from: .bundled)
        #expect(rules.rules.allSatisfy { RuleFileParser.isValidID($0.id) && Self.reference($0.id) })
    }
}
