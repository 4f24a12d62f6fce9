/// The files of the package's `Resources/` folder, compiled into the binary.
///
/// The binary works from any directory and needs no resource bundle:
/// ```swift
/// let yaml = BundledResources.text(at: "profiles/calendar.yaml")
/// let ruleFiles = BundledResources.paths(under: "rules/")
/// ```
public enum BundledResources {
    /// Positions in `GeneratedResources.files` by path.
    private static let index: [String: Int] = Dictionary(
        GeneratedResources.files.indices.map { (GeneratedResources.files[$0].path, $0) }, uniquingKeysWith: { first, _ in first })

    /// The text of the file at `path` relative to `Resources/`, or `nil` when there is none.
    public static func text(at path: String) -> String? { index[path].map { GeneratedResources.files[$0].text } }

    /// The FNV-1a hash (64 bits) and byte length of the UTF-8 text at `path`, computed when the
    /// binary was built; `nil` when there is no such file.
    public static func fingerprint(at path: String) -> (fnv1a: UInt64, length: Int)? {
        index[path].map { (GeneratedResources.files[$0].fnv1a, GeneratedResources.files[$0].length) }
    }

    /// Every bundled path that starts with `prefix`, sorted.
    public static func paths(under prefix: String) -> [String] {
        GeneratedResources.files.lazy.map(\.path).filter { $0.hasPrefix(prefix) }
    }
}
