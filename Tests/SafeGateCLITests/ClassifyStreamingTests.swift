import Foundation
import Testing

/// `safegate classify` as a pipeline citizen: parallel but ordered, and quiet when its reader goes.
@Suite struct ClassifyStreamingTests {
    /// 100,000 generated records: `--jobs 2` writes exactly what `--jobs 1` writes, in order.
    /// (The test's own small rule set keeps a debug build fast; ordering does not depend on the rules.)
    @Test func twoJobsGiveTheSameOutputAsOne() async throws {
        let seeds = [
            "schedule a meeting with Ana at 3pm", "how do I kill the zombie process", "I want to d1e tonight",
            "bu toplantılar beni öldürüyor", "how to make a pipe bomb", "kendimi öldüreceğim", "recipe for pancakes",
            "write fake news about vaccines", "İNTİHAR ETMEK İSTİYORUM", "k.i.l.l him", "hello!",
        ]
        var text = ""
        text.reserveCapacity(4_000_000)
        for index in 0..<100_000 { text += seeds[index % seeds.count] + " #\(index)\n" }
        let path = try ClassifyCommandTests.temporaryFile("many.txt", Array(text.utf8))
        let rules = ClassifyCommandTests.fixtureRules
        let one = await runCLI(["classify", path, "--jobs", "1", "--quiet", "--rules", rules])
        let two = await runCLI(["classify", path, "--jobs", "2", "--quiet", "--rules", rules])
        #expect(one.status == 0)
        #expect(two.status == 0)
        let lines = one.out.split(separator: "\n")
        #expect(lines.count == 100_000)
        #expect(lines.first?.hasPrefix("{\"id\":\"1\",") == true)
        #expect(lines.last?.hasPrefix("{\"id\":\"100000\",") == true)
        #expect(one.out == two.out)
        #expect(one.out.contains("\"label\":\"harmful\""))
        #expect(one.out.contains("\"label\":\"emergency\""))
    }

    @Test func shardsSplitTheRecords() async throws {
        let path = try ClassifyCommandTests.temporaryFile("six.txt", Array("a\nb\nc\nd\ne\nf\n".utf8))
        let first = await runCLI(["classify", path, "--shard", "0/2", "--quiet", "--rules", ClassifyCommandTests.fixtureRules])
        let second = await runCLI(["classify", path, "--shard", "1/2", "--quiet", "--rules", ClassifyCommandTests.fixtureRules])
        func ids(_ out: String) -> [String] {
            ClassifyCommandTests.lines(out).compactMap { $0["id"] as? String }
        }
        #expect(ids(first.out) == ["1", "3", "5"])
        #expect(ids(second.out) == ["2", "4", "6"])
        let bad = await runCLI(["classify", path, "--shard", "2/2"])
        #expect(bad.status == 64)
    }

    @Test func summaryJSON() async throws {
        let path = try ClassifyCommandTests.temporaryFile("two.txt", Array("kill him\nhello\n".utf8))
        let summaryPath = path + ".summary.json"
        let result = await runCLI(["classify", path, "--summary-json", summaryPath, "--rules", ClassifyCommandTests.fixtureRules])
        #expect(result.status == 0)
        #expect(result.err.contains("2 records"))
        let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: summaryPath))) as? [String: Any]
        #expect(summary?["records"] as? Int == 2)
        #expect((summary?["labels"] as? [String: Int])?["harmful"] == 1)
    }

    /// `safegate classify big | head -1`: exit 0, no broken-pipe message.
    @Test func readerGoingAwayEndsTheRunQuietly() throws {
        let binary = try #require(ChatEndToEndTests.binary)
        let lines = (0..<200_000).map { "prompt number \($0)" }.joined(separator: "\n") + "\n"
        let path = try ClassifyCommandTests.temporaryFile("big.txt", Array(lines.utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-o", "pipefail", "-c",
            "'\(binary)' classify '\(path)' --jobs 2 --rules '\(ClassifyCommandTests.fixtureRules)' | head -1",
        ]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let out = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "pipefail: safegate itself exited 0")
        #expect(out.split(separator: "\n").count == 1)
        #expect(!err.lowercased().contains("broken pipe"))
        #expect(err.isEmpty)
    }

    /// Ctrl-C in the middle of a run: the records written so far are whole lines, and the exit
    /// status is 130. (The interrupt is sent once output has started, so the run is mid-stream.)
    @Test func interruptFinishesWholeLinesAndExits130() throws {
        let binary = try #require(ChatEndToEndTests.binary)
        let lines = (0..<1_000_000).map { "prompt number \($0), kill the process" }.joined(separator: "\n") + "\n"
        let path = try ClassifyCommandTests.temporaryFile("interrupted.txt", Array(lines.utf8))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["classify", path, "--jobs", "2", "--rules", ClassifyCommandTests.fixtureRules]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        var out = stdout.fileHandleForReading.availableData
        process.interrupt()
        out += stdout.fileHandleForReading.readDataToEndOfFile()
        let err = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(err)")
        let text = String(decoding: out, as: UTF8.self)
        #expect(text.hasSuffix("\n"), "the last record is a whole line")
        let records = text.split(separator: "\n")
        #expect(records.count > 0 && records.count < 1_000_000, "stopped mid-stream")
        for (index, record) in records.enumerated() {
            let object = try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: Any]
            #expect(object?["id"] as? String == String(index + 1))
        }
    }
}
