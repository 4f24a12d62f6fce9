import Foundation
import Refusals
import SafetyCore
import Testing

/// The bundled generator, loaded once for all tests.
enum Fixtures {
    static let loaded: Result<RefusalGenerator, GatewayError> = Result { () throws(GatewayError) in
        try RefusalGenerator.bundled()
    }

    static func generator() throws -> RefusalGenerator { try loaded.get() }

    static let calendar = AssistantIdentity(
        displayName: "Takvim",
        helpsWith: [
            .en: "your calendar: events, reminders and free time",
            .tr: "takviminiz, etkinlikleriniz, hatırlatıcılarınız ve boş zamanlarınız",
        ])

    /// Every region code of the bundled data, sorted, with the fallback last.
    static func regionCodes(_ generator: RefusalGenerator) -> [String] {
        generator.directory.regions.keys.filter { $0 != CrisisDirectory.fallbackCode }.sorted() + [
            CrisisDirectory.fallbackCode
        ]
    }

    /// Every error kind, with representative payloads.
    static let errorKinds: [GatewayError.Kind] = [
        .aiUnavailable, .timeout, .rateLimited(retryAfter: nil), .rateLimited(retryAfter: .milliseconds(2500)),
        .backendFailed, .invalidInput(reason: "the text is not valid UTF-8"),
        .configuration(file: "catalogs/tr.yaml", line: 12, reason: "the key violense is unknown"),
        .configuration(file: "profiles/calendar.yaml", line: nil, reason: "the file is empty"),
        .unsafeOutput, .unchecked(.tooLong(bytes: 300_000, limit: 262_144)), .unchecked(.searchLimit), .internal,
    ]
}

/// Golden files: expected output kept next to the tests, under `Golden/`.
///
/// To regenerate them after an intended change, run the tests with `SAFEGATE_UPDATE_GOLDEN=1`:
///
///     SAFEGATE_UPDATE_GOLDEN=1 swift test --filter RefusalsTests.GoldenTests
///
/// then review the diff of `Tests/RefusalsTests/Golden/` before committing it.
enum Golden {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static var updating: Bool { ProcessInfo.processInfo.environment["SAFEGATE_UPDATE_GOLDEN"] == "1" }

    static func check(_ actual: String, file name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = directory.appendingPathComponent(name)
        if updating {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(actual.utf8).write(to: url)
            return
        }
        guard let data = FileManager.default.contents(atPath: url.path),
            let expected = String(data: data, encoding: .utf8)
        else {
            Issue.record(
                "missing golden file \(name); run with SAFEGATE_UPDATE_GOLDEN=1", sourceLocation: sourceLocation)
            return
        }
        if expected != actual {
            let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
            let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
            let first =
                zip(expectedLines, actualLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(expectedLines.count, actualLines.count)
            Issue.record(
                """
                \(name) differs from its golden file at line \(first + 1):
                  expected: \(first < expectedLines.count ? String(expectedLines[first]) : "<end>")
                  actual:   \(first < actualLines.count ? String(actualLines[first]) : "<end>")
                Run with SAFEGATE_UPDATE_GOLDEN=1 to accept the new output.
                """, sourceLocation: sourceLocation)
        }
    }
}

/// Text as a golden section: a header line and the text.
func section(_ title: String, _ body: String) -> String { "=== \(title)\n\(body)\n" }
