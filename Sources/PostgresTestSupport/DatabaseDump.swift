import EmbeddedPostgres
import Foundation

/// What a search for personal data reads: a database as `pg_dump` writes it, and every encoding the ledger could have
/// stored a value in.
package enum DatabaseDump {
    package struct Failure: Error, CustomStringConvertible {
        package let output: String
        package var description: String { "pg_dump failed:\n\(output.suffix(400))" }
    }

    /// A data-only `pg_dump` of the database at `url`, as text (COPY data: jsonb as text, bytea as hex).
    package static func text(_ url: String) throws -> String {
        let dump = try ProcessRunner.run([try PostgresInstallation.locate().program("pg_dump"), "--dbname=" + url, "--data-only"])
        guard dump.status == 0 else { throw Failure(output: dump.output) }
        return dump.output
    }

    /// Every way the ledger could have written `text`: as is, JSON-escaped, hex (bytea), base64 and base64url.
    package static func encodings(_ text: String) -> [String] {
        let bytes = Data(text.utf8)
        let base64 = bytes.base64EncodedString()
        let url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let json = String(decoding: (try? JSONEncoder().encode(text)) ?? Data(), as: UTF8.self).dropFirst().dropLast()
        return [text, String(json), bytes.map { String(format: "%02x", $0) }.joined(), base64, url]
    }
}
