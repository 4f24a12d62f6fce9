// A synchronous driver for callgrind: valgrind 3.19 crashes (SIGSEGV inside valgrind, at the
// main thread's sigsuspend in dispatch_main) on any Swift program whose async main suspends, and
// `safegate` is one. This file is compiled by Benchmarks/callgrind.sh against the release build's
// modules and object files; it classifies every line of a text file on the main thread.
//
//     profile-driver [--rules DIR] [--skip-startup] CORPUS.txt
//
// With --skip-startup the rule compilation is excluded from collection (callgrind's
// --collect-atstart=no --toggle-collect=*classifyAll*).
import Foundation
import RuleEngine
import SafetyClassifier
import SafetyCore

@inline(never)
func classifyAll(_ records: [[UInt8]], _ session: SafetyClassifier.Session) -> [SafetyClassification.Label: Int] {
    var labels: [SafetyClassification.Label: Int] = [:]
    for record in records { labels[session.classify(bytes: record).classification.label, default: 0] += 1 }
    return labels
}

var arguments = Array(CommandLine.arguments.dropFirst())
var rulesDirectory: String?
if let index = arguments.firstIndex(of: "--rules") {
    rulesDirectory = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
arguments.removeAll { $0 == "--skip-startup" }
guard let path = arguments.first, let data = FileManager.default.contents(atPath: path) else {
    fatalError("usage: profile-driver [--rules DIR] CORPUS.txt")
}
let ruleSet = try CompiledRuleSet.load(from: RuleSource(directory: rulesDirectory))
ruleSet.prepareAll()
let classifier = SafetyClassifier(rules: ruleSet)
let session = classifier.makeSession()
let records = data.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map { [UInt8]($0) }
let labels = classifyAll(records, session)
let counters = session.counters
print("\(records.count) records: \(labels.map { "\($0.key.rawValue) \($0.value)" }.sorted().joined(separator: ", "))")
print("rule-views searched \(counters.ruleViewsSearched), skipped \(counters.ruleViewsSkipped), PCRE2 calls \(counters.searches)")
