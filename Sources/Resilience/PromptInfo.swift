/// What the error log may say about a prompt: by default a fingerprint and a length, the text itself
/// only when the user asked for it (`ErrorLog(logPrompts: true)`, `--log-prompts`).
///
/// ```swift
/// let info = PromptInfo("What's on my calendar?")
/// info.fingerprint   // first 12 hex digits of the SHA-256 of the UTF-8 text
/// info.byteCount     // 22
/// ```
public struct PromptInfo: Sendable, Hashable {
    /// The prompt. Written to the log only when prompts are logged.
    public var text: String

    public init(_ text: String) { self.text = text }

    /// The first 12 hex digits (48 bits) of the SHA-256 of the prompt's UTF-8: enough to tell prompts
    /// apart in one user's log, too short to serve as a dictionary key for anyone else.
    public var fingerprint: String { String(SHA256.hex(of: text).prefix(12)) }

    /// The prompt's length in UTF-8 bytes.
    public var byteCount: Int { text.utf8.count }
}
