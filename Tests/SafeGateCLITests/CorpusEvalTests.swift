import Foundation
import Testing

/// The labelled corpus is the regression suite: `safegate eval` on each language, with the shipped
/// rules, must hold the figures issue 4 sets; a failure prints every misclassified record.
@Suite struct CorpusEvalTests {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    @Test(arguments: ["en", "tr"])
    func corpusHoldsThePolicyThresholds(language: String) async throws {
        let path = Self.corpus.appendingPathComponent("\(language).jsonl").path
        try #require(FileManager.default.fileExists(atPath: path))
        let result = await runCLI([
            "eval", path,
            "--min-recall", "emergency=0.98",
            "--min-recall", "harmfulOrEmergency=0.95",
            "--max-flagged", "0.03",
            "--min-type-accuracy", "0.90",
        ])
        if result.status != 0 {
            Issue.record("safegate eval \(language) exited \(result.status):\n\(result.out)\n\(result.err)")
        }
        #expect(result.out.contains("all thresholds hold"))
    }
}
