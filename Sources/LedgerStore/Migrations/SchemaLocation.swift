import Foundation

/// Finds the `schema/` folder: `LEDGER_SCHEMA_DIR`, then `<executable>/../share/subscription-ledger/schema`
/// (installed layout, see Deploy/), then the source checkout this binary was built from.
public enum SchemaLocation {
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["LEDGER_SCHEMA_DIR"], !explicit.isEmpty { return explicit }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        let installed = executable.deletingLastPathComponent().appendingPathComponent("../share/subscription-ledger/schema").standardizedFileURL.path
        if FileManager.default.fileExists(atPath: installed) { return installed }
        // Sources/LedgerStore/Migrations/SchemaLocation.swift -> repository root
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("schema").path
    }

    public static func migrations() throws -> [Migration] { try Migration.load(from: directory()) }
}
