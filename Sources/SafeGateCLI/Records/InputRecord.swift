import Foundation

/// One record read from an input file: its text to classify, or why it could not be read.
struct InputRecord: Sendable {
    /// 1-based position among all records of the run.
    var number: Int
    /// Where it came from, for messages: `file:line`.
    var source: String
    /// The id to print: the `--id-field` value, else the record number.
    var id: String
    /// The prompt as raw bytes (UTF-8, possibly invalid for text input).
    var text: [UInt8]?
    /// Why the record cannot be classified.
    var error: String?
    /// Extra fields that `eval` reads from corpus records.
    var fields: [String: any Sendable] = [:]
}

/// The input formats of the contract.
enum InputFormat: String, CaseIterable, Sendable {
    case text, jsonl, csv

    /// From the file extension, else text.
    static func guess(path: String) -> InputFormat {
        let lower = path.lowercased()
        if lower.hasSuffix(".jsonl") || lower.hasSuffix(".ndjson") { return .jsonl }
        if lower.hasSuffix(".csv") { return .csv }
        return .text
    }
}

/// Turns lines of one input into records.
protocol RecordReader: AnyObject {
    /// The next record, or nil at the end of the input.
    func next(number: Int) -> InputRecord?
    /// Bytes consumed so far.
    var bytesRead: Int { get }
}

/// Describes a position for messages.
func location(_ file: String, _ line: Int) -> String { "\(file):\(line)" }

/// The message for a record over `--max-record-bytes`.
func tooLong(_ limit: Int) -> String { "record longer than \(limit) bytes (--max-record-bytes); skipped to the next line" }

/// The byte offset of the first invalid UTF-8 sequence, or nil when the bytes are valid.
func firstInvalidUTF8(_ bytes: [UInt8]) -> Int? {
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    var offset = 0
    var scalarStart = 0
    while true {
        switch decoder.decode(&iterator) {
        case .scalarValue(let scalar):
            offset += UTF8.width(scalar)
            scalarStart = offset
        case .emptyInput:
            return nil
        case .error:
            return scalarStart
        }
    }
}

/// One prompt per line.
final class TextRecordReader: RecordReader {
    let lines: LineReader
    let file: String

    init(lines: LineReader, file: String) {
        self.lines = lines
        self.file = file
    }

    var bytesRead: Int { lines.bytesRead }

    func next(number: Int) -> InputRecord? {
        guard let line = lines.next() else { return nil }
        var record = InputRecord(number: number, source: location(file, line.number), id: String(number), text: line.bytes)
        if line.truncated {
            record.text = nil
            record.error = "\(record.source): \(tooLong(lines.maxLineBytes))"
        }
        return record
    }
}

/// One JSON object per line.
final class JSONLRecordReader: RecordReader {
    let lines: LineReader
    let file: String
    let textField: String
    let idField: String?

    init(lines: LineReader, file: String, textField: String, idField: String?) {
        self.lines = lines
        self.file = file
        self.textField = textField
        self.idField = idField
    }

    var bytesRead: Int { lines.bytesRead }

    func next(number: Int) -> InputRecord? {
        guard let line = lines.next() else { return nil }
        let source = location(file, line.number)
        var record = InputRecord(number: number, source: source, id: String(number))
        if line.truncated {
            record.error = "\(source): \(tooLong(lines.maxLineBytes))"
            return record
        }
        if let offset = firstInvalidUTF8(line.bytes) {
            record.error = "\(source): invalid UTF-8 at byte \(offset + 1) of the line"
            return record
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(line.bytes)) as? [String: Any] else {
                record.error = "\(source): not a JSON object"
                return record
            }
            object = parsed
        } catch {
            record.error = "\(source): not valid JSON (\(Self.describe(error)))"
            return record
        }
        if let idField {
            if let id = Self.scalarText(object[idField]) {
                record.id = id
            } else {
                record.error = "\(source): field \"\(idField)\" (the id) is missing or not a string or number"
            }
        }
        guard let text = object[textField] else {
            record.error = record.error ?? "\(source): field \"\(textField)\" is missing"
            return record
        }
        guard let string = text as? String else {
            record.error = record.error ?? "\(source): field \"\(textField)\" is not a string"
            return record
        }
        if record.error == nil { record.text = Array(string.utf8) }
        for (key, value) in object where key != textField {
            if let value = Self.scalarText(value) { record.fields[key] = value }
            if let list = value as? [Any] { record.fields[key] = list.compactMap { $0 as? String } }
            if value is NSNull { record.fields[key] = Optional<String>.none as (any Sendable) }
        }
        return record
    }

    /// A string, or a number written as text.
    static func scalarText(_ value: Any?) -> String? {
        if let string = value as? String { return string }
        if let number = value as? NSNumber, !(value is Bool) { return number.stringValue }
        return nil
    }

    static func describe(_ error: any Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return text ?? "unreadable"
    }
}

/// RFC 4180 CSV with a header row; quoted fields may hold commas, quotes ("") and newlines.
///
/// A record, quoted line breaks included, is bounded by `maxRecordBytes`: a longer one becomes an
/// error and is skipped to its end without being kept. A quoted field still open at the end of
/// the file becomes an error naming the line where the field started, and the lines after that
/// line are read again, each as a record of its own, so a stray quote loses nothing else.
final class CSVRecordReader: RecordReader {
    let lines: LineReader
    let file: String
    let textField: String
    let idField: String?
    private var header: [String]?
    private var textColumn: Int?
    private var idColumn: Int?
    private var headerError: String?
    /// Fields of a quoted value may span several lines; bounded like a line.
    let maxRecordBytes: Int
    /// Lines to read again after a quoted field that was never closed (last one first).
    private var replay: [LineReader.Line] = []

    init(lines: LineReader, file: String, textField: String, idField: String?, maxRecordBytes: Int? = nil) {
        self.lines = lines
        self.file = file
        self.textField = textField
        self.idField = idField
        self.maxRecordBytes = maxRecordBytes ?? lines.maxLineBytes
    }

    var bytesRead: Int { lines.bytesRead }

    enum Parsed {
        case fields([[UInt8]], firstLine: Int)
        case error(String, firstLine: Int)
    }

    /// Reads one CSV record (possibly several lines).
    func readFields() -> Parsed? {
        let replayed = !replay.isEmpty
        guard var line = replayed ? replay.popLast() : lines.next() else { return nil }
        let firstLine = line.number
        var fields: [[UInt8]] = []
        var field: [UInt8] = []
        var inQuotes = false
        var fieldStarted = false
        // Where the open quoted field started; the lines after the first, to read again if it never closes.
        var quoteLine = firstLine
        var spanned: [LineReader.Line] = []
        var total = 0
        // Past `maxRecordBytes`: the record is only scanned for its end, nothing is kept.
        var discarding = false
        while true {
            if line.truncated {
                return .error(tooLong(lines.maxLineBytes) + (line.number == firstLine ? "" : " (line \(line.number))"), firstLine: firstLine)
            }
            var i = 0
            let bytes = line.bytes
            while i < bytes.count {
                let b = bytes[i]
                if inQuotes {
                    if b == 0x22 {
                        if i + 1 < bytes.count && bytes[i + 1] == 0x22 {
                            if !discarding { field.append(0x22) }
                            i += 2
                            continue
                        }
                        inQuotes = false
                    } else if !discarding {
                        field.append(b)
                    }
                } else if b == 0x22 && !fieldStarted {
                    inQuotes = true
                    fieldStarted = true
                    quoteLine = line.number
                } else if b == 0x2C {
                    if !discarding { fields.append(field) }
                    field = []
                    fieldStarted = false
                } else {
                    if !discarding { field.append(b) }
                    fieldStarted = true
                }
                i += 1
            }
            total += bytes.count
            guard inQuotes else { break }
            if replayed {
                // A line read again stands alone: its quote must close on it.
                return .error("a quoted field starting on this line is not closed on it", firstLine: quoteLine)
            }
            if !discarding && total > maxRecordBytes {
                discarding = true
                fields = []
                field = []
                spanned = []
            }
            // The quoted field goes on past the line break.
            guard let nextLine = lines.next() else {
                if discarding {
                    return .error("a quoted field starting on this line is not closed before the end of the file, "
                        + "and the rest of the file is longer than \(maxRecordBytes) bytes (--max-record-bytes)", firstLine: quoteLine)
                }
                // Lines before the one where the open field started belong to the same record.
                replay = spanned.filter { $0.number > quoteLine }.reversed()
                return .error("a quoted field starting on this line is not closed before the end of the file; "
                    + "the lines after it are read as records of their own", firstLine: quoteLine)
            }
            if !discarding {
                field.append(0x0A)
                spanned.append(nextLine)
            }
            line = nextLine
        }
        if discarding {
            return .error("record (lines \(firstLine)–\(line.number)) longer than \(maxRecordBytes) bytes (--max-record-bytes); skipped", firstLine: firstLine)
        }
        fields.append(field)
        return .fields(fields, firstLine: firstLine)
    }

    func next(number: Int) -> InputRecord? {
        if header == nil && headerError == nil {
            guard let parsed = readFields() else { return nil }
            switch parsed {
            case .error(let message, let line):
                headerError = "\(location(file, line)): header: \(message)"
            case .fields(let names, let line):
                let header = names.map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespaces) }
                self.header = header
                textColumn = header.firstIndex(of: textField)
                if textColumn == nil {
                    headerError = "\(location(file, line)): header has no column \"\(textField)\" (columns: \(header.joined(separator: ", ")))"
                }
                if let idField {
                    idColumn = header.firstIndex(of: idField)
                    if idColumn == nil {
                        headerError = headerError ?? "\(location(file, line)): header has no column \"\(idField)\" (the id)"
                    }
                }
            }
        }
        guard let parsed = readFields() else { return nil }
        switch parsed {
        case .error(let message, let line):
            let source = location(file, line)
            return InputRecord(number: number, source: source, id: String(number), error: "\(source): \(message)")
        case .fields(let fields, let line):
            let source = location(file, line)
            var record = InputRecord(number: number, source: source, id: String(number))
            if let headerError {
                record.error = headerError
                return record
            }
            if let idColumn {
                if idColumn < fields.count {
                    record.id = String(decoding: fields[idColumn], as: UTF8.self)
                } else {
                    record.error = "\(source): no \"\(idField ?? "")\" column in this row"
                }
            }
            guard let textColumn, textColumn < fields.count else {
                record.error = record.error ?? "\(source): no \"\(textField)\" column in this row (\(fields.count) fields)"
                return record
            }
            // Invalid UTF-8 is repaired by the classifier (U+FFFD) and flagged on the output record.
            if record.error == nil { record.text = fields[textColumn] }
            return record
        }
    }
}
