import Foundation
import PackagePlugin

/// Compiles `OpenAPI/openapi.json` of the target into the binary as `OpenAPIDocument.text`: the JSON file stays the
/// one source, and an installed `ledger` needs no resource bundle beside it. The step runs only when the JSON file
/// (or the script) changed, so a build with nothing changed does nothing.
@main
struct EmbedOpenAPI: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let input = target.directoryURL.appending(path: "OpenAPI/openapi.json")
        let script = context.package.directoryURL.appending(path: "Plugins/EmbedOpenAPI/embed-text.sh")
        let output = context.pluginWorkDirectoryURL.appending(path: "OpenAPIDocument.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(input.lastPathComponent)",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: [script.path, input.path, output.path, "OpenAPIDocument"],
                inputFiles: [input, script], outputFiles: [output])
        ]
    }
}
