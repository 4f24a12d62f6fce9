#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SafetyCore

/// The input files of a run (or stdin), opened up front so that a file that cannot be opened is
/// reported before any output, then read one after another.
///
/// A file that cannot be opened (missing, a directory, no permission) does not stop the run: like
/// `cat` and `grep`, the others are read and every one of their records is written, the bad one is
/// named on stderr, and the run exits 66 at the end.
struct InputFiles {
    struct Opened {
        var name: String
        var fd: Int32
        /// The size in bytes when known (a regular file), for progress.
        var size: Int?
    }

    var files: [Opened]
    /// One message per file that could not be opened, naming it (escaped) and the reason.
    var failures: [String] = []

    /// Opens `paths` (`-` or none: stdin).
    static func open(_ paths: [String]) -> InputFiles {
        let names = paths.isEmpty ? ["-"] : paths
        var inputs = InputFiles(files: [])
        for name in names {
            if name == "-" {
                inputs.files.append(Opened(name: "<stdin>", fd: 0, size: nil))
                continue
            }
            let shown = TerminalText.escaped(name)
            // A FIFO blocks here until its writer opens it, as with `cat`: reading it at once would
            // find no writer and take the end of input for an empty file.
            let fd = Glibc.open(name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                inputs.failures.append("cannot open \(shown): \(String(cString: strerror(errno)))")
                continue
            }
            var info = stat()
            guard fstat(fd, &info) == 0 else {
                inputs.failures.append("cannot open \(shown): \(String(cString: strerror(errno)))")
                close(fd)
                continue
            }
            if (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                inputs.failures.append("cannot read \(shown): it is a directory")
                continue
            }
            let isRegular = (info.st_mode & S_IFMT) == S_IFREG
            inputs.files.append(Opened(name: name, fd: fd, size: isRegular ? Int(info.st_size) : nil))
        }
        return inputs
    }

    /// The total size when every input is a regular file.
    var totalSize: Int? {
        var total = 0
        for file in files {
            guard let size = file.size else { return nil }
            total += size
        }
        return total
    }

    func closeAll() {
        for file in files where file.fd > 2 { close(file.fd) }
    }
}

/// Reads records from several files in turn, numbering them across files.
final class RecordStream {
    private let files: InputFiles
    private let format: InputFormat?
    private let textField: String
    private let idField: String?
    private let maxRecordBytes: Int
    private var index = 0
    private var reader: (any RecordReader)?
    private var readerBytesBase = 0
    private(set) var count = 0
    /// Read errors (`read(2)` failures), reported at the end; the file's names are escaped.
    private(set) var readErrors: [String] = []

    /// - Parameter maxRecordBytes: the longest record (`--max-record-bytes`); a longer one becomes
    ///   an error record and is skipped in bounded memory.
    init(
        files: InputFiles, format: InputFormat?, textField: String, idField: String?,
        maxRecordBytes: Int = LineReader.defaultMaxLineBytes
    ) {
        self.files = files
        self.format = format
        self.textField = textField
        self.idField = idField
        self.maxRecordBytes = maxRecordBytes
    }

    /// Bytes consumed so far, across files.
    var bytesRead: Int { readerBytesBase + (reader?.bytesRead ?? 0) }

    func next() -> InputRecord? {
        while true {
            if reader == nil {
                guard index < files.files.count else { return nil }
                let file = files.files[index]
                let lines = LineReader(fd: file.fd, maxLineBytes: maxRecordBytes)
                let format = self.format ?? InputFormat.guess(path: file.name)
                switch format {
                case .text: reader = TextRecordReader(lines: lines, file: file.name)
                case .jsonl: reader = JSONLRecordReader(lines: lines, file: file.name, textField: textField, idField: idField)
                case .csv: reader = CSVRecordReader(lines: lines, file: file.name, textField: textField, idField: idField)
                }
                currentLines = lines
            }
            if let record = reader?.next(number: count + 1) {
                count += 1
                guard let mark = currentLines?.utf16ByteOrderMark else { return record }
                // UTF-16 read as UTF-8 would be classified as noise (NULs between the letters):
                // every record of the file is an error that says what to do.
                return InputRecord(
                    number: record.number, source: record.source, id: String(record.number),
                    error: "\(record.source): the file is UTF-16 (byte order mark \(mark)), not UTF-8; "
                        + "convert it first, e.g. iconv -f UTF-16 -t UTF-8")
            }
            if let error = currentLines?.readError {
                readErrors.append(
                    "cannot read \(TerminalText.escaped(files.files[index].name)) past line \(currentLines?.lineNumber ?? 0): "
                        + String(cString: strerror(error)))
            }
            readerBytesBase += reader?.bytesRead ?? 0
            reader = nil
            index += 1
        }
    }

    private var currentLines: LineReader?
}
