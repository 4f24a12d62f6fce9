import Foundation
import Testing

@Suite struct ExplainCommandTests {
    /// The two acceptance examples, through the command line.
    @Test func turkishCapitalsReadAsLowercaseTurkish() async throws {
        let result = await runCLI(["explain", "İNTİHAR ETMEK İSTİYORUM", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let views = try #require(object["views"] as? [String: String])
        #expect(views.values.contains { $0.contains("intihar etmek istiyorum") })
        #expect(object["lang"] as? String == "tr")
    }

    @Test func fullWidthZeroWidthCyrillicAndDigitReadAsKill() async throws {
        let result = await runCLI(["explain", "ｋ\u{200B}і１ｌｌ", "--json"])
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        let views = try #require(object["views"] as? [String: String])
        #expect(views.values.contains { $0.contains("kill") })
    }

    @Test func textOutputEscapesControlCharacters() async {
        let result = await runCLI(["explain", "hi \u{1B}]0;pwned\u{07} \u{202E}x"])
        #expect(result.status == 0)
        #expect(!result.out.contains("\u{1B}"))
        #expect(!result.out.contains("\u{202E}"))
        #expect(result.out.contains("\\u{1B}"))
    }
}
