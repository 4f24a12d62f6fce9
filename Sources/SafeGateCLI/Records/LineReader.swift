#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor as lines of bytes, in large chunks, without holding more than one
/// chunk and one line in memory. Lines end at LF; a CR before it is dropped (CRLF files), and a
/// last line without a newline still counts.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    /// Lines longer than this are cut off and reported as too long (one 2 GB line must not
    /// exhaust memory); the rest of the line is skipped.
    let maxLineBytes: Int
    /// The 1-based number of the last line returned.
    private(set) var lineNumber = 0
    /// Bytes consumed so far (for progress).
    private(set) var bytesRead = 0
    /// An error from `read(2)`, if one happened.
    private(set) var readError: Int32?

    init(fd: Int32, chunkSize: Int = 1 << 16, maxLineBytes: Int = 16 << 20) {
        self.fd = fd
        buffer = [UInt8](repeating: 0, count: chunkSize)
        self.maxLineBytes = maxLineBytes
    }

    struct Line {
        var bytes: [UInt8]
        var number: Int
        /// The line was longer than `maxLineBytes`; `bytes` holds its start only.
        var truncated: Bool
    }

    /// The next line, or nil at the end of the input.
    func next() -> Line? {
        var line: [UInt8] = []
        var truncated = false
        var sawAny = false
        while true {
            if start == end {
                if eof || !fill() {
                    guard sawAny else { return nil }
                    lineNumber += 1
                    return Line(bytes: line, number: lineNumber, truncated: truncated)
                }
            }
            sawAny = true
            let newline = buffer[start..<end].firstIndex(of: 0x0A)
            let stop = newline ?? end
            let room = maxLineBytes - line.count
            if room > 0 {
                line.append(contentsOf: buffer[start..<min(stop, start + room)])
            }
            if stop - start > max(room, 0) { truncated = true }
            if let newline {
                start = newline + 1
                if line.last == 0x0D { line.removeLast() }
                lineNumber += 1
                return Line(bytes: line, number: lineNumber, truncated: truncated)
            }
            start = end
        }
    }

    private func fill() -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                start = 0
                end = count
                bytesRead += count
                return true
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { readError = errno }
            eof = true
            return false
        }
    }
}
