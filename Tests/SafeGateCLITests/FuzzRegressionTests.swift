import Foundation
import SafeGateCLI
import Testing

/// Every committed fuzz seed and every input a fuzzer once crashed on (`Fuzz/seeds/TARGET/`,
/// `Fuzz/regressions/TARGET/`) runs in-process through the harness `Scripts/fuzz` fuzzes: no
/// crash, and no broken invariant.
@Suite struct FuzzRegressionTests {
    static let fuzz = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The files of `Fuzz/KIND/TARGET/`, sorted (none when the folder does not exist).
    static func inputs(_ kind: String, _ target: FuzzHarness.Target) -> [URL] {
        let folder = fuzz.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzHarness.Target.allCases)
    func seedsAndRegressionsHold(target: FuzzHarness.Target) throws {
        let seeds = Self.inputs("seeds", target)
        #expect(!seeds.isEmpty, "no seeds under Fuzz/seeds/\(target.rawValue)")
        let harness = FuzzHarness(target: target)
        for file in seeds + Self.inputs("regressions", target) {
            // Foundation's Data(contentsOf:) leaks a 4 KB buffer on an empty file (LeakSanitizer).
            let size = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            let bytes: [UInt8] = try size == 0 ? [] : [UInt8](Data(contentsOf: file))
            let problems = harness.run(bytes)
            #expect(problems.isEmpty, "\(file.lastPathComponent): \(problems.joined(separator: "; "))")
        }
    }
}
