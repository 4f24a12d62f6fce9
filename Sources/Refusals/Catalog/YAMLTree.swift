import SafetyCore
import Yams

/// A parsed YAML (or JSON) document whose every value remembers its line, so loaders can name
/// the file and line of whatever is wrong.
///
/// JSON is read through the same parser (it is YAML), which gives crisis data line numbers too.
indirect enum YAMLTree: Sendable {
    case scalar(String, line: Int?)
    case mapping([(key: String, value: YAMLTree, line: Int?)], line: Int?)
    case sequence([YAMLTree], line: Int?)
    case null(line: Int?)

    var line: Int? {
        switch self {
        case .scalar(_, let line), .mapping(_, let line), .sequence(_, let line), .null(let line): line
        }
    }

    /// Parses `text`; a syntax error is a configuration error at its line in `file`.
    static func parse(_ text: String, file: String) throws(GatewayError) -> YAMLTree {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw .configuration(file: file, line: error.line, reason: error.problem)
        } catch {
            throw .configuration(file: file, line: nil, reason: "cannot be read: \(error)")
        }
        guard let root else { throw .configuration(file: file, line: nil, reason: "the file is empty") }
        return try convert(root, file: file)
    }

    private static func convert(_ node: Node, file: String) throws(GatewayError) -> YAMLTree {
        let line = node.mark?.line
        switch node {
        case .scalar(let scalar):
            // Plain `null`/`~` and JSON null are null; quoted "null" stays a string.
            if scalar.style == .plain && (scalar.string == "null" || scalar.string == "~") {
                return .null(line: line)
            }
            return .scalar(scalar.string, line: line)
        case .mapping(let mapping):
            var entries: [(key: String, value: YAMLTree, line: Int?)] = []
            for (key, value) in mapping {
                guard case .scalar(let keyScalar) = key else {
                    throw .configuration(file: file, line: key.mark?.line, reason: "a key must be plain text")
                }
                entries.append((keyScalar.string, try convert(value, file: file), key.mark?.line))
            }
            return .mapping(entries, line: line)
        case .sequence(let sequence):
            var items: [YAMLTree] = []
            for item in sequence { items.append(try convert(item, file: file)) }
            return .sequence(items, line: line)
        case .alias:
            throw .configuration(file: file, line: line, reason: "aliases are not allowed here")
        }
    }
}

extension YamlError {
    /// The 1-based line of the problem, when the parser knows it.
    fileprivate var line: Int? {
        switch self {
        case .scanner(_, _, let mark, _), .parser(_, _, let mark, _), .composer(_, _, let mark, _): mark.line
        case .duplicatedKeysInMapping(_, let context): context.mark.line
        default: nil
        }
    }

    /// What is wrong, in a few words.
    fileprivate var problem: String {
        switch self {
        case .scanner(let context, let problem, _, _), .parser(let context, let problem, _, _),
            .composer(let context, let problem, _, _):
            [context?.text, problem].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: ": ")
        case .duplicatedKeysInMapping(let duplicates, _):
            "duplicate key \(duplicates.joined(separator: ", "))"
        default:
            "\(self)"
        }
    }
}
