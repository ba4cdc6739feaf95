import Crypto
import Foundation

/// One numbered SQL file of `schema/` (`NNN_description.sql`), with the checksum that pins its content once applied.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    /// SHA-256 of the file's bytes, hex.
    public var checksum: String {
        SHA256.hash(data: Data(sql.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Reads every `NNN_name.sql` of `directory`, ordered by number; refuses two files with the same number.
    public static func load(from directory: String) throws(MigrationError) -> [Migration] {
        let files: [String]
        do { files = try FileManager.default.contentsOfDirectory(atPath: directory) } catch {
            throw .schemaDirectoryMissing(path: directory)
        }
        var migrations: [Migration] = []
        for file in files where file.hasSuffix(".sql") {
            let stem = file.dropLast(4)
            guard let separator = stem.firstIndex(of: "_"), let version = Int(stem[..<separator]) else {
                throw .badFileName(file)
            }
            guard let sql = try? String(contentsOfFile: directory + "/" + file, encoding: .utf8) else {
                throw .unreadable(path: directory + "/" + file)
            }
            if let clash = migrations.first(where: { $0.version == version }) {
                throw .duplicateVersion(version, clash.name, String(stem))
            }
            migrations.append(Migration(version: version, name: String(stem), sql: sql))
        }
        return migrations.sorted { $0.version < $1.version }
    }
}

public enum MigrationError: Error, Sendable, CustomStringConvertible {
    case schemaDirectoryMissing(path: String)
    case badFileName(String)
    case unreadable(path: String)
    case duplicateVersion(Int, String, String)
    case changedAfterApply(version: Int, name: String, appliedChecksum: String, fileChecksum: String)
    case unknownAppliedVersion(version: Int, name: String)

    public var description: String {
        switch self {
        case .schemaDirectoryMissing(let path):
            "the schema folder \(path) does not exist; set LEDGER_SCHEMA_DIR to the project's schema/ folder"
        case .badFileName(let file):
            "schema file \(file) is not named NNN_description.sql; rename it"
        case .unreadable(let path):
            "cannot read \(path) as UTF-8 text"
        case .duplicateVersion(let version, let first, let second):
            "schema files \(first).sql and \(second).sql share the number \(version); give one the next free number"
        case .changedAfterApply(let version, let name, let applied, let file):
            "migration \(name).sql (\(version)) was changed after it was applied (applied checksum \(applied.prefix(12))…, "
                + "file now \(file.prefix(12))…). Applied migrations are immutable: restore the file and put the change in a new numbered migration."
        case .unknownAppliedVersion(let version, let name):
            "the database has migration \(version) (\(name)) that this build does not know: run a newer ledger against it"
        }
    }
}
