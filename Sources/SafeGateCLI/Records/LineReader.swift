#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor as lines of bytes, in large chunks, without holding more than one
/// chunk and one line in memory. Lines end at LF; a CR before it (or before the end of the
/// input) is dropped (CRLF files), a CR anywhere else is text, and a last line without a newline
/// still counts. A UTF-8 byte order mark at the very start of the input is dropped.
final class LineReader {
    private let fd: Int32
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    /// Lines longer than this are reported as too long and skipped up to the next newline in
    /// bounded memory (one 2 GB line must not exhaust memory): nothing of them is kept.
    let maxLineBytes: Int
    /// Whether the first line has been returned (the byte order mark is looked for before it).
    private var startedInput = false
    /// The input starts with a UTF-16 byte order mark (FF FE or FE FF): it is not UTF-8, and its
    /// lines are not text this reader can give (set once the first line is read).
    private(set) var utf16ByteOrderMark: String?
    /// The 1-based number of the last line returned.
    private(set) var lineNumber = 0
    /// Bytes consumed so far (for progress).
    private(set) var bytesRead = 0
    /// An error from `read(2)`, if one happened.
    private(set) var readError: Int32?

    /// The default bound on a line: 1 MiB (`--max-record-bytes`).
    static let defaultMaxLineBytes = 1 << 20

    init(fd: Int32, chunkSize: Int = 1 << 16, maxLineBytes: Int = LineReader.defaultMaxLineBytes) {
        self.fd = fd
        // At least three bytes, to see a byte order mark whole.
        buffer = [UInt8](repeating: 0, count: max(chunkSize, 3))
        self.maxLineBytes = maxLineBytes
    }

    struct Line {
        var bytes: [UInt8]
        var number: Int
        /// The line was longer than `maxLineBytes`; `bytes` is empty.
        var truncated: Bool
    }

    /// The next line, or nil at the end of the input.
    func next() -> Line? {
        var line: [UInt8] = []
        // Bytes of the line seen so far, kept or not (a CR held back from the limit's count below).
        var length = 0
        var truncated = false
        var sawAny = false
        if !startedInput {
            startedInput = true
            // A file holding only a byte order mark is an empty file.
            _ = skipByteOrderMark()
        }
        while true {
            if start == end {
                if eof || !fill() {
                    guard sawAny else { return nil }
                    return finish(&line, truncated: truncated)
                }
            }
            sawAny = true
            let newline = nextNewline()
            let stop = newline ?? end
            length += stop - start
            if !truncated { line.append(contentsOf: buffer[start..<stop]) }
            // A CR ending the line is not part of it, so does not count against the limit; until
            // the newline is seen, one byte more than the limit may be that CR.
            let over: Bool
            if newline != nil {
                over = length - (!truncated && line.last == 0x0D ? 1 : 0) > maxLineBytes
            } else {
                over = length > maxLineBytes + 1
            }
            if over && !truncated {
                truncated = true
                line = []
            }
            if let newline {
                start = newline + 1
                return finish(&line, truncated: truncated)
            }
            start = end
        }
    }

    /// Ends the current line: drops a CR before its end and counts it.
    private func finish(_ line: inout [UInt8], truncated: Bool) -> Line {
        if line.last == 0x0D { line.removeLast() }
        let tooLong = truncated || line.count > maxLineBytes
        if tooLong { line = [] }
        lineNumber += 1
        return Line(bytes: line, number: lineNumber, truncated: tooLong)
    }

    /// The index of the next LF in `buffer[start..<end]` (`memchr`: fast even in debug builds,
    /// where an over-long line is scanned at a few MB/s otherwise).
    private func nextNewline() -> Int? {
        buffer.withUnsafeBufferPointer { pointer in
            guard let base = pointer.baseAddress, end > start,
                let found = memchr(base + start, 0x0A, end - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Drops EF BB BF at the very start of the input (reading up to three bytes to see it).
    /// True when one was dropped.
    private func skipByteOrderMark() -> Bool {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        // Only while what came so far could still be a mark: `a\n` typed on a terminal must not
        // wait for a third byte.
        func couldBeMark() -> Bool {
            let seen = buffer[start..<end]
            if seen.elementsEqual(mark.prefix(seen.count)) { return true }
            // FF FE or FE FF: UTF-16, two bytes are enough.
            return seen.count < 2 && (seen.first == 0xFF || seen.first == 0xFE)
        }
        while end - start < 3 && !eof && couldBeMark() {
            // Short reads (a pipe): gather three bytes at the front of the buffer.
            if start > 0 {
                let pending = Array(buffer[start..<end])
                buffer.replaceSubrange(0..<pending.count, with: pending)
                end = pending.count
                start = 0
            }
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + end, $0.count - end) }
            if count > 0 {
                end += count
                bytesRead += count
            } else if count < 0 && errno == EINTR {
                continue
            } else {
                if count < 0 { readError = errno }
                eof = true
            }
        }
        if end - start >= 2 {
            switch (buffer[start], buffer[start + 1]) {
            case (0xFF, 0xFE): utf16ByteOrderMark = "FF FE"
            case (0xFE, 0xFF): utf16ByteOrderMark = "FE FF"
            default: break
            }
        }
        guard end - start >= 3, Array(buffer[start..<start + 3]) == mark else { return false }
        start += 3
        return true
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
