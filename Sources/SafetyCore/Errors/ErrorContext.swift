/// Where the user was when an error happened, so the message can fit the moment (seed `002_…`).
///
/// The same backend outage reads differently during small talk ("try again in a moment") than
/// right after an emergency reply, where the crisis resources stay on screen and the message says so.
/// Raw values are the keys catalogs use (`errors.aiUnavailable.contexts.afterEmergency`).
public enum ErrorContext: String, Sendable, Hashable, CaseIterable, Codable {
    /// No particular context.
    case general
    /// An ordinary conversational turn that was forwarded to the language model.
    case smallTalk
    /// The previous reply was an emergency reply (or a `selfHarm` refusal) with crisis resources.
    case afterEmergency
    /// Non-interactive use (`safegate respond`, pipelines): nobody can press a key.
    case batch
}
