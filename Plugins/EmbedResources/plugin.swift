import Foundation
import PackagePlugin

/// Compiles every file under the package's `Resources/` folder into the target as a Swift string literal.
///
/// Unlike `.embedInCode`, paths keep their folders (`rules/en/violence.yaml`), the files can be listed,
/// and build time stays flat as rule sets grow (string literals, not byte arrays).
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        let root = context.package.directoryURL.appending(path: "Resources")
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedResources.swift")
        var inputs: [URL] = []
        if let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        {
            for case let url as URL in walker
            where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(url)
            }
        }
        return [
            .buildCommand(
                displayName: "Embedding \(inputs.count) files of Resources/",
                executable: try context.tool(named: "EmbedResourcesTool").url,
                arguments: [root.path, output.path],
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
