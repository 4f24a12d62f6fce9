#if canImport(Glibc)
import Glibc
#endif

/// Reads a file descriptor as lines of bytes, in large chunks, without holding more than one
/// chunk and one line in memory. Lines end at LF; a CR before it (or before the end of the
/// input) is dropped (CRLF files), a CR anywhere else is text, and a last line without a newline
/// still counts. A UTF-8 byte order mark at the very start of the input is dropped.
///
/// A pipe or terminal can be slow: `nextWouldBlock()` says, without waiting, whether the next line
/// has arrived, so that a caller can write what it has before it waits (`tail -f log | safegate
/// classify`). While it waits, a wake descriptor (Ctrl-C) ends the input: `Interrupt` ignores
/// SIGINT and sees it through a dispatch source, so the signal itself never cuts a `read(2)` short.
final class LineReader {
    private let fd: Int32
    /// Readable once reading should stop (`Interrupt`); never drained, so it stays readable.
    private let wakeFD: Int32?
    /// A regular file (or block device): reading it never waits for a writer, so it is never polled.
    private let neverBlocks: Bool
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var eof = false
    /// The index of the next LF when already found by `nextWouldBlock()`, so `next()` does not
    /// search for it again; valid only while it is at or after `start` (-1: not known).
    private var knownNewline = -1
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
    /// The wake descriptor fired while this reader waited for input: the input ends there, and a
    /// line not complete by then is dropped (it was never sent whole).
    private(set) var interrupted = false

    /// The default bound on a line: 1 MiB (`--max-record-bytes`).
    static let defaultMaxLineBytes = 1 << 20

    /// - Parameter wakeFD: a descriptor that becomes readable when reading should stop (Ctrl-C);
    ///   with none, a read waits for its input as long as it takes.
    init(fd: Int32, chunkSize: Int = 1 << 16, maxLineBytes: Int = LineReader.defaultMaxLineBytes, wakeFD: Int32? = nil) {
        self.fd = fd
        self.wakeFD = wakeFD
        neverBlocks = Self.neverBlocks(fd: fd)
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
                    // Interrupted mid-line: the rest of the line never came, so it is not a record.
                    guard sawAny, !interrupted else { return nil }
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
        if knownNewline >= start { return knownNewline }
        let found: Int? = buffer.withUnsafeBufferPointer { pointer in
            guard let base = pointer.baseAddress, end > start,
                let found = memchr(base + start, 0x0A, end - start)
            else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        knownNewline = found ?? -1
        return found
    }

    /// The input is used up: nothing buffered, and the end of the input (or an error, or the wake
    /// descriptor) seen.
    var atEnd: Bool { eof && start == end }

    /// Whether `next()` would wait for input: no whole line is buffered and the input has nothing
    /// more yet. Never waits itself; what the input has now is read into the buffer, so asking
    /// costs no extra `read(2)`, and a pipe is polled at most once per read (a regular file never):
    /// a whole buffered line answers without a system call.
    ///
    /// False at the end of the input (`next()` answers at once), and for a line longer than the
    /// buffer (its rest is read as it comes). True after a partial line whose rest has not come.
    func nextWouldBlock() -> Bool {
        while !eof {
            if nextNewline() != nil { return false }
            if end - start == buffer.count { return false }
            if !neverBlocks {
                switch wait(timeout: 0) {
                case .wouldBlock: return true
                case .woken:
                    stopReading()
                    return false
                case .ready: break
                }
            }
            compact()
            end += read(at: end)
        }
        return false
    }

    /// Whether reading `fd` now would wait: false for a regular file, at the end of the input or
    /// on an error (`read(2)` answers at once), true when a pipe or terminal has nothing yet.
    static func wouldBlock(fd: Int32) -> Bool {
        if neverBlocks(fd: fd) { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, 0)
            if result < 0 && errno == EINTR { continue }
            return result == 0
        }
    }

    /// A regular file or a block device: `read(2)` returns without waiting for a writer.
    static func neverBlocks(fd: Int32) -> Bool {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFREG || type == S_IFBLK
    }

    private enum Readiness { case ready, wouldBlock, woken }

    /// Polls the input and the wake descriptor; `timeout` in milliseconds, -1 for as long as it
    /// takes. End of input (POLLHUP) and errors count as ready: `read(2)` reports them.
    private func wait(timeout: Int32) -> Readiness {
        var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        if let wakeFD { entries.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)) }
        while true {
            let result = poll(&entries, nfds_t(entries.count), timeout)
            if result < 0 {
                if errno == EINTR { continue }
                return .ready
            }
            // The wake descriptor first: Ctrl-C on a busy pipe still stops the run.
            if entries.count > 1 && entries[1].revents != 0 { return .woken }
            return result == 0 ? .wouldBlock : .ready
        }
    }

    /// The input ends here: the wake descriptor fired.
    private func stopReading() {
        interrupted = true
        eof = true
    }

    /// Moves the buffered bytes to the front, to read more after them.
    private func compact() {
        guard start > 0 else { return }
        let count = end - start
        if count > 0 {
            buffer.withUnsafeMutableBytes { raw in
                _ = memmove(raw.baseAddress!, raw.baseAddress! + start, count)
            }
        }
        start = 0
        end = count
        knownNewline = -1
    }

    /// Reads what the input has into `buffer[offset...]`: the number of bytes read, or 0 at the
    /// end of the input, on an error (`readError`) or when the wake descriptor fired first
    /// (`interrupted`); `eof` is then set. With a wake descriptor, a pipe is polled before the
    /// read, so the wait can be cut short; a regular file is read directly.
    private func read(at offset: Int, waiting: Bool = false) -> Int {
        knownNewline = -1
        if waiting, wakeFD != nil, !neverBlocks, wait(timeout: -1) == .woken {
            stopReading()
            return 0
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + offset, $0.count - offset) }
            if count > 0 {
                bytesRead += count
                return count
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { readError = errno }
            eof = true
            return 0
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
            compact()
            end += read(at: end, waiting: true)
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

    /// Refills the (used up) buffer, waiting for input: false at the end of the input.
    private func fill() -> Bool {
        let count = read(at: 0, waiting: true)
        start = 0
        end = count
        return count > 0
    }
}
