/// The files of the package's `Resources/` folder, compiled into the binary.
///
/// The binary works from any directory and needs no resource bundle:
/// ```swift
/// let yaml = BundledResources.text(at: "profiles/calendar.yaml")
/// let ruleFiles = BundledResources.paths(under: "rules/")
/// ```
public enum BundledResources {
    private static let index: [String: String] = Dictionary(
        GeneratedResources.files.map { ($0.path, $0.text) }, uniquingKeysWith: { first, _ in first })

    /// The text of the file at `path` relative to `Resources/`, or `nil` when there is none.
    public static func text(at path: String) -> String? { index[path] }

    /// Every bundled path that starts with `prefix`, sorted.
    public static func paths(under prefix: String) -> [String] {
        GeneratedResources.files.lazy.map(\.path).filter { $0.hasPrefix(prefix) }
    }
}
