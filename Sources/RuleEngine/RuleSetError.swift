public import SafetyCore

/// One thing wrong with a rule set: where, which rule, what.
///
/// Prints as `file:line: rule-id: message`, or `file:line: message` when no rule is concerned
/// (a YAML syntax error, an unknown file-level key):
/// ```
/// Resources/rules/en/violence.yaml:14: en.violence.kill-person: pattern: missing closing parenthesis at offset 9
/// ```
public struct RuleProblem: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of problem, for tests and tools; the message says the rest.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The file cannot be read, or no rule file was found.
        case unreadable
        /// The file is not valid YAML.
        case yamlSyntax
        /// A key the format does not have.
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong YAML type (a list where a string belongs…).
        case wrongType
        /// A value outside its set: label, type, view, severity, language, id syntax.
        case badValue
        /// A pattern PCRE2 does not compile.
        case badRegex
        /// Two rules with the same id.
        case duplicateID
        /// The examples are missing, empty or malformed.
        case badExamples
    }

    public var kind: Kind
    public var location: SourceLocation
    /// The rule concerned, when known.
    public var ruleID: String?
    public var message: String

    public init(_ kind: Kind, at location: SourceLocation, rule ruleID: String? = nil, _ message: String) {
        self.kind = kind
        self.location = location
        self.ruleID = ruleID
        self.message = message
    }

    public var description: String {
        if let ruleID { return "\(location): \(ruleID): \(message)" }
        return "\(location): \(message)"
    }
}

/// A rule set that does not load: every problem found in the run, in file and line order.
///
/// The command line prints `description` to stderr and exits 78 (CONTRACT.md).
public struct RuleSetError: Error, Sendable, CustomStringConvertible {
    /// Every problem, at least one.
    public var problems: [RuleProblem]

    public init(problems: [RuleProblem]) {
        self.problems = problems
    }

    /// The way out, for people reading the message.
    public var recovery: String {
        "fix the rule files listed above; `safegate rules test --rules DIR` re-checks them without rebuilding"
    }

    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}

extension RuleSetError {
    /// The user-facing error: a configuration error naming the first problem's file and line, with
    /// every problem in the reason.
    ///
    /// ```swift
    /// catch let error as RuleSetError { throw error.gatewayError }   // exit 78 at the command line
    /// ```
    public var gatewayError: GatewayError {
        let first = problems.first
        return GatewayError(
            .configuration(
                file: first?.location.file ?? "rules", line: first.map { $0.location.line > 0 ? $0.location.line : 1 },
                reason: description),
            underlying: self)
    }
}
