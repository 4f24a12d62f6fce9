import SafetyCore

/// A catalog message with `{name}` placeholders, parsed once at load time.
///
/// Braces are only ever placeholders: a stray `{` or `}` is a load error, so no filled message
/// can show a brace or a raw placeholder to a user.
struct Template: Sendable, Hashable {
    enum Piece: Sendable, Hashable {
        case text(String)
        case placeholder(String)
    }

    let pieces: [Piece]

    /// The placeholder names the template uses.
    var placeholders: Set<String> {
        Set(pieces.compactMap { if case .placeholder(let name) = $0 { name } else { nil } })
    }

    /// Parses `source`, or returns what is wrong with it.
    static func parse(_ source: String) -> Result<Template, TemplateProblem> {
        var pieces: [Piece] = []
        var text = ""
        var index = source.startIndex
        while index < source.endIndex {
            let character = source[index]
            if character == "}" { return .failure(.strayBrace) }
            if character == "{" {
                guard let close = source[index...].firstIndex(of: "}") else { return .failure(.strayBrace) }
                let name = String(source[source.index(after: index)..<close])
                guard !name.isEmpty, name.allSatisfy({ $0.isASCII && $0.isLetter }) else {
                    return .failure(.badPlaceholder(name))
                }
                if !text.isEmpty { pieces.append(.text(text)) }
                text = ""
                pieces.append(.placeholder(name))
                index = source.index(after: close)
                continue
            }
            text.append(character)
            index = source.index(after: index)
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        return .success(Template(pieces: pieces))
    }

    /// The text with every placeholder replaced by its value, made safe for a terminal.
    ///
    /// Values come from profiles, file paths and error reasons, so their control characters,
    /// escape sequences and bidi overrides are shown escaped. A placeholder without a value is
    /// left out rather than shown (the load-time schema and the tests make sure that never happens).
    func fill(_ values: [String: String]) -> String {
        var out = ""
        for piece in pieces {
            switch piece {
            case .text(let text): out += text
            case .placeholder(let name): out += TerminalEscaping.escaped(values[name] ?? "")
            }
        }
        return out
    }
}

enum TemplateProblem: Error, Equatable {
    case strayBrace
    case badPlaceholder(String)

    var reason: String {
        switch self {
        case .strayBrace: "a brace that is not part of a {placeholder}"
        case .badPlaceholder(let name): "bad placeholder {\(name)}: names are ASCII letters only"
        }
    }
}
