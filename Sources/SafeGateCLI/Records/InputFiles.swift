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
    private let wakeFD: Int32?
    /// The index of the last file whose reads can wait for a writer (a pipe, a terminal), -1 when
    /// all are regular files: from past it on, `nextWouldBlock()` is false without asking anyone.
    private let lastBlockingFile: Int
    private var index = 0
    private var reader: (any RecordReader)?
    private var readerBytesBase = 0
    private(set) var count = 0
    /// Read errors (`read(2)` failures), reported at the end; the file's names are escaped.
    private(set) var readErrors: [String] = []
    /// The wake descriptor fired while waiting for input: the stream has ended, and the files
    /// after the current one are not read.
    private(set) var interrupted = false

    /// - Parameters:
    ///   - maxRecordBytes: the longest record (`--max-record-bytes`); a longer one becomes an error
    ///     record and is skipped in bounded memory.
    ///   - wakeFD: a descriptor that becomes readable when reading should stop (`Interrupt`), so that
    ///     Ctrl-C ends a wait for input; nil (`eval`) waits as long as the input takes.
    init(
        files: InputFiles, format: InputFormat?, textField: String, idField: String?,
        maxRecordBytes: Int = LineReader.defaultMaxLineBytes, wakeFD: Int32? = nil
    ) {
        self.files = files
        self.format = format
        self.textField = textField
        self.idField = idField
        self.maxRecordBytes = maxRecordBytes
        self.wakeFD = wakeFD
        lastBlockingFile = files.files.lastIndex { !LineReader.neverBlocks(fd: $0.fd) } ?? -1
    }

    /// Bytes consumed so far, across files.
    var bytesRead: Int { readerBytesBase + (reader?.bytesRead ?? 0) }

    /// Whether `next()` would wait for input (a pipe or terminal that has not sent the next line
    /// yet), so that the caller can write what it holds first. Never waits. When the current file
    /// is used up, the next file's first read is what counts.
    ///
    /// Costs nothing on regular files (no system call, no search); on a pipe, a search for the
    /// next LF that `next()` then reuses, and one `poll(2)` per read.
    func nextWouldBlock() -> Bool {
        if interrupted || index > lastBlockingFile { return false }
        var upcoming = index
        if let lines = currentLines {
            if lines.nextWouldBlock() { return true }
            if !lines.atEnd || lines.interrupted { return false }
            upcoming += 1
        }
        guard upcoming < files.files.count else { return false }
        return LineReader.wouldBlock(fd: files.files[upcoming].fd)
    }

    func next() -> InputRecord? {
        while !interrupted {
            if reader == nil {
                guard index < files.files.count else { return nil }
                let file = files.files[index]
                let lines = LineReader(fd: file.fd, maxLineBytes: maxRecordBytes, wakeFD: wakeFD)
                let format = self.format ?? InputFormat.guess(path: file.name)
                switch format {
                case .text: reader = TextRecordReader(lines: lines, file: file.name)
                case .jsonl: reader = JSONLRecordReader(lines: lines, file: file.name, textField: textField, idField: idField)
                case .csv: reader = CSVRecordReader(lines: lines, file: file.name, textField: textField, idField: idField)
                }
                currentLines = lines
            }
            let record = reader?.next(number: count + 1)
            if currentLines?.interrupted == true {
                // Ctrl-C while waiting: what was not complete by then (a line, a CSV record whose
                // quoted field spans lines) is dropped, and the later files are not opened.
                interrupted = true
                return nil
            }
            if let record {
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
            currentLines = nil
            index += 1
        }
        return nil
    }

    private var currentLines: LineReader?
}
