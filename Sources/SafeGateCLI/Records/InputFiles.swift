#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// The input files of a run (or stdin), opened up front so that a missing file fails the run
/// before any output (exit 66), then read one after another.
struct InputFiles {
    struct Opened {
        var name: String
        var fd: Int32
        /// The size in bytes when known (a regular file), for progress.
        var size: Int?
    }

    var files: [Opened]

    /// Opens `paths` (`-` or none: stdin). Throws a message naming the file and the reason.
    static func open(_ paths: [String]) throws(InputError) -> InputFiles {
        let names = paths.isEmpty ? ["-"] : paths
        var files: [Opened] = []
        for name in names {
            if name == "-" {
                files.append(Opened(name: "<stdin>", fd: 0, size: nil))
                continue
            }
            let fd = Glibc.open(name, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                let reason = String(cString: strerror(errno))
                for file in files where file.fd > 2 { close(file.fd) }
                throw InputError(message: "cannot open \(name): \(reason)")
            }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR {
                close(fd)
                for file in files where file.fd > 2 { close(file.fd) }
                throw InputError(message: "cannot read \(name): it is a directory")
            }
            let isRegular = (info.st_mode & S_IFMT) == S_IFREG
            files.append(Opened(name: name, fd: fd, size: isRegular ? Int(info.st_size) : nil))
        }
        return InputFiles(files: files)
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

struct InputError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Reads records from several files in turn, numbering them across files.
final class RecordStream {
    private let files: InputFiles
    private let format: InputFormat?
    private let textField: String
    private let idField: String?
    private var index = 0
    private var reader: (any RecordReader)?
    private var readerBytesBase = 0
    private(set) var count = 0
    /// Read errors (`read(2)` failures), reported at the end.
    private(set) var readErrors: [String] = []

    init(files: InputFiles, format: InputFormat?, textField: String, idField: String?) {
        self.files = files
        self.format = format
        self.textField = textField
        self.idField = idField
    }

    /// Bytes consumed so far, across files.
    var bytesRead: Int { readerBytesBase + (reader?.bytesRead ?? 0) }

    func next() -> InputRecord? {
        while true {
            if reader == nil {
                guard index < files.files.count else { return nil }
                let file = files.files[index]
                let lines = LineReader(fd: file.fd)
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
                return record
            }
            if let error = currentLines?.readError {
                readErrors.append("\(files.files[index].name): read failed: \(String(cString: strerror(error)))")
            }
            readerBytesBase += reader?.bytesRead ?? 0
            reader = nil
            index += 1
        }
    }

    private var currentLines: LineReader?
}
