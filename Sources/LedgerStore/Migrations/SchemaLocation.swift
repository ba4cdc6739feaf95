import Foundation

/// Finds the `schema/` folder: `LEDGER_SCHEMA_DIR`, then `<executable>/../share/subscription-ledger/schema`
/// (installed layout, see Deploy/), then the source checkout this binary was built from.
public enum SchemaLocation {
    public static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["LEDGER_SCHEMA_DIR"], !explicit.isEmpty { return explicit }
        if let executable = executableURL() {
            let installed = executable.deletingLastPathComponent().appendingPathComponent("../share/subscription-ledger/schema")
                .standardizedFileURL.path
            if FileManager.default.fileExists(atPath: installed) { return installed }
        }
        // Sources/LedgerStore/Migrations/SchemaLocation.swift -> repository root
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("schema").path
    }

    public static func migrations() throws -> [Migration] { try Migration.load(from: directory()) }

    /// The running executable's real file. Not `CommandLine.arguments[0]`: a program started by name from `PATH`
    /// gets just `ledger` there, which would be looked up in the working directory. `/proc/self/exe` is the kernel's
    /// answer on Linux; elsewhere Foundation's (`_NSGetExecutablePath` on Darwin).
    public static func executableURL() -> URL? {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return URL(fileURLWithPath: path)
        }
        return Bundle.main.executableURL?.resolvingSymlinksInPath()
    }
}
