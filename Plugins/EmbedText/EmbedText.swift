import Foundation

// `EmbedText <input> <output> <type>`: writes a Swift file declaring `enum <type> { static let text = … }` with the
// input file's text, so the binary carries it with no resource bundle (SwiftPM's `Bundle.module` traps when the
// bundle is missing beside an installed binary). Run by the EmbedOpenAPI build plugin at every build. `@main` rather
// than top-level code: scripts/fuzz.sh builds with `-parse-as-library`, which reaches this tool too.
@main
enum EmbedText {
    static func main() throws {
        let arguments = CommandLine.arguments
        guard arguments.count == 4 else {
            FileHandle.standardError.write(Data("usage: EmbedText <input> <output> <type name>\n".utf8))
            exit(2)
        }
        let text = try String(contentsOfFile: arguments[1], encoding: .utf8)
        // A raw string delimiter longer than any run of `#` after a quote in the text.
        var pounds = "#"
        while text.contains("\"" + pounds) || text.contains(pounds + "\"") { pounds += "#" }
        let source = """
            // Generated at build time by the EmbedOpenAPI plugin from \(URL(fileURLWithPath: arguments[1]).lastPathComponent).

            enum \(arguments[3]) {
                static let text = \(pounds)\"\"\"
            \(text)
            \"\"\"\(pounds)
            }

            """
        try source.write(toFile: arguments[2], atomically: true, encoding: .utf8)
    }
}
