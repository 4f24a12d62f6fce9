#if canImport(Glibc)
import Glibc
#endif
import CLibEdit
import Synchronization

/// Where the REPL reads lines from.
protocol LineInput: Sendable {
    /// One line without its newline, or nil at end of input (Ctrl-D).
    func readLine(prompt: String) -> String?
}

/// Line editing and history through libedit, for a terminal.
///
/// libedit decodes multibyte input by the C locale: with the default "C" locale it dropped the
/// "İ" of "İntihar". So the locale comes from the environment, falling back to C.UTF-8.
final class EditLineInput: LineInput {
    init() {
        if setlocale(LC_ALL, "") == nil || !Self.localeIsUTF8 {
            _ = setlocale(LC_ALL, "C.UTF-8")
        }
        sg_edit_using_history()
    }

    static var localeIsUTF8: Bool {
        guard let name = setlocale(LC_CTYPE, nil) else { return false }
        let text = String(cString: name).lowercased()
        return text.contains("utf-8") || text.contains("utf8")
    }

    func readLine(prompt: String) -> String? {
        guard let raw = sg_edit_readline(prompt) else { return nil }
        defer { free(raw) }
        let line = String(cString: raw)
        if !line.trimmingCharacters(in: " \t").isEmpty { sg_edit_add_history(raw) }
        return line
    }
}

/// Plain line reading, for pipes and files: no prompt is echoed, nothing is edited.
final class PlainLineInput: LineInput {
    func readLine(prompt: String) -> String? {
        Swift.readLine(strippingNewline: true).map { $0.hasSuffix("\r") ? String($0.dropLast()) : $0 }
    }
}

/// Lines given up front (tests).
final class ScriptedLineInput: LineInput {
    private let lines: Mutex<[String]>
    init(_ lines: [String]) { self.lines = Mutex(lines) }
    func readLine(prompt: String) -> String? {
        lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
