import Foundation
import PackagePlugin

/// Compiles `OpenAPI/openapi.json` of the target into the binary as `OpenAPIDocument.text`, at every build: the
/// JSON file stays the one source, and an installed `ledger` needs no resource bundle beside it.
@main
struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = target.directoryURL.appending(path: "OpenAPI/openapi.json")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [.buildCommand(
            displayName: "Embedding \(input.lastPathComponent)",
            executable: try context.tool(named: "EmbedText").url,
            arguments: [input.path, output.path, "OpenAPIDocument"],
            inputFiles: [input], outputFiles: [output])]
    }
}
