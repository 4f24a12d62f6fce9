#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

@testable import SafeGateCLI

/// Issue 8, broken input: each case of the DEVELOPERS.md "Broken input" table, through
/// `safegate classify` (and `eval` where it reads records). Where the input has records, the
/// output has exactly as many, in order.
@Suite struct BrokenInputTests {
    static let rules = ClassifyCommandTests.fixtureRules

    static func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        try ClassifyCommandTests.temporaryFile(name, bytes)
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The output records of a JSONL run; fails the test on a line that is not a JSON object.
    static func records(_ out: String) -> [[String: Any]] {
        ClassifyCommandTests.lines(out)
    }

    static func ids(_ records: [[String: Any]]) -> [String] { records.map { $0["id"] as? String ?? "?" } }
    static func labels(_ records: [[String: Any]]) -> [String] { records.map { $0["label"] as? String ?? "null" } }

    // MARK: Encodings

    @Test func invalidUTF8InTextIsRepairedClassifiedAndFlagged() async throws {
        // Line 2 is Latin-1 ("café" with é = E9), line 3 holds bytes no encoding produces.
        let input = Self.bytes("hello\n") + Self.bytes("caf") + [0xE9] + Self.bytes(" kill him\n")
            + Self.bytes("bad ") + [0xFF, 0xFE] + Self.bytes(" bytes\n") + Self.bytes("fine\n")
        let path = try Self.file("mixed.txt", input)
        let result = await runCLI(["classify", path, "--rules", Self.rules])
        #expect(result.status == 0)
        let records = Self.records(result.out)
        try #require(records.count == 4)
        #expect(Self.ids(records) == ["1", "2", "3", "4"])
        #expect(Self.labels(records) == ["safe", "harmful", "safe", "safe"])
        #expect(records[0]["warning"] == nil)
        #expect(records[1]["warning"] as? String == "\(path):2: invalid UTF-8 at byte 4 replaced with U+FFFD")
        #expect(records[2]["warning"] as? String == "\(path):3: invalid UTF-8 at byte 5 replaced with U+FFFD")
        #expect(records[3]["warning"] == nil)
        #expect(result.err.contains("invalid UTF-8 repaired 2"))
    }

    @Test func invalidUTF8InCSVIsRepairedAndFlagged() async throws {
        let input = Self.bytes("key,text\nk1,hello\nk2,caf") + [0xE9] + Self.bytes(" kill him\nk3,bye\n")
        let path = try Self.file("mixed.csv", input)
        let result = await runCLI(["classify", path, "--id-field", "key", "--rules", Self.rules])
        #expect(result.status == 0)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["k1", "k2", "k3"])
        #expect(Self.labels(records) == ["safe", "harmful", "safe"])
        #expect((records[1]["warning"] as? String)?.hasSuffix("mixed.csv:3: invalid UTF-8 at byte 4 replaced with U+FFFD") == true)
    }

    /// JSON text must be UTF-8 (RFC 8259 §8.1): a Latin-1 line in a JSONL file is malformed JSON,
    /// an error record; its neighbours are untouched.
    @Test func latin1LineInJSONLIsAnErrorRecordBetweenGoodOnes() async throws {
        let input = Self.bytes("{\"id\":\"a\",\"text\":\"hello\"}\n") + Self.bytes("{\"id\":\"b\",\"text\":\"caf")
            + [0xE9] + Self.bytes("\"}\n") + Self.bytes("{\"id\":\"c\",\"text\":\"kill him\"}\n")
        let path = try Self.file("mixed.jsonl", input)
        let result = await runCLI(["classify", path, "--id-field", "id", "--rules", Self.rules])
        #expect(result.status == 65)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["a", "2", "c"])
        #expect(Self.labels(records) == ["safe", "null", "harmful"])
        #expect(records[1]["error"] as? String == "\(path):2: invalid UTF-8 at byte 22 of the line")
    }

    @Test func byteOrderMarkIsDroppedInEveryFormat() async throws {
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let text = try Self.file("bom.txt", bom + Self.bytes("kill him\nhello\n"))
        let jsonl = try Self.file("bom.jsonl", bom + Self.bytes("{\"id\":\"x1\",\"text\":\"kill him\"}\n{\"id\":\"x2\",\"text\":\"hi\"}\n"))
        let csv = try Self.file("bom.csv", bom + Self.bytes("key,text\nc1,kill him\n"))

        let textRun = await runCLI(["classify", text, "--output-format", "table", "--rules", Self.rules])
        #expect(textRun.status == 0)
        #expect(!textRun.out.contains("FEFF"), "the mark is not part of the prompt")
        #expect(textRun.out.contains("harmful    violence       en   kill him\n"))

        let jsonlRun = await runCLI(["classify", jsonl, "--id-field", "id", "--rules", Self.rules])
        #expect(jsonlRun.status == 0)
        #expect(Self.ids(Self.records(jsonlRun.out)) == ["x1", "x2"])
        #expect(Self.labels(Self.records(jsonlRun.out)) == ["harmful", "safe"])

        let csvRun = await runCLI(["classify", csv, "--id-field", "key", "--rules", Self.rules])
        #expect(csvRun.status == 0, "the header's first column is `key`, not `\u{FEFF}key`")
        #expect(Self.ids(Self.records(csvRun.out)) == ["c1"])
        #expect(Self.labels(Self.records(csvRun.out)) == ["harmful"])

        // A file holding only the mark is an empty file.
        let onlyMark = try Self.file("only-bom.txt", bom)
        let empty = await runCLI(["classify", onlyMark, "--rules", Self.rules])
        #expect(empty.status == 0)
        #expect(empty.out.isEmpty)
    }

    @Test func byteOrderMarkIsDroppedOnlyAtTheStart() async throws {
        let path = try Self.file("late-bom.txt", Self.bytes("a\n") + [0xEF, 0xBB, 0xBF] + Self.bytes("b\n"))
        let result = await runCLI(["classify", path, "--output-format", "table", "--rules", Self.rules])
        #expect(result.status == 0)
        #expect(result.out.contains("\\u{FEFF}b"), "inside the file it is text, shown escaped")
    }

    /// UTF-16 read as UTF-8 is letters with NULs between them, which the rules would not read:
    /// every line is an error record saying what to do, and the run exits 65.
    @Test func utf16FileIsAnErrorRecordPerLine() async throws {
        let text = "hello\nkill him\n"
        let bigEndian: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        let littleEndian: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { (unit: UInt16) -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        // Little-endian: the NUL after the last LF is one more line.
        let cases: [([UInt8], Int)] = [(bigEndian, 2), (littleEndian, 3)]
        for (bytes, count) in cases {
            let path = try Self.file("utf16.txt", bytes)
            let result = await runCLI(["classify", path, "--rules", Self.rules])
            #expect(result.status == 65)
            let records = Self.records(result.out)
            #expect(records.count == count)
            #expect(records.allSatisfy { ($0["error"] as? String)?.contains("is UTF-16 (byte order mark") == true })
            #expect((records.first?["error"] as? String)?.hasPrefix("\(path):1: ") == true)
        }
        let csv = try Self.file("utf16.csv", bigEndian)
        let csvRun = await runCLI(["classify", csv, "--rules", Self.rules])
        #expect(csvRun.status == 65)
        #expect(Self.records(csvRun.out).count == 1, "the first line is the header")
    }

    // MARK: Line ends

    @Test func crlfEndsALineAndALoneCRIsText() async throws {
        // CRLF lines, a lone CR inside line 2, and a last line ending in CR with no LF.
        let path = try Self.file("crlf.txt", Self.bytes("hello\r\nkill\rhim\r\nx\ry\r"))
        let result = await runCLI(["classify", path, "--output-format", "table", "--rules", Self.rules])
        #expect(result.status == 0)
        let rows = result.out.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().filter { !$0.isEmpty }
        #expect(rows.count == 3)
        #expect(!result.out.unicodeScalars.contains("\r"))
        #expect(rows[1].hasSuffix("kill\\u{D}him"), "the lone CR is part of the prompt, shown escaped")
        #expect(rows[2].hasSuffix("x\\u{D}y"), "the CR before the end of the input ends the line")

        let jsonl = try Self.file("crlf.jsonl", Self.bytes("{\"id\":\"a\",\"text\":\"kill him\"}\r\n{\"id\":\"b\",\"text\":\"a\\rb\"}\r\n"))
        let jsonlRun = await runCLI(["classify", jsonl, "--id-field", "id", "--rules", Self.rules])
        #expect(jsonlRun.status == 0)
        #expect(Self.ids(Self.records(jsonlRun.out)) == ["a", "b"])
        #expect(Self.labels(Self.records(jsonlRun.out)) == ["harmful", "safe"])
    }

    // MARK: NUL bytes

    /// A prompt is text, not a C string: a NUL byte neither ends it nor makes it an error.
    @Test func nulBytesAreTextAndDoNotCutThePrompt() async throws {
        let path = try Self.file("nul.txt", Self.bytes("hello") + [0] + Self.bytes("kill him\n") + [0] + Self.bytes("\nbye\n"))
        let result = await runCLI(["classify", path, "--rules", Self.rules])
        #expect(result.status == 0)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["1", "2", "3"])
        #expect(Self.labels(records) == ["harmful", "safe", "safe"], "the words after the NUL were classified")

        let table = await runCLI(["classify", path, "--output-format", "table", "--rules", Self.rules])
        #expect(table.out.contains("hello\\u{0}kill him"))
        #expect(!table.out.unicodeScalars.contains("\u{0}"))

        // In JSONL, an escaped NUL (\u0000) is text; a raw one is not JSON (RFC 8259 §7).
        let jsonl = try Self.file("nul.jsonl", Self.bytes("{\"text\":\"hello\\u0000kill him\"}\n{\"text\":\"raw ") + [0] + Self.bytes("\"}\n{\"text\":\"ok\"}\n"))
        let jsonlRun = await runCLI(["classify", jsonl, "--rules", Self.rules])
        #expect(jsonlRun.status == 65)
        let jsonlRecords = Self.records(jsonlRun.out)
        #expect(Self.ids(jsonlRecords) == ["1", "2", "3"])
        #expect(Self.labels(jsonlRecords) == ["harmful", "null", "safe"])
        #expect((jsonlRecords[1]["error"] as? String)?.hasPrefix("\(jsonl):2: not valid JSON") == true)

        let csv = try Self.file("nul.csv", Self.bytes("text\nhello") + [0] + Self.bytes("kill him\nok\n"))
        let csvRun = await runCLI(["classify", csv, "--rules", Self.rules])
        #expect(csvRun.status == 0)
        #expect(Self.labels(Self.records(csvRun.out)) == ["harmful", "safe"])
    }

    // MARK: Empty files and last lines

    @Test(arguments: ["empty.txt", "empty.jsonl", "empty.csv"])
    func emptyFileGivesNoRecordsAndExit0(name: String) async throws {
        let path = try Self.file(name, [])
        let result = await runCLI(["classify", path, "--rules", Self.rules])
        #expect(result.status == 0)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("0 records"))
    }

    @Test func csvWithOnlyAHeaderGivesNoRecords() async throws {
        let path = try Self.file("header.csv", Self.bytes("id,text"))
        let result = await runCLI(["classify", path, "--output-format", "csv", "--rules", Self.rules])
        #expect(result.status == 0)
        #expect(result.out == "id,label,type,lang,rules,error\n")
    }

    @Test func lastLineWithoutNewlineIsARecordInEveryFormat() async throws {
        let text = try Self.file("last.txt", Self.bytes("hello\nkill him"))
        let jsonl = try Self.file("last.jsonl", Self.bytes("{\"text\":\"hello\"}\n{\"text\":\"kill him\"}"))
        let csv = try Self.file("last.csv", Self.bytes("text\nhello\n\"kill him\""))
        for path in [text, jsonl, csv] {
            let result = await runCLI(["classify", path, "--rules", Self.rules])
            #expect(result.status == 0, "\(path)")
            #expect(Self.labels(Self.records(result.out)) == ["safe", "harmful"], "\(path)")
        }
    }

    // MARK: Files that cannot be read

    @Test func directoryAmongFilesIsNamedAndTheOthersAreAllWritten() async throws {
        let first = try Self.file("first.txt", Self.bytes("a\nkill him\n"))
        let directory = URL(fileURLWithPath: first).deletingLastPathComponent().path
        let second = try Self.file("second.txt", Self.bytes("c\n"))
        let result = await runCLI(["classify", first, directory, second, "--rules", Self.rules])
        #expect(result.status == 66)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["1", "2", "3"])
        #expect(Self.labels(records) == ["safe", "harmful", "safe"])
        #expect(result.err.contains("safegate classify: cannot read \(directory): it is a directory"))
        #expect(result.err.contains("1 input file could not be read"))
    }

    /// Tests run as root, so `chmod 000` would not stop the read. Two honest failures instead: a
    /// path through a regular file (open fails, ENOTDIR), and `/proc/self/mem`, which opens but
    /// whose first `read(2)` fails with EIO (offset 0 is never mapped).
    @Test func unopenableAndUnreadableFilesExit66AndLoseNoOtherRecord() async throws {
        let good = try Self.file("good.txt", Self.bytes("hello\nkill him\n"))
        let throughFile = good + "/child.txt"
        let result = await runCLI(["classify", throughFile, good, "/proc/self/mem", good, "--rules", Self.rules])
        #expect(result.status == 66)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["1", "2", "3", "4"])
        #expect(Self.labels(records) == ["safe", "harmful", "safe", "harmful"])
        #expect(result.err.contains("cannot open \(throughFile): Not a directory"))
        #expect(result.err.contains("cannot read /proc/self/mem past line 0: Input/output error"))
        #expect(result.err.contains("2 input files could not be read"))
    }

    @Test func evalRefusesAPartialCorpus() async throws {
        let corpus = try Self.file("c.jsonl", Self.bytes("{\"id\":\"e1\",\"text\":\"hello\",\"label\":\"safe\"}\n"))
        let result = await runCLI(["eval", corpus, corpus + "/missing", "--rules", Self.rules])
        #expect(result.status == 66)
        #expect(result.out.isEmpty)
        #expect(result.err.contains("cannot open \(corpus)/missing"))
    }

    // MARK: CSV quotes

    @Test func truncatedCSVQuoteIsAnErrorAtTheFieldsLineAndLaterLinesAreKept() async throws {
        let input = "key,text\nk1,\"multi\nline\"\nk2,\"never closed\nk3,after\nk4,kill him\n"
        let path = try Self.file("open-quote.csv", Self.bytes(input))
        let result = await runCLI(["classify", path, "--id-field", "key", "--rules", Self.rules])
        #expect(result.status == 65)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["k1", "2", "k3", "k4"])
        #expect(Self.labels(records) == ["safe", "null", "safe", "harmful"])
        let error = try #require(records[1]["error"] as? String)
        #expect(error.hasPrefix("\(path):4: a quoted field starting on this line is not closed before the end of the file"))
    }

    @Test func quoteOpenedOnALaterLineOfTheRecordIsNamedThere() async throws {
        // The record starts on line 2; its second quoted field opens on line 3 and never closes.
        let input = "a,text\n\"x\ny\",\"open\nnext\n"
        let path = try Self.file("later.csv", Self.bytes(input))
        let result = await runCLI(["classify", path, "--rules", Self.rules])
        #expect(result.status == 65)
        let records = Self.records(result.out)
        try #require(records.count == 2)
        #expect((records[0]["error"] as? String)?.hasPrefix("\(path):3: a quoted field") == true)
        // `next` has one field and no `text` column: an error record of its own, not lost.
        #expect((records[1]["error"] as? String)?.hasPrefix("\(path):4: no \"text\" column") == true)
    }

    // MARK: Line bounds

    /// A 3 MB line between two good ones, with the default bound (1 MiB): an error record naming
    /// file and line, the neighbours classified, exit 65.
    @Test(arguments: ["long.txt", "long.jsonl"])
    func overLongLineIsAnErrorRecordAndTheNextLineIsRead(name: String) async throws {
        let long = String(repeating: "a", count: 3_000_000)
        let lines = name.hasSuffix(".jsonl")
            ? ["{\"text\":\"hello\"}", "{\"text\":\"\(long)\"}", "{\"text\":\"kill him\"}"] : ["hello", long, "kill him"]
        let path = try Self.file(name, Self.bytes(lines.joined(separator: "\n") + "\n"))
        let result = await runCLI(["classify", path, "--rules", Self.rules])
        #expect(result.status == 65)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["1", "2", "3"])
        #expect(Self.labels(records) == ["safe", "null", "harmful"])
        #expect(records[1]["error"] as? String
            == "\(path):2: record longer than 1048576 bytes (--max-record-bytes); skipped to the next line")
    }

    @Test func maxRecordBytesFlagSetsTheBound() async throws {
        let path = try Self.file("bound.txt", Self.bytes("12345678\n123456789\n12345678\r\n"))
        let result = await runCLI(["classify", path, "--max-record-bytes", "8", "--rules", Self.rules])
        #expect(result.status == 65)
        #expect(Self.labels(Self.records(result.out)) == ["safe", "null", "safe"], "8 bytes fit; 9 do not; the CR does not count")
        let suffixed = await runCLI(["classify", path, "--max-record-bytes", "1K", "--rules", Self.rules])
        #expect(suffixed.status == 0)
        for bad in ["0", "-1", "ten", "1T"] {
            #expect(await runCLI(["classify", path, "--max-record-bytes", bad]).status == 64, "\(bad)")
        }
    }

    @Test func overLongQuotedCSVRecordIsSkippedToItsEnd() async throws {
        // The quoted field spans three lines and 3 × 600 bytes: over a 1 KiB bound, it becomes one
        // error record, and the record after it is read from its own first line.
        let chunk = String(repeating: "b", count: 600)
        let input = "key,text\nk1,hi\nk2,\"\(chunk)\n\(chunk)\n\(chunk)\"\nk3,kill him\n"
        let path = try Self.file("long.csv", Self.bytes(input))
        let result = await runCLI(["classify", path, "--id-field", "key", "--max-record-bytes", "1K", "--rules", Self.rules])
        #expect(result.status == 65)
        let records = Self.records(result.out)
        #expect(Self.ids(records) == ["k1", "2", "k3"])
        #expect(Self.labels(records) == ["safe", "null", "harmful"])
        #expect((records[1]["error"] as? String)?.hasPrefix("\(path):3: record (lines 3–5) longer than 1024 bytes") == true)
    }

    @Test func evalReportsAnOverLongCorpusRecord() async throws {
        let long = String(repeating: "z", count: 5000)
        let input = "{\"id\":\"e1\",\"text\":\"hello\",\"label\":\"safe\"}\n{\"id\":\"e2\",\"text\":\"\(long)\",\"label\":\"safe\"}\n"
        let path = try Self.file("corpus.jsonl", Self.bytes(input))
        let result = await runCLI(["eval", path, "--max-record-bytes", "4K", "--rules", Self.rules])
        #expect(result.status == 65)
        #expect(result.out.hasPrefix("1 records"))
        #expect(result.err.contains("\(path):2: record longer than 4096 bytes"))
    }

    /// The reader keeps nothing of an over-long line and finds the next one across chunk
    /// boundaries; the bound holds at exactly N bytes, with or without CR.
    @Test(arguments: [3, 4, 5, 7, 9, 64])
    func lineReaderBoundsAcrossChunks(chunkSize: Int) throws {
        let lines = [
            "abcdefgh", "abcdefghi", String(repeating: "x", count: 100), "abcdefgh\r", "abcdefghi\r", "", "x\ry",
            "tail\r",
        ]
        let path = try Self.file("chunks.txt", Self.bytes(lines.joined(separator: "\n")))
        let fd = open(path, O_RDONLY)
        try #require(fd >= 0)
        defer { close(fd) }
        let reader = LineReader(fd: fd, chunkSize: chunkSize, maxLineBytes: 8)
        var seen: [(String, Bool)] = []
        while let line = reader.next() { seen.append((String(decoding: line.bytes, as: UTF8.self), line.truncated)) }
        #expect(seen.map(\.0) == ["abcdefgh", "", "", "abcdefgh", "", "", "x\ry", "tail"])
        #expect(seen.map(\.1) == [false, true, true, false, true, false, false, false])
        #expect(reader.lineNumber == 8)
    }

    @Test func byteOrderMarkArrivingInShortReadsIsStillDropped() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        // Write the mark one byte at a time before the reader looks; the pipe keeps them as one
        // buffer, so also check the reader with a 1-byte chunk size.
        for byte in [0xEF, 0xBB, 0xBF] as [UInt8] + Array("hi\n".utf8) {
            var value = byte
            _ = write(fds[1], &value, 1)
        }
        close(fds[1])
        defer { close(fds[0]) }
        let reader = LineReader(fd: fds[0], chunkSize: 1)
        #expect(reader.next().map { String(decoding: $0.bytes, as: UTF8.self) } == "hi")
        #expect(reader.next() == nil)
    }

    /// Looking for the mark must not hold back a short first line: `a` then LF typed at a
    /// terminal comes back before any third byte arrives. The writer stays open, so a reader that
    /// waited for more would block; the test gives it 10 s (returning at once when it works),
    /// then unblocks it and fails.
    @Test func shortFirstLineIsNotHeldBackWaitingForAMark() throws {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        let (readEnd, writeEnd) = (fds[0], fds[1])
        var bytes: [UInt8] = Array("a\n".utf8)
        _ = write(writeEnd, &bytes, 2)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var first: String?
        let thread = Thread {
            let reader = LineReader(fd: readEnd)
            first = reader.next().map { String(decoding: $0.bytes, as: UTF8.self) }
            done.signal()
        }
        thread.start()
        let inTime = done.wait(timeout: .now() + 10) == .success
        close(writeEnd)
        if !inTime { done.wait() }
        close(readEnd)
        #expect(inTime, "the first line waited for a third byte")
        #expect(first == "a")
    }
}
