import SafeGateResources

/// The package's `Resources/`, compiled into the binary; one place so tests can see what is read.
enum BundledFiles {
    static func text(at path: String) -> String? { BundledResources.text(at: path) }
    static func paths(under prefix: String) -> [String] { BundledResources.paths(under: prefix) }
}
