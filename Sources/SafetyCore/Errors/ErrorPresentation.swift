/// An error as the user reads it: symbol, title, message and the recovery options as labelled keys.
///
/// Plain, already localised data: the catalogs of the `Refusals` module build it
/// (`ErrorCatalog.presentation(for:language:)`), renderers draw it (`ErrorCard`), JSON output
/// prints it as `{"code", "title", "message", "recovery": [names]}`.
public struct ErrorPresentation: Sendable, Hashable {
    /// One recovery option as shown: the action, its label and the key that picks it.
    public struct Option: Sendable, Hashable {
        public var action: RecoveryAction
        /// The label in the user's language, e.g. `Try again` / `Tekrar dene`.
        public var label: String
        /// The single key that picks the option in an interactive terminal, e.g. `r` / `t`.
        public var key: String

        public init(action: RecoveryAction, label: String, key: String) {
            self.action = action
            self.label = label
            self.key = key
        }
    }

    /// The error's stable code.
    public var code: String
    /// A one-character terminal symbol.
    public var symbol: String
    public var title: String
    public var message: String
    /// The recovery options, in the order of the error's `recoveryOptions`.
    public var options: [Option]

    public init(code: String, symbol: String, title: String, message: String, options: [Option]) {
        self.code = code
        self.symbol = symbol
        self.title = title
        self.message = message
        self.options = options
    }

    /// The stable names of the recovery actions, for JSON (`["retry", "dismiss"]`).
    public var recoveryNames: [String] { options.map(\.action.name) }

    /// The contract's `error` object: `{"code", "title", "message", "recovery": [...]}`.
    public var json: JSONText.Object {
        var object = JSONText.Object()
        object["code"] = .string(code)
        object["title"] = .string(title)
        object["message"] = .string(message)
        object["recovery"] = .array(recoveryNames.map { .string($0) })
        return object
    }
}
