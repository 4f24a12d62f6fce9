import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RuleEngine
import SafetyClassifier
import SafetyCore
import TextNormalization

extension SafeGate.Dev {
    /// `safegate dev bench CORPUS`: throughput and latency of the classifier on 1 and 2 threads.
    ///
    /// One classifier is built and shared by every thread; each thread classifies its contiguous
    /// share of the records through its own `SafetyClassifier.Session`, timing every record with
    /// `ContinuousClock`. Reading the corpus and writing output are not measured (see
    /// `Benchmarks/run.sh` for the end-to-end `safegate classify` figures).
    struct Bench: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "bench",
            abstract: "Time the classifier over a text corpus (one prompt per line) on 1 and 2 threads (build with -c release).")

        @Argument(help: "Text corpus: one prompt per line.")
        var corpus: String

        @Option(help: ArgumentHelp("Load the rule files under DIR instead of the bundled rules.", valueName: "DIR"))
        var rules: String?

        @Option(help: "Assistant profile: general, calendar, or a profile file.")
        var profile = "general"

        @Option(help: "Thread counts to measure, comma-separated.")
        var threads = "1,2"

        @Option(help: "Timed rounds per thread count; the round with the median wall time is reported.")
        var rounds = 3

        @Option(help: "Use only the first N records of the corpus.")
        var limit: Int?

        @Option(help: "Records (from the start) for the per-stage breakdown on one thread; 0 skips it.")
        var stageRecords = 5000

        @Option(help: "Show the K rules that cost the most matching time (on up to 1,000 of the stage records); 0 skips it.")
        var topRules = 10

        @Flag(help: "Print one JSON object instead of the table.")
        var json = false

        @Option(
            help: ArgumentHelp(
                "After the rounds, classify every record once more on one thread and write its latency to FILE (tab-separated: line, ns, label, bytes, ASCII or not, ns normalising or -1 for a prompt over the length limit), to see which records make the tail.",
                valueName: "FILE"))
        var latencies: String?

        @Option(
            help: ArgumentHelp(
                "With --latencies, also time every rule-and-view search of that pass and write them to FILE (tab-separated: line, rule, view, PCRE2 calls, ns, fired): which rules make a slow record slow.",
                valueName: "FILE"))
        var searchLog: String?

        func validate() throws {
            guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
            guard searchLog == nil || latencies != nil else { throw ValidationError("--search-log needs --latencies") }
            guard !threadCounts.isEmpty, threadCounts.allSatisfy({ $0 >= 1 }) else {
                throw ValidationError("--threads must be a comma-separated list of positive integers")
            }
        }

        var threadCounts: [Int] { threads.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) } }

        func run() async throws {
            let console = Console.current
            let clock = ContinuousClock()

            // Build: rule files parsed, patterns compiled and JIT-compiled, profile loaded.
            let start = clock.now
            let ruleSet: CompiledRuleSet
            do {
                ruleSet = try CompiledRuleSet.load(from: RuleSource(directory: rules))
            } catch {
                console.printError(error.description)
                throw ExitStatus.configuration
            }
            let rulesLoaded = clock.now
            let loadedProfile: Profile
            do {
                loadedProfile = try Profile.load(profile)
            } catch {
                console.printError(error.description)
                throw ExitStatus.configuration
            }
            let classifier = SafetyClassifier(rules: ruleSet, profile: loadedProfile)
            let built = clock.now

            guard let data = FileManager.default.contents(atPath: corpus) else {
                console.printError("safegate dev bench: cannot open \(corpus)")
                throw ExitStatus.cannotOpen
            }
            let records = Self.lines(of: data, limit: limit)
            guard !records.isEmpty else {
                console.printError("safegate dev bench: \(corpus) has no records")
                throw ExitStatus.malformedInput
            }

            let firstStart = clock.now
            _ = classifier.makeSession().classify(bytes: records[0])
            let firstResult = clock.now - firstStart
            // The timed passes measure the steady state: every pattern JIT-compiled up front (a
            // command compiles them lazily, or in the background; see the time to first result).
            let prepareStart = clock.now
            ruleSet.prepareAll()
            let prepared = clock.now - prepareStart

            var report = Report(
                corpus: corpus, records: records.count, bytes: records.reduce(0) { $0 + $1.count },
                asciiRecords: records.count { $0.allSatisfy { $0 < 0x80 } }, rules: ruleSet.enabledRules.count,
                prefilteredRules: ruleSet.prefilteredRuleCount, views: ruleSet.views.sorted().map(\.rawValue),
                engine: CompiledRuleSet.engineDescription, rulesLoad: rulesLoaded - start, profileLoad: built - rulesLoaded,
                firstSessionAndResult: firstResult, jitAll: prepared)

            for count in threadCounts {
                var results: [RoundResult] = []
                for _ in 0..<rounds { results.append(Self.measure(classifier: classifier, records: records, threads: count)) }
                let sorted = results.sorted { $0.wall < $1.wall }
                let recordMedians = (0..<records.count).map { index in
                    let values = results.map { $0.inInputOrder[index] }.sorted()
                    return values[values.count / 2]
                }.sorted()
                report.runs.append(
                    Run(threads: count, median: sorted[sorted.count / 2], walls: results.map(\.wall), recordMedians: recordMedians))
            }
            if stageRecords > 0 {
                report.stages = Self.stages(classifier: classifier, records: Array(records.prefix(stageRecords)))
                if topRules > 0 {
                    report.ruleCosts = Array(
                        Self.ruleCosts(classifier: classifier, records: Array(records.prefix(min(stageRecords, 1000)))).prefix(topRules))
                }
            }
            if let latencies {
                let tables = Self.latencyTable(classifier: classifier, records: records, logsSearches: searchLog != nil)
                for (path, text) in [(latencies, tables.latencies), (searchLog, tables.searches)] {
                    guard let path else { continue }
                    guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
                        console.printError("safegate dev bench: cannot write \(path)")
                        throw ExitStatus.cannotOpen
                    }
                }
            }
            if json {
                console.print(report.json.text)
            } else {
                for line in report.lines { console.print(line) }
            }
        }

        // MARK: Measuring

        /// The records of a text file: one per line, without the line break (a trailing `\r` is kept).
        static func lines(of data: Data, limit: Int?) -> [[UInt8]] {
            var records: [[UInt8]] = []
            let bytes = [UInt8](data)
            var start = 0
            for (index, byte) in bytes.enumerated() where byte == 0x0A {
                if let limit, records.count >= limit { return records }
                records.append(Array(bytes[start..<index]))
                start = index + 1
            }
            if start < bytes.count, limit.map({ records.count < $0 }) ?? true { records.append(Array(bytes[start...])) }
            return records
        }

        /// What one thread measured.
        struct ThreadResult: Sendable {
            var latencies: [Int64]
            /// CPU time the thread spent in its timed pass (unlike wall time, not inflated when the
            /// machine is shared and the thread waits for a core).
            var cpu: Duration
            var counters: MatchCounters
            var labels: [SafetyClassification.Label: Int]
        }

        /// One timed pass over all records with `threads` threads.
        struct RoundResult: Sendable {
            var wall: Duration
            /// CPU time of all threads' timed passes.
            var cpu: Duration
            /// Per-record latencies of every thread, sorted, in nanoseconds.
            var latencies: [Int64]
            /// The same in input order.
            var inInputOrder: [Int64]
            var counters: MatchCounters
            var labels: [SafetyClassification.Label: Int]
        }

        /// Records warmed up (untimed) by each thread before its timed pass.
        static let warmupRecords = 200

        static func measure(classifier: SafetyClassifier, records: [[UInt8]], threads: Int) -> RoundResult {
            let clock = ContinuousClock()
            let gate = ThreadGate(threads: threads)
            let results = ThreadResults(count: threads)
            for index in 0..<threads {
                let range = (records.count * index / threads)..<(records.count * (index + 1) / threads)
                let thread = Thread {
                    let session = classifier.makeSession()
                    for record in records[range].prefix(warmupRecords) { _ = session.classify(bytes: record) }
                    let before = session.counters
                    var latencies = [Int64](repeating: 0, count: range.count)
                    var labels: [SafetyClassification.Label: Int] = [:]
                    gate.arriveAndWait()
                    let cpuStart = Self.threadCPUTime()
                    for (slot, record) in zip(latencies.indices, records[range]) {
                        let t0 = clock.now
                        let decision = session.classify(bytes: record)
                        let t1 = clock.now
                        latencies[slot] = Self.nanoseconds(t1 - t0)
                        labels[decision.classification.label, default: 0] += 1
                    }
                    let cpu = Self.threadCPUTime() - cpuStart
                    gate.finished()
                    results.set(index, ThreadResult(latencies: latencies, cpu: cpu, counters: Self.difference(session.counters, before), labels: labels))
                }
                thread.stackSize = 16 << 20
                thread.start()
            }
            let wall = gate.waitForAll()
            results.waitForAll()
            var merged = RoundResult(wall: wall, cpu: .zero, latencies: [], inInputOrder: [], counters: MatchCounters(), labels: [:])
            for result in results.all {
                merged.cpu += result.cpu
                merged.latencies += result.latencies
                merged.counters = Self.sum(merged.counters, result.counters)
                merged.labels.merge(result.labels, uniquingKeysWith: +)
            }
            // The threads' ranges follow each other in input order.
            merged.inInputOrder = merged.latencies
            merged.latencies.sort()
            return merged
        }

        /// Every record's latency on one thread, in input order, as tab-separated lines.
        static func latencyTable(classifier: SafetyClassifier, records: [[UInt8]], logsSearches: Bool = false) -> (latencies: String, searches: String) {
            let clock = ContinuousClock()
            let session = classifier.makeSession()
            for record in records.prefix(warmupRecords) { _ = session.classify(bytes: record) }
            var text = "line\tns\tlabel\tbytes\tascii\tnormalize_ns\tscan_ns\n"
            var searches = "line\trule\tlabel\tview\tcalls\tns\tfired\n"
            let rules = classifier.rules
            let profile = classifier.defaultProfile
            let limit = classifier.policy.maxPromptBytes
            for (index, record) in records.enumerated() {
                if logsSearches { session.searchLog = [] }
                let decision: Decision
                let elapsed: Int64
                var normalizing: Int64 = -1
                if record.count <= limit {
                    // As `classify` does it, with the normalisation timed apart.
                    let t0 = clock.now
                    let normalized = rules.normalize(bytes: record)
                    let t1 = clock.now
                    decision = session.decide(normalized, profile: profile)
                    let t2 = clock.now
                    elapsed = nanoseconds(t2 - t0)
                    normalizing = nanoseconds(t1 - t0)
                } else {
                    let t0 = clock.now
                    decision = session.classify(bytes: record)
                    elapsed = nanoseconds(clock.now - t0)
                }
                let ascii = record.allSatisfy { $0 < 0x80 }
                // Logged only with the searches (-1 without, or over the length limit).
                let scanning = logsSearches && normalizing >= 0 ? session.lastScanDuration.map(nanoseconds) ?? -1 : -1
                text += "\(index + 1)\t\(elapsed)\t\(decision.classification.label.rawValue)\t\(record.count)\t\(ascii ? 1 : 0)\t\(normalizing)\t\(scanning)\n"
                for entry in session.searchLog ?? [] {
                    searches += "\(index + 1)\t\(entry.ruleID)\t\(entry.label.rawValue)\t\(entry.view.rawValue)\t\(entry.calls)\t\(nanoseconds(entry.duration))\t\(entry.fired ? 1 : 0)\n"
                }
            }
            return (text, searches)
        }

        /// Per-stage cost on one thread: normalising, matching with and without the prefilter, deciding
        /// (thread CPU time, so that a shared machine inflates it less than wall time).
        struct Stages: Sendable {
            var records: Int
            var normalize: Duration
            var match: Duration
            var matchWithoutPrefilter: Duration
            var classify: Duration
        }

        static func stages(classifier: SafetyClassifier, records: [[UInt8]]) -> Stages {
            let options = classifier.rules.normalizationOptions()
            let matcher = classifier.rules.makeMatcher(limits: classifier.limits)
            let unfiltered = classifier.rules.makeMatcher(limits: classifier.limits)
            unfiltered.usesPrefilter = false
            let session = classifier.makeSession()
            var stages = Stages(records: records.count, normalize: .zero, match: .zero, matchWithoutPrefilter: .zero, classify: .zero)
            var batch: [NormalizedText] = []
            batch.reserveCapacity(500)
            var start = 0
            while start < records.count {
                let slice = records[start..<min(records.count, start + 500)]
                start += slice.count
                batch.removeAll(keepingCapacity: true)
                // As the classifier normalises: views behind a shut gate are not built.
                stages.normalize += cpuMeasure { for record in slice { batch.append(classifier.rules.normalize(bytes: record)) } }
                stages.match += cpuMeasure { for text in batch { _ = matcher.match(text) } }
                // Without the prefilter there are no gates: every view is needed.
                let full = slice.map { NormalizedText(bytes: $0, options: options) }
                stages.matchWithoutPrefilter += cpuMeasure { for text in full { _ = unfiltered.match(text) } }
                stages.classify += cpuMeasure { for record in slice { _ = session.classify(bytes: record) } }
            }
            return stages
        }

        /// The CPU time `body` takes on the calling thread.
        static func cpuMeasure(_ body: () -> Void) -> Duration {
            let start = threadCPUTime()
            body()
            return threadCPUTime() - start
        }

        /// The calling thread's CPU time.
        static func threadCPUTime() -> Duration {
            var spec = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
            return .seconds(spec.tv_sec) + .nanoseconds(spec.tv_nsec)
        }

        /// What one rule costs: matching time per record, and how often it was searched.
        struct RuleCost: Sendable {
            var id: String
            var records: Int
            var time: Duration
            var searched: Int
            var skipped: Int
            var searches: Int
            var literals: [[String]]?
        }

        /// Every enabled rule matched alone over the records (normalised once), most expensive first:
        /// each rule is compiled into a rule set of its own, so that its time is its prefilter scan
        /// and its searches, without the loop over the other rules.
        static func ruleCosts(classifier: SafetyClassifier, records: [[UInt8]]) -> [RuleCost] {
            let options = classifier.rules.normalizationOptions()
            let texts = records.map { NormalizedText(bytes: $0, options: options) }
            var costs: [RuleCost] = []
            for rule in classifier.rules.enabledRules {
                guard let single = try? CompiledRuleSet(rules: [rule]) else { continue }
                single.prepareAll()
                let matcher = single.makeMatcher(limits: classifier.limits)
                if let first = texts.first { _ = matcher.match(first) }
                let before = matcher.counters
                let elapsed = cpuMeasure { for text in texts { _ = matcher.match(text) } }
                let counters = difference(matcher.counters, before)
                costs.append(
                    RuleCost(
                        id: rule.id, records: texts.count, time: elapsed, searched: counters.ruleViewsSearched,
                        skipped: counters.ruleViewsSkipped, searches: counters.searches,
                        literals: classifier.rules.requiredLiterals(ofRule: rule.id)))
            }
            return costs.sorted { $0.time > $1.time }
        }

        static func nanoseconds(_ duration: Duration) -> Int64 {
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
        }

        static func seconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        static func difference(_ a: MatchCounters, _ b: MatchCounters) -> MatchCounters {
            var result = MatchCounters()
            result.texts = a.texts - b.texts
            result.ruleViewsSearched = a.ruleViewsSearched - b.ruleViewsSearched
            result.ruleViewsSkipped = a.ruleViewsSkipped - b.ruleViewsSkipped
            result.searches = a.searches - b.searches
            result.limitHits = a.limitHits - b.limitHits
            result.failures = a.failures - b.failures
            return result
        }

        static func sum(_ a: MatchCounters, _ b: MatchCounters) -> MatchCounters {
            var result = a
            result.texts += b.texts
            result.ruleViewsSearched += b.ruleViewsSearched
            result.ruleViewsSkipped += b.ruleViewsSkipped
            result.searches += b.searches
            result.limitHits += b.limitHits
            result.failures += b.failures
            return result
        }

        // MARK: Threads

        /// Lets the threads start their timed passes together and times them from the last arrival
        /// to the last finish.
        final class ThreadGate: @unchecked Sendable {
            private let condition = NSCondition()
            private let threads: Int
            private var arrived = 0
            private var done = 0
            private var started: ContinuousClock.Instant?
            private var ended: ContinuousClock.Instant?

            init(threads: Int) { self.threads = threads }

            func arriveAndWait() {
                condition.lock()
                arrived += 1
                if arrived == threads {
                    started = ContinuousClock.now
                    condition.broadcast()
                }
                while arrived < threads { condition.wait() }
                condition.unlock()
            }

            func finished() {
                let now = ContinuousClock.now
                condition.lock()
                done += 1
                if done == threads {
                    ended = now
                    condition.broadcast()
                }
                condition.unlock()
            }

            /// Blocks until every thread finished; the wall time of the timed passes.
            func waitForAll() -> Duration {
                condition.lock()
                while done < threads { condition.wait() }
                let wall = (ended ?? .now) - (started ?? .now)
                condition.unlock()
                return wall
            }
        }

        /// The threads' results, handed over under a lock.
        final class ThreadResults: @unchecked Sendable {
            private let condition = NSCondition()
            private var results: [ThreadResult?]

            init(count: Int) { results = Array(repeating: nil, count: count) }

            func set(_ index: Int, _ result: ThreadResult) {
                condition.lock()
                results[index] = result
                condition.broadcast()
                condition.unlock()
            }

            func waitForAll() {
                condition.lock()
                while results.contains(where: { $0 == nil }) { condition.wait() }
                condition.unlock()
            }

            var all: [ThreadResult] {
                condition.lock()
                defer { condition.unlock() }
                return results.compactMap { $0 }
            }
        }

        // MARK: Reporting

        struct Run: Sendable {
            var threads: Int
            var median: RoundResult
            var walls: [Duration]
            /// Each record's median latency over the rounds, sorted (ns): what a prompt costs,
            /// without the one-off stalls of a shared machine (a record taking 190 µs in one round
            /// and 47 µs in the two others costs 47).
            var recordMedians: [Int64]
        }

        struct Report: Sendable {
            var corpus: String
            var records: Int
            var bytes: Int
            var asciiRecords: Int
            var rules: Int
            var prefilteredRules: Int
            var views: [String]
            var engine: String
            var rulesLoad: Duration
            var profileLoad: Duration
            var firstSessionAndResult: Duration
            var jitAll: Duration
            var runs: [Run] = []
            var stages: Stages?
            var ruleCosts: [RuleCost] = []

            func recordsPerSecond(_ run: Run) -> Double { Double(records) / max(Bench.seconds(run.median.wall), 1e-9) }
            func megabytesPerSecond(_ run: Run) -> Double { Double(bytes) / 1e6 / max(Bench.seconds(run.median.wall), 1e-9) }

            static func percentile(_ sorted: [Int64], _ q: Double) -> Double {
                guard !sorted.isEmpty else { return 0 }
                return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * q))]) / 1000
            }

            var lines: [String] {
                var out: [String] = []
                let ascii = Double(asciiRecords) / Double(max(1, records)) * 100
                out.append(
                    "corpus    \(corpus): \(records) records, \(Self.format(Double(bytes) / 1e6, 1)) MB, "
                        + "avg \(bytes / max(1, records)) B/record, \(Self.format(ascii, 0))% pure ASCII")
                out.append(
                    "rules     \(rules) enabled (\(prefilteredRules) with required literals), views \(views.joined(separator: ",")), \(engine)")
                out.append(
                    "build     rules load+compile \(Self.format(Bench.seconds(rulesLoad) * 1e3, 1)) ms, profile \(Self.format(Bench.seconds(profileLoad) * 1e3, 1)) ms, "
                        + "first session+classify \(Self.format(Bench.seconds(firstSessionAndResult) * 1e3, 2)) ms, "
                        + "JIT of the remaining patterns \(Self.format(Bench.seconds(jitAll) * 1e3, 1)) ms")
                var rows = [["threads", "wall s", "records/s", "rec/s/thread", "MB/s", "MB/s/thread", "rec/CPU-s", "MB/CPU-s", "p50 µs", "p90 µs", "p99 µs", "p99.9 µs", "max µs", "speedup"]]
                let base = runs.first.map(recordsPerSecond)
                for run in runs {
                    let rate = recordsPerSecond(run)
                    let lat = run.median.latencies
                    rows.append([
                        "\(run.threads)", Self.format(Bench.seconds(run.median.wall), 3), Self.format(rate, 0),
                        Self.format(rate / Double(run.threads), 0), Self.format(megabytesPerSecond(run), 2),
                        Self.format(megabytesPerSecond(run) / Double(run.threads), 2),
                        Self.format(Double(records) / max(Bench.seconds(run.median.cpu), 1e-9), 0),
                        Self.format(Double(bytes) / 1e6 / max(Bench.seconds(run.median.cpu), 1e-9), 2),
                        Self.format(Self.percentile(lat, 0.5), 1), Self.format(Self.percentile(lat, 0.9), 1),
                        Self.format(Self.percentile(lat, 0.99), 1), Self.format(Self.percentile(lat, 0.999), 1),
                        Self.format(Double(lat.last ?? 0) / 1000, 0), base.map { Self.format(rate / $0, 2) + "×" } ?? "",
                    ])
                }
                out += Self.render(rows)
                if runs.first?.walls.count ?? 0 > 1 {
                    let medians = runs.map { run in
                        let m = run.recordMedians
                        return "\(run.threads) thread\(run.threads == 1 ? "" : "s") p50 \(Self.format(Self.percentile(m, 0.5), 1)), "
                            + "p99 \(Self.format(Self.percentile(m, 0.99), 1)), p99.9 \(Self.format(Self.percentile(m, 0.999), 1))"
                    }
                    out.append("per-record median latency over the \(runs[0].walls.count) rounds, µs: \(medians.joined(separator: "; "))")
                }
                if let run = runs.first {
                    let c = run.median.counters
                    let n = Double(max(1, c.texts))
                    let pairs = Double(max(1, c.ruleViewsSearched + c.ruleViewsSkipped))
                    out.append(
                        "prefilter \(Self.format(Double(c.ruleViewsSkipped) / pairs * 100, 1))% of rule×view pairs skipped: "
                            + "\(Self.format(Double(c.ruleViewsSearched) / n, 1)) searched, \(Self.format(Double(c.ruleViewsSkipped) / n, 1)) skipped, "
                            + "\(Self.format(Double(c.searches) / n, 1)) PCRE2 calls per record; \(c.limitHits) limit hits, \(c.failures) failures")
                    let labels = SafetyClassification.Label.allCases.map { "\($0.rawValue) \(run.median.labels[$0] ?? 0)" }
                    out.append("labels    \(labels.joined(separator: ", "))")
                    for other in runs.dropFirst() where other.median.labels != run.median.labels {
                        out.append("warning: the labels of \(other.threads) threads differ from those of \(run.threads)")
                    }
                }
                if let stages {
                    let n = Double(max(1, stages.records))
                    func micros(_ d: Duration) -> String { Self.format(Bench.seconds(d) * 1e6 / n, 2) }
                    let decide = stages.classify - stages.normalize - stages.match
                    out.append(
                        "stages    first \(stages.records) records, 1 thread, CPU µs/record: normalise \(micros(stages.normalize)), "
                            + "match \(micros(stages.match)) (without prefilter \(micros(stages.matchWithoutPrefilter))), "
                            + "classify \(micros(stages.classify)) (so decide+overhead ≈ \(micros(decide)))")
                }
                if !ruleCosts.isEmpty, let stages {
                    let n = Double(max(1, ruleCosts[0].records))
                    let matchPerRecord = Bench.seconds(stages.match) / Double(max(1, stages.records))
                    out.append("costliest rules (each matched alone over the first \(ruleCosts[0].records) records; CPU time):")
                    var rows = [["rule", "CPU µs/record", "% of match", "searched/record", "PCRE2 calls/record", "required literals (one of each group)"]]
                    for cost in ruleCosts {
                        let perRecord = Bench.seconds(cost.time) / n
                        rows.append([
                            cost.id, Self.format(perRecord * 1e6, 2), Self.format(perRecord / max(matchPerRecord, 1e-12) * 100, 1),
                            Self.format(Double(cost.searched) / n, 2), Self.format(Double(cost.searches) / n, 2),
                            cost.literals.map { groups in
                                groups.map { $0.count > 6 ? $0.prefix(6).joined(separator: " ") + " …(\($0.count))" : $0.joined(separator: " ") }
                                    .joined(separator: " & ")
                            }
                                ?? "none: always searched",
                        ])
                    }
                    out += Self.render(rows, leftAligned: [0, 5]).map { "  " + $0 }
                }
                let walls = runs.map { run in
                    "\(run.threads) thread\(run.threads == 1 ? "" : "s"): " + run.walls.map { Self.format(Bench.seconds($0), 3) }.joined(separator: " ")
                }
                out.append("rounds    wall s per round, \(walls.joined(separator: "; "))")
                return out
            }

            var json: JSONText.Object {
                var object = JSONText.Object()
                object["corpus"] = .string(corpus)
                object["records"] = .int(records)
                object["bytes"] = .int(bytes)
                object["ascii_records"] = .int(asciiRecords)
                object["rules"] = .int(rules)
                object["prefiltered_rules"] = .int(prefilteredRules)
                object["views"] = .array(views.map { .string($0) })
                object["engine"] = .string(engine)
                object["rules_load_ms"] = .double(Bench.seconds(rulesLoad) * 1e3)
                object["profile_load_ms"] = .double(Bench.seconds(profileLoad) * 1e3)
                object["first_session_and_result_ms"] = .double(Bench.seconds(firstSessionAndResult) * 1e3)
                object["jit_all_ms"] = .double(Bench.seconds(jitAll) * 1e3)
                object["runs"] = .array(
                    runs.map { run in
                        var item = JSONText.Object()
                        let lat = run.median.latencies
                        let c = run.median.counters
                        item["threads"] = .int(run.threads)
                        item["wall_s"] = .double(Bench.seconds(run.median.wall))
                        item["cpu_s"] = .double(Bench.seconds(run.median.cpu))
                        item["records_per_cpu_s"] = .double(Double(records) / max(Bench.seconds(run.median.cpu), 1e-9))
                        item["round_walls_s"] = .array(run.walls.map { .double(Bench.seconds($0)) })
                        item["records_per_s"] = .double(recordsPerSecond(run))
                        item["mb_per_s"] = .double(megabytesPerSecond(run))
                        item["p50_us"] = .double(Self.percentile(lat, 0.5))
                        item["p90_us"] = .double(Self.percentile(lat, 0.9))
                        item["p99_us"] = .double(Self.percentile(lat, 0.99))
                        item["p999_us"] = .double(Self.percentile(lat, 0.999))
                        item["max_us"] = .double(Double(lat.last ?? 0) / 1000)
                        item["record_median_p50_us"] = .double(Self.percentile(run.recordMedians, 0.5))
                        item["record_median_p99_us"] = .double(Self.percentile(run.recordMedians, 0.99))
                        item["record_median_p999_us"] = .double(Self.percentile(run.recordMedians, 0.999))
                        item["rule_views_searched"] = .int(c.ruleViewsSearched)
                        item["rule_views_skipped"] = .int(c.ruleViewsSkipped)
                        item["searches"] = .int(c.searches)
                        item["limit_hits"] = .int(c.limitHits)
                        item["failures"] = .int(c.failures)
                        var labels = JSONText.Object()
                        for label in SafetyClassification.Label.allCases { labels[label.rawValue] = .int(run.median.labels[label] ?? 0) }
                        item["labels"] = .object(labels)
                        return .object(item)
                    })
                if let stages {
                    let n = Double(max(1, stages.records))
                    var item = JSONText.Object()
                    item["records"] = .int(stages.records)
                    item["normalize_us"] = .double(Bench.seconds(stages.normalize) * 1e6 / n)
                    item["match_us"] = .double(Bench.seconds(stages.match) * 1e6 / n)
                    item["match_without_prefilter_us"] = .double(Bench.seconds(stages.matchWithoutPrefilter) * 1e6 / n)
                    item["classify_us"] = .double(Bench.seconds(stages.classify) * 1e6 / n)
                    object["stages"] = .object(item)
                }
                if !ruleCosts.isEmpty {
                    object["costliest_rules"] = .array(
                        ruleCosts.map { cost in
                            var item = JSONText.Object()
                            let n = Double(max(1, cost.records))
                            item["id"] = .string(cost.id)
                            item["us_per_record"] = .double(Bench.seconds(cost.time) * 1e6 / n)
                            item["searched_per_record"] = .double(Double(cost.searched) / n)
                            item["searches_per_record"] = .double(Double(cost.searches) / n)
                            item["required_literals"] = cost.literals.map { .array($0.map { .array($0.map { .string($0) }) }) } ?? .null
                            return .object(item)
                        })
                }
                return object
            }

            static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }

            /// Columns separated by two spaces, right-aligned except those in `leftAligned`.
            static func render(_ rows: [[String]], leftAligned: Set<Int> = []) -> [String] {
                guard let columns = rows.map(\.count).max() else { return [] }
                var widths = Array(repeating: 0, count: columns)
                for row in rows {
                    for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
                }
                return rows.map { row in
                    row.enumerated().map { i, cell in
                        let padding = String(repeating: " ", count: widths[i] - cell.count)
                        return leftAligned.contains(i) ? (i == row.count - 1 ? cell : cell + padding) : padding + cell
                    }
                        .joined(separator: "  ")
                }
            }
        }
    }
}
