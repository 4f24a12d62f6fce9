import Foundation
import SafeGateResources

/// Where rule files come from.
///
/// ```swift
/// let shipped = try CompiledRuleSet.load(from: .bundled)
/// let draft = try CompiledRuleSet.load(from: .directory("Resources/rules"))
/// ```
public enum RuleSource: Sendable, Hashable {
    /// The files under `Resources/rules/` compiled into the binary.
    case bundled
    /// Every `.yaml` / `.yml` file under a directory on disk, recursively (hidden files skipped).
    case directory(String)
    /// Files held in memory (tests, tools).
    case files([RuleFile])

    /// `--rules DIR` when given, else the bundled rules.
    public init(directory: String?) {
        self = directory.map { .directory($0) } ?? .bundled
    }

    /// The rule files of this source, sorted by name, and a problem for anything unreadable.
    public func ruleFiles() -> (files: [RuleFile], problems: [RuleProblem]) {
        switch self {
        case .bundled:
            let files = BundledResources.paths(under: "rules/").filter(Self.isRuleFile).compactMap { path in
                BundledResources.text(at: path).map { RuleFile(name: "Resources/" + path, text: $0) }
            }
            return (files.sorted { $0.name < $1.name }, [])
        case .directory(let directory):
            return Self.read(directory: directory)
        case .files(let files):
            return (files, [])
        }
    }

    static func isRuleFile(_ path: String) -> Bool { path.hasSuffix(".yaml") || path.hasSuffix(".yml") }

    private static func read(directory: String) -> (files: [RuleFile], problems: [RuleProblem]) {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return ([], [RuleProblem(.unreadable, at: SourceLocation(file: directory, line: 0), "no such directory")])
        }
        guard isDirectory.boolValue else {
            // A single file is accepted too: handy for checking one file.
            return readFiles([directory])
        }
        let root = URL(fileURLWithPath: directory)
        guard
            let walker = manager.enumerator(
                at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        else {
            return ([], [RuleProblem(.unreadable, at: SourceLocation(file: directory, line: 0), "cannot list the directory")])
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let rootPath = root.standardizedFileURL.path
        var paths: [String] = []
        for case let url as URL in walker where isRuleFile(url.lastPathComponent) {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true else { continue }
            let full = url.standardizedFileURL.path
            let relative = full.hasPrefix(rootPath) ? String(full.dropFirst(rootPath.count).drop { $0 == "/" }) : full
            paths.append(base + "/" + relative)
        }
        guard !paths.isEmpty else {
            return (
                [], [RuleProblem(.unreadable, at: SourceLocation(file: directory, line: 0), "no rule files (*.yaml, *.yml) in the directory")]
            )
        }
        return readFiles(paths.sorted())
    }

    private static func readFiles(_ paths: [String]) -> (files: [RuleFile], problems: [RuleProblem]) {
        var files: [RuleFile] = []
        var problems: [RuleProblem] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append(RuleProblem(.unreadable, at: SourceLocation(file: path, line: 0), "cannot read the file"))
                continue
            }
            guard let text = String(data: data, encoding: .utf8) else {
                problems.append(RuleProblem(.unreadable, at: SourceLocation(file: path, line: 1), "the file is not valid UTF-8"))
                continue
            }
            files.append(RuleFile(name: path, text: text))
        }
        return (files, problems)
    }
}

/// One rule file: its name as shown in messages, and its text.
public struct RuleFile: Sendable, Hashable {
    public var name: String
    public var text: String

    public init(name: String, text: String) {
        self.name = name
        self.text = text
    }
}
