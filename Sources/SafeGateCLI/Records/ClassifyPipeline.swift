#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import SafetyClassifier
import SafetyCore
import Synchronization

/// Classifies a record stream on N threads and writes the results in input order, with memory
/// bounded by the batches in flight (never by the input's size).
///
/// The reader (the calling thread) cuts the stream into batches and queues them; N − 1 worker
/// threads take the oldest waiting batch each (each owns one classifier session: sessions are not
/// thread-safe, the compiled rules are shared), and the reader writes finished batches in order as
/// they come back, classifying waiting batches itself (with a session of its own) while the next
/// one to write is not back. At most `4 × N` batches are out at once, so a slow batch holds back
/// only that many.
///
/// A slow input (a pipe fed by `tail -f`, someone typing) does not hold results back: when the
/// next record has not arrived yet, the batch ends there, every batch read so far is written and
/// stdout flushed, and only then does the reader wait. A regular file or a fast pipe never waits,
/// so its batches stay full and nothing is flushed early.
final class ClassifyPipeline {
    let classifier: SafetyClassifier
    let format: OutputFormat
    let jobs: Int
    let output: OutputBuffer
    let progress: Progress
    let batchSize: Int
    /// A batch also ends once its prompts hold this many bytes, so long records (up to
    /// `--max-record-bytes` each) cannot multiply memory by the batches in flight.
    let batchBytes: Int

    init(
        classifier: SafetyClassifier, format: OutputFormat, jobs: Int, output: OutputBuffer, progress: Progress,
        batchSize: Int = 256, batchBytes: Int = 1 << 20
    ) {
        self.classifier = classifier
        self.format = format
        self.jobs = jobs
        self.output = output
        self.progress = progress
        self.batchSize = batchSize
        self.batchBytes = batchBytes
    }

    /// What a batch comes back as: its text, ready to write, and its counts.
    struct BatchResult: Sendable {
        var text: String
        var summary: ClassifySummary
    }

    /// Classifies one batch on one session.
    static func classify(_ batch: [InputRecord], session: SafetyClassifier.Session, format: OutputFormat) -> BatchResult {
        var text = ""
        // About a line of JSON per short prompt: one allocation for most batches.
        text.reserveCapacity(batch.count * 96)
        var summary = ClassifySummary()
        for record in batch {
            var result = OutputRecord(id: record.id)
            if let bytes = record.text {
                let decision = session.classify(bytes: bytes)
                if decision.failedClosed {
                    // Fail closed: a label that could be too mild is not reported as one (CONTRACT:
                    // a record that could not be classified is an error record, exit 65).
                    let label = decision.classification.label.rawValue
                    result.error =
                        "\(record.source): not classified in full: \(decision.incompleteReason ?? "a search stopped early"); "
                        + "the label found (\(label)) could be too mild, so the record fails closed "
                        + "(--fail-open reports that label, marked incomplete)"
                    result.truncation = decision.truncation
                    summary.errors += 1
                    summary.failedClosed += 1
                    summary.records += 1
                    result.append(format, to: &text)
                    continue
                }
                result.decision = decision
                summary.count(decision)
                if decision.hadInvalidUTF8 {
                    // Repaired (U+FFFD) and classified, and said so: a Latin-1 line in a UTF-8 file.
                    let offset = firstInvalidUTF8(bytes).map { " at byte \($0 + 1)" } ?? ""
                    result.warning = "\(record.source): invalid UTF-8\(offset) replaced with U+FFFD"
                    summary.repaired += 1
                }
                if format == .table { result.preview = String(decoding: bytes, as: UTF8.self) }
            } else {
                result.error = record.error ?? "unreadable record"
                summary.errors += 1
            }
            summary.records += 1
            result.append(format, to: &text)
        }
        return BatchResult(text: text, summary: summary)
    }

    func run(stream: RecordStream, shard: Shard?, stop: () -> Bool) -> ClassifySummary {
        var summary = ClassifySummary()
        /// Set by `nextBatch` when it ended because the next record has not arrived: the caller
        /// writes and flushes everything before reading on (and waiting).
        var inputWaits = false
        /// The next batch, or nil at the end of the input (or on `stop`). When the input would wait,
        /// the batch ends early, and is even returned empty when `holding` (output not written yet).
        func nextBatch(holding: Bool) -> [InputRecord]? {
            inputWaits = false
            var batch: [InputRecord] = []
            batch.reserveCapacity(batchSize)
            var bytes = 0
            while batch.count < batchSize, bytes < batchBytes, !stop() {
                if holding || !batch.isEmpty, stream.nextWouldBlock() {
                    inputWaits = true
                    break
                }
                guard let record = stream.next() else { break }
                if let shard, !shard.contains(record.number) { continue }
                bytes += record.text?.count ?? 0
                batch.append(record)
            }
            return batch.isEmpty && !inputWaits ? nil : batch
        }
        if jobs == 1 {
            let session = classifier.makeSession()
            while let batch = nextBatch(holding: output.isHolding) {
                if !batch.isEmpty {
                    let result = Self.classify(batch, session: session, format: format)
                    output.append(result.text)
                    summary.add(result.summary)
                    progress.update(records: summary.records, bytes: stream.bytesRead)
                }
                if inputWaits { output.flush() }
            }
            return summary
        }

        // N - 1 worker threads and this one: the reader and writer also classifies whenever the
        // batch it must write next is not back yet, so N threads share N cores. (With N worker
        // threads beside it, the reader and writer took a core's time slices from them: two jobs
        // did 1.76–1.85× one end to end against 1.98× for two threads classifying alone.)
        let queue = WorkQueue()
        for index in 1..<jobs {
            let owned = OwnedSession(classifier.makeSession())
            let format = self.format
            let thread = Thread {
                while let (batchIndex, batch) = queue.next() {
                    queue.finish(batchIndex, ClassifyPipeline.classify(batch, session: owned.session, format: format))
                }
            }
            thread.name = "safegate.classify.\(index)"
            thread.start()
        }
        defer { queue.close() }
        let session = classifier.makeSession()
        let limit = jobs * 4
        var dispatched = 0
        var written = 0
        func write(_ result: BatchResult) {
            output.append(result.text)
            summary.add(result.summary)
            written += 1
            progress.update(records: summary.records, bytes: stream.bytesRead)
        }
        /// Writes the next batch in order, classifying queued batches here until it is back.
        func writeNext() {
            while true {
                switch queue.resultOrWork(written) {
                case .result(let result):
                    write(result)
                    return
                case .work(let index, let batch):
                    queue.finish(index, Self.classify(batch, session: session, format: format))
                }
            }
        }
        while let batch = nextBatch(holding: dispatched > written || output.isHolding) {
            if !batch.isEmpty {
                // Keep at most `limit` batches out; write finished ones in order meanwhile.
                while dispatched - written >= limit { writeNext() }
                while let ready = queue.result(written) { write(ready) }
                queue.add(dispatched, batch)
                dispatched += 1
            }
            if inputWaits {
                // The input has nothing more yet: everything read so far goes out before the wait.
                while written < dispatched { writeNext() }
                output.flush()
            }
        }
        while written < dispatched { writeNext() }
        return summary
    }

    /// A session handed to the one worker thread that uses it.
    final class OwnedSession: @unchecked Sendable {
        // @unchecked: only the worker thread it is made for touches `session` after the hand-over.
        let session: SafetyClassifier.Session
        init(_ session: SafetyClassifier.Session) { self.session = session }
    }

    /// The batches waiting for a thread, oldest first, and the finished ones by index, waiting
    /// for the writer.
    final class WorkQueue: @unchecked Sendable {
        // @unchecked: every access to the state holds `condition`.
        private let condition = NSCondition()
        private var waiting: [(index: Int, batch: [InputRecord])] = []
        /// The first entry of `waiting` not taken yet (taken ones are dropped in bulk).
        private var head = 0
        private var results: [Int: BatchResult] = [:]
        private var closed = false

        enum Next {
            case result(BatchResult)
            case work(Int, [InputRecord])
        }

        func add(_ index: Int, _ batch: [InputRecord]) {
            condition.lock()
            if head > 64 && head * 2 > waiting.count {
                waiting.removeFirst(head)
                head = 0
            }
            waiting.append((index, batch))
            condition.broadcast()
            condition.unlock()
        }

        /// The oldest waiting batch, taken; nil when none (the lock must be held).
        private func take() -> (Int, [InputRecord])? {
            guard head < waiting.count else { return nil }
            let entry = waiting[head]
            waiting[head].batch = []
            head += 1
            return (entry.index, entry.batch)
        }

        /// For a worker: the oldest waiting batch, waiting for one; nil once closed.
        func next() -> (Int, [InputRecord])? {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if closed { return nil }
                if let work = take() { return work }
                condition.wait()
            }
        }

        func finish(_ index: Int, _ result: BatchResult) {
            condition.lock()
            results[index] = result
            condition.broadcast()
            condition.unlock()
        }

        /// The result of batch `index` if it is back.
        func result(_ index: Int) -> BatchResult? {
            condition.lock()
            defer { condition.unlock() }
            return results.removeValue(forKey: index)
        }

        /// For the writer: the result of batch `index` when it is back, else the oldest waiting
        /// batch to classify meanwhile, else (every batch is being classified) the result once
        /// it is back.
        func resultOrWork(_ index: Int) -> Next {
            condition.lock()
            defer { condition.unlock() }
            while true {
                if let result = results.removeValue(forKey: index) { return .result(result) }
                if let (other, batch) = take() { return .work(other, batch) }
                condition.wait()
            }
        }

        /// Ends the workers' loops.
        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }
    }
}

/// Counts of a run, for the summary on stderr and `--summary-json`.
struct ClassifySummary: Sendable {
    var records = 0
    var errors = 0
    /// Records whose invalid UTF-8 was replaced with U+FFFD (classified, and flagged).
    var repaired = 0
    var byLabel: [SafetyClassification.Label: Int] = [:]
    var byType: [RefusalType: Int] = [:]
    var limitHits = 0
    /// Records not classified in full whose label could be too mild: error records (fail closed).
    var failedClosed = 0
    /// Records labelled although not classified in full (truncated or a search stopped early).
    var incomplete = 0
    var seconds = 0.0
    var interrupted = false

    mutating func count(_ decision: Decision) {
        byLabel[decision.classification.label, default: 0] += 1
        if let type = decision.classification.type { byType[type, default: 0] += 1 }
        if !decision.limitHits.isEmpty { limitHits += 1 }
        if !decision.isComplete { incomplete += 1 }
    }

    mutating func add(_ other: ClassifySummary) {
        records += other.records
        errors += other.errors
        repaired += other.repaired
        limitHits += other.limitHits
        failedClosed += other.failedClosed
        incomplete += other.incomplete
        for (label, count) in other.byLabel { byLabel[label, default: 0] += count }
        for (type, count) in other.byType { byType[type, default: 0] += count }
    }

    var text: String {
        let labels = SafetyClassification.Label.allCases.map { "\($0.rawValue) \(byLabel[$0] ?? 0)" }.joined(separator: " · ")
        let rate = seconds > 0 ? String(format: "%.0f", Double(records) / seconds) : "-"
        return "safegate classify: \(records) records in \(String(format: "%.2f", seconds)) s (\(rate)/s): \(labels) · errors \(errors)"
            + (repaired > 0 ? " · invalid UTF-8 repaired \(repaired)" : "")
            + (limitHits > 0 ? " · limit hits \(limitHits)" : "")
            + (failedClosed > 0 ? " · not classified in full (failed closed) \(failedClosed)" : "")
            + (incomplete > 0 ? " · labelled incomplete \(incomplete)" : "") + (interrupted ? " · interrupted" : "")
    }

    var json: String {
        var object = JSONText.Object()
        object["records"] = .int(records)
        object["errors"] = .int(errors)
        object["repaired"] = .int(repaired)
        var labels = JSONText.Object()
        for label in SafetyClassification.Label.allCases { labels[label.rawValue] = .int(byLabel[label] ?? 0) }
        object["labels"] = .object(labels)
        var types = JSONText.Object()
        for type in RefusalType.allCases { types[type.rawValue] = .int(byType[type] ?? 0) }
        object["types"] = .object(types)
        object["limit_hits"] = .int(limitHits)
        object["failed_closed"] = .int(failedClosed)
        object["incomplete"] = .int(incomplete)
        object["seconds"] = .double(seconds)
        object["records_per_second"] = seconds > 0 ? .double(Double(records) / seconds) : .null
        object["interrupted"] = .bool(interrupted)
        return object.text
    }
}

/// The progress line on stderr (only on a terminal): records, rate, and percent and ETA when the
/// input's size is known.
final class Progress {
    let console: Console
    let enabled: Bool
    let totalBytes: Int?
    private let started = ContinuousClock.now
    private var lastDrawn = ContinuousClock.now
    private var drawn = false

    init(console: Console, enabled: Bool, totalBytes: Int?) {
        self.console = console
        self.enabled = enabled
        self.totalBytes = totalBytes
    }

    func update(records: Int, bytes: Int) {
        guard enabled else { return }
        let now = ContinuousClock.now
        guard now - lastDrawn >= .milliseconds(250) else { return }
        lastDrawn = now
        let elapsed = (now - started).seconds
        var line = "\r\u{1B}[K\(records) records · \(Int(Double(records) / max(elapsed, 0.001)))/s"
        if let totalBytes, totalBytes > 0, bytes > 0 {
            let fraction = min(1, Double(bytes) / Double(totalBytes))
            let eta = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            line += String(format: " · %.0f%% · ETA %.0f s", fraction * 100, eta)
        }
        console.writeErr(line)
        drawn = true
    }

    func finish() {
        if drawn { console.writeErr("\r\u{1B}[K") }
    }
}

/// Ctrl-C during a batch run: the run stops taking records, finishes and writes what is in
/// flight (whole lines only), and exits 130.
///
/// A plain signal handler (`sigaction`) sets a flag and writes a byte to a pipe whose read end
/// (`wakeFD`) the line reader polls next to its input while it waits, so Ctrl-C also ends a wait
/// on a quiet pipe. (SIGINT ignored and seen through a dispatch source lost a signal that came
/// while the source was not yet watching, under load; and an ignored signal never interrupted a
/// blocked read.) The handler only does lock-free atomics and `write(2)`, which are safe in a
/// signal handler; `SA_RESTART` resumes the output's writes it interrupts. One run per process
/// handles Ctrl-C at a time (the command line has one).
final class Interrupt: Sendable {
    /// Readable once Ctrl-C came (never drained, so it stays readable); nil when no pipe could be
    /// made, and then a wait for input is not cut short.
    let wakeFD: Int32?
    private let wakeWriteFD: Int32?
    /// The handler that was there before, put back by `remove()`.
    private let previous: sigaction

    private init(wakeFD: Int32?, wakeWriteFD: Int32?, previous: sigaction) {
        self.wakeFD = wakeFD
        self.wakeWriteFD = wakeWriteFD
        self.previous = previous
    }

    static func install() -> Interrupt {
        var ends: [Int32] = [-1, -1]
        let piped = pipe(&ends) == 0
        if piped {
            // Not inherited by anything the run starts; and the handler must never wait on a full
            // pipe (it would take 64 Ki Ctrl-Cs), so the write end does not block.
            for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        }
        // The handler's state is set (and so initialised) before the handler can run.
        InterruptSignal.fired.store(false, ordering: .sequentiallyConsistent)
        InterruptSignal.wakeWriteFD.store(piped ? ends[1] : -1, ordering: .sequentiallyConsistent)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = interruptSignalHandler
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        var previous = sigaction()
        sigaction(SIGINT, &action, &previous)
        return Interrupt(wakeFD: piped ? ends[0] : nil, wakeWriteFD: piped ? ends[1] : nil, previous: previous)
    }

    var fired: Bool { InterruptSignal.fired.load(ordering: .sequentiallyConsistent) }

    /// Stops watching for Ctrl-C and closes the wake pipe: the stream must not be read after this.
    func remove() {
        InterruptSignal.wakeWriteFD.store(-1, ordering: .sequentiallyConsistent)
        var previous = self.previous
        sigaction(SIGINT, &previous, nil)
        if let wakeFD { close(wakeFD) }
        if let wakeWriteFD { close(wakeWriteFD) }
    }
}

/// What the SIGINT handler touches: atomics, set up before it is installed.
private enum InterruptSignal {
    static let fired = Atomic<Bool>(false)
    static let wakeWriteFD = Atomic<Int32>(-1)
}

/// The SIGINT handler of a batch run (`Interrupt`): the flag first, so that a reader woken by the
/// byte sees the run stopped; `errno` is kept for the code it interrupted.
private func interruptSignalHandler(_: Int32) {
    let savedErrno = errno
    InterruptSignal.fired.store(true, ordering: .sequentiallyConsistent)
    let fd = InterruptSignal.wakeWriteFD.load(ordering: .sequentiallyConsistent)
    if fd >= 0 {
        var byte: UInt8 = 1
        _ = write(fd, &byte, 1)
    }
    errno = savedErrno
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
