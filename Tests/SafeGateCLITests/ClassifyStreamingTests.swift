#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import Testing

@testable import SafeGateCLI

/// `safegate classify` as a pipeline citizen: parallel but ordered, quiet when its reader goes,
/// and prompt when its writer is slow (`tail -f log | safegate classify`).
@Suite struct ClassifyStreamingTests {
    /// 100,000 generated records (`GeneratedPrompts`: English and Turkish, chat prompts and pasted
    /// texts, harmful, emergency and look-alike phrases, disguised ones, a few not UTF-8) through the
    /// bundled rules: `--jobs 2` writes exactly what `--jobs 1` writes, one record per input, in
    /// order; so does `--jobs 4` (three worker threads and the writer taking batches from one queue).
    @Test func twoJobsGiveTheSameOutputAsOne() async throws {
        var prompts = GeneratedPrompts(seed: 7)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(20_000_000)
        for _ in 0..<100_000 {
            bytes += prompts.next()
            bytes.append(0x0A)
        }
        let path = try ClassifyCommandTests.temporaryFile("many.txt", bytes)
        let one = await runCLI(["classify", path, "--jobs", "1", "--quiet"])
        let two = await runCLI(["classify", path, "--jobs", "2", "--quiet"])
        let four = await runCLI(["classify", path, "--jobs", "4", "--quiet"])
        #expect(one.status == 0)
        #expect(two.status == 0)
        #expect(four.status == 0)
        let records = ClassifyCommandTests.lines(one.out)
        #expect(records.count == 100_000)
        let ids = records.map { $0["id"] as? String ?? "" }
        let outOfOrder = ids.indices.first { ids[$0] != String($0 + 1) }
        #expect(outOfOrder == nil, "output record \((outOfOrder ?? 0) + 1) has id \(outOfOrder.map { ids[$0] } ?? "")")
        // (Compared as whole texts; on a difference, the first differing record is reported rather
        // than ten megabytes of output.)
        for (jobs, other) in [(2, two.out), (4, four.out)] {
            let same = one.out == other
            #expect(same, "--jobs \(jobs) differs from --jobs 1: \(Self.firstDifference(one.out, other))")
        }
        // The corpus exercises every label and the repair of bad bytes, so the runs compare more
        // than one kind of record.
        var labels: [String: Int] = [:]
        for record in records { labels[record["label"] as? String ?? "?", default: 0] += 1 }
        #expect(labels["safe", default: 0] > 50_000)
        #expect(labels["harmful", default: 0] > 1_000)
        #expect(labels["emergency", default: 0] > 1_000)
        #expect(records.contains { $0["warning"] != nil })
    }

    /// Where two outputs first differ, for a failure message.
    static func firstDifference(_ a: String, _ b: String) -> String {
        let left = a.split(separator: "\n", omittingEmptySubsequences: false)
        let right = b.split(separator: "\n", omittingEmptySubsequences: false)
        guard let index = left.indices.first(where: { $0 < right.count && left[$0] != right[$0] }) else {
            return "line counts \(left.count) and \(right.count)"
        }
        return "line \(index + 1): \(left[index]) | \(right[index])"
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
            "'\(binary)' classify '\(path)' --jobs 2 | head -1",
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

    // MARK: A slow input

    /// A record comes out as soon as its line is in, while stdin stays open: the run does not hold
    /// it until 256 records, 1 MiB or the end of the input. Each wait is a blocking read of the
    /// output, bounded (only when it fails) at 20 s so that a regression fails instead of hanging.
    @Test(arguments: [1, 2, 3])
    func recordsComeOutWhileTheInputIsStillOpen(jobs: Int) throws {
        let run = try RunningClassify(["--jobs", String(jobs), "--quiet"])
        defer { run.stop() }
        try run.send("hello\n")
        let first = try #require(run.output.next(within: 20), "record 1 was held while stdin stayed open")
        #expect(first.hasPrefix(#"{"id":"1","label":"safe""#), "\(first)")
        try run.send("kill him\n")
        let second = try #require(run.output.next(within: 20), "record 2 was held while stdin stayed open")
        #expect(second.hasPrefix(#"{"id":"2","label":"harmful""#), "\(second)")
        try run.closeInput()
        #expect(run.output.next(within: 20) == nil)
        #expect(run.output.ended, "the output ends with the input")
        #expect(run.wait() == 0)
        #expect(run.errorText().isEmpty)
    }

    /// The CSV header goes out with the first record, not at the end of the input.
    @Test func csvHeaderAndRecordComeOutWhileTheInputIsStillOpen() throws {
        let run = try RunningClassify(["--jobs", "2", "--quiet", "--output-format", "csv"])
        defer { run.stop() }
        try run.send("hello\n")
        let header = try #require(run.output.next(within: 20), "the header was held while stdin stayed open")
        #expect(header == "id,label,type,lang,rules,error")
        let first = try #require(run.output.next(within: 20), "record 1 was held while stdin stayed open")
        #expect(first.hasPrefix("1,safe,"), "\(first)")
        try run.closeInput()
        #expect(run.output.next(within: 20) == nil)
        #expect(run.wait() == 0)
    }

    /// Ctrl-C while the run waits on a quiet stdin ends it at once (the writer is still there):
    /// exit 130, the summary says interrupted, and a line not finished by then is not a record.
    @Test(arguments: [1, 2])
    func interruptWhileWaitingForInputEndsTheRun(jobs: Int) throws {
        let run = try RunningClassify(["--jobs", String(jobs)])
        defer { run.stop() }
        try run.send("hello\n")
        let first = try #require(run.output.next(within: 20), "record 1 was held while stdin stayed open")
        #expect(first.hasPrefix(#"{"id":"1","label":"safe""#))
        // Read or not by the time the signal lands, half a line is never classified.
        try run.send("kill hi")
        run.process.interrupt()
        #expect(run.output.next(within: 20) == nil, "no record for the unfinished line")
        try #require(run.output.ended, "Ctrl-C did not end the run while it waited for input")
        #expect(run.wait() == 130)
        let err = run.errorText()
        #expect(err.contains("1 records"), "\(err)")
        #expect(err.contains("interrupted"), "\(err)")
        try run.closeInput()
    }

    /// The reader's answer to "would the next line wait?" on a pipe, as bytes arrive.
    @Test func lineReaderKnowsWhenAPipeWouldWait() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        defer { close(readEnd) }
        let reader = LineReader(fd: readEnd)
        #expect(reader.nextWouldBlock(), "nothing sent yet")
        Self.send(writeEnd, "partial")
        #expect(reader.nextWouldBlock(), "half a line")
        Self.send(writeEnd, " line\nnext")
        #expect(!reader.nextWouldBlock(), "a whole line is in")
        #expect(reader.next().map(Self.text) == "partial line")
        #expect(reader.nextWouldBlock(), "only half of the next line is in")
        close(writeEnd)
        #expect(!reader.nextWouldBlock(), "the end of the input does not wait")
        #expect(reader.next().map(Self.text) == "next")
        #expect(!reader.nextWouldBlock())
        #expect(reader.next() == nil)
        #expect(reader.bytesRead == 17)
    }

    /// A regular file never waits, before, between and after its lines.
    @Test func lineReaderNeverWaitsOnARegularFile() throws {
        let path = try ClassifyCommandTests.temporaryFile("lines.txt", Array("one\ntwo\nthree".utf8))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let reader = LineReader(fd: fd, chunkSize: 4)
        var lines: [String] = []
        while true {
            #expect(!reader.nextWouldBlock())
            guard let line = reader.next() else { break }
            lines.append(Self.text(line))
        }
        #expect(lines == ["one", "two", "three"])
        #expect(!reader.nextWouldBlock())
    }

    /// The stream asks the file it reads, and at the end of a file the next one: a regular file
    /// followed by a quiet pipe waits only once the file is used up.
    @Test func recordStreamWaitsOnlyForAQuietPipe() throws {
        let path = try ClassifyCommandTests.temporaryFile("first.txt", Array("a\nb\n".utf8))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        let (readEnd, writeEnd) = try Self.pipe()
        let files = InputFiles(files: [
            InputFiles.Opened(name: path, fd: fd, size: 4), InputFiles.Opened(name: "<pipe>", fd: readEnd, size: nil),
        ])
        defer { files.closeAll() }
        let stream = RecordStream(files: files, format: .text, textField: "text", idField: nil)
        #expect(!stream.nextWouldBlock())
        #expect(stream.next()?.text.map(Self.text) == "a")
        #expect(!stream.nextWouldBlock())
        #expect(stream.next()?.text.map(Self.text) == "b")
        #expect(stream.nextWouldBlock(), "the file is used up and the pipe has nothing yet")
        Self.send(writeEnd, "c\n")
        #expect(!stream.nextWouldBlock())
        #expect(stream.next()?.text.map(Self.text) == "c")
        #expect(stream.nextWouldBlock())
        close(writeEnd)
        #expect(!stream.nextWouldBlock())
        #expect(stream.next() == nil)
        #expect(stream.count == 3)
    }

    /// The wake descriptor (Ctrl-C) ends a wait for input: the unfinished line is dropped, the
    /// stream ends without opening the next file, and nothing is called a read error.
    @Test func wakeDescriptorEndsTheWaitAndDropsTheUnfinishedLine() throws {
        let (readEnd, writeEnd) = try Self.pipe()
        let (wakeRead, wakeWrite) = try Self.pipe()
        defer { [writeEnd, wakeRead, wakeWrite].forEach { close($0) } }
        let path = try ClassifyCommandTests.temporaryFile("later.txt", Array("later\n".utf8))
        let later = open(path, O_RDONLY)
        try #require(later >= 0)
        let files = InputFiles(files: [
            InputFiles.Opened(name: "<pipe>", fd: readEnd, size: nil), InputFiles.Opened(name: path, fd: later, size: 6),
        ])
        defer { files.closeAll() }
        let stream = RecordStream(files: files, format: .text, textField: "text", idField: nil, wakeFD: wakeRead)
        Self.send(writeEnd, "whole\nhalf a li")
        #expect(stream.next()?.text.map(Self.text) == "whole")
        #expect(stream.nextWouldBlock())
        // Already readable, so the read below returns at once instead of waiting on the pipe.
        Self.send(wakeWrite, "!")
        #expect(stream.next() == nil)
        #expect(stream.interrupted)
        #expect(stream.next() == nil, "the later file is not read")
        #expect(!stream.nextWouldBlock())
        #expect(stream.count == 1)
        #expect(stream.readErrors.isEmpty)
    }

    static func pipe() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        try #require(Glibc.pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    static func text(_ line: LineReader.Line) -> String { String(decoding: line.bytes, as: UTF8.self) }
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}

/// The built binary running `classify` with the fixture rules, stdin a pipe this test writes to.
final class RunningClassify {
    let process = Process()
    let output: OutputLines
    private let input = Pipe()
    private let errors = Pipe()

    init(_ arguments: [String]) throws {
        let binary = try #require(ChatEndToEndTests.binary, "safegate binary not built")
        let stdout = Pipe()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["classify", "--rules", ClassifyCommandTests.fixtureRules] + arguments
        process.standardInput = input
        process.standardOutput = stdout
        process.standardError = errors
        try process.run()
        output = OutputLines(stdout.fileHandleForReading)
    }

    func send(_ text: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
    }

    func closeInput() throws { try input.fileHandleForWriting.close() }

    /// The exit status (only once the output has ended, so this does not wait long).
    func wait() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    func errorText() -> String {
        String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Ends the process if a failed expectation left it running, so the test never hangs.
    func stop() {
        if process.isRunning { process.terminate() }
    }
}

/// Lines of a process's output, read on a thread of their own so that a test can wait for the
/// next one with a bound (a line that never comes fails the test instead of hanging it).
final class OutputLines: Sendable {
    private struct State {
        var lines: [String] = []
        var partial = Data()
        var ended = false
    }

    private let state = Mutex(State())
    private let arrived = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let data = handle.availableData
                let count = state.withLock { state -> Int in
                    if data.isEmpty {
                        state.ended = true
                        return 1
                    }
                    state.partial.append(data)
                    var count = 0
                    while let newline = state.partial.firstIndex(of: 0x0A) {
                        state.lines.append(String(decoding: state.partial[..<newline], as: UTF8.self))
                        state.partial.removeSubrange(...newline)
                        count += 1
                    }
                    return count
                }
                for _ in 0..<count { arrived.signal() }
                if data.isEmpty { return }
            }
        }
        thread.start()
    }

    /// The output has ended (the process closed it: it exited).
    var ended: Bool { state.withLock { $0.ended } }

    /// The next whole line; nil when the output ended first, or when nothing came within
    /// `seconds` (a bound on failure: a working run answers at once).
    func next(within seconds: Double) -> String? {
        while true {
            if let line = state.withLock({ $0.lines.isEmpty ? nil : $0.lines.removeFirst() }) { return line }
            if ended { return nil }
            guard arrived.wait(timeout: .now() + seconds) == .success else { return nil }
        }
    }
}
