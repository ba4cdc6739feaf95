import ArgumentParser
import Crypto
import EmbeddedPostgres
import Foundation
import LedgerOperators
import LedgerStore
import PostgresClient

/// Where the digest signing key is: `--signing-key` / `LEDGER_SIGNING_KEY_FILE`, else (embedded PostgreSQL only)
/// `digest-signing-key` in the data folder, created on first use. Keep a copy of the public key (`ledger digest`
/// prints it) where the database's administrators cannot change it: auditors pass it to `ledger verify`.
struct DigestOptions: ParsableArguments {
    @Option(
        name: .customLong("signing-key"),
        help: "Ed25519 key file (64 hex digits) for log digests (default: $LEDGER_SIGNING_KEY_FILE, or the embedded data folder's).")
    var signingKeyPath: String?

    func keyPath(database: DatabaseOptions) -> String? {
        if let signingKeyPath { return signingKeyPath }
        if let path = ProcessInfo.processInfo.environment["LEDGER_SIGNING_KEY_FILE"], !path.isEmpty { return path }
        guard database.explicitURL == nil else { return nil }
        return (database.dataDirectory ?? EmbeddedCluster.defaultDirectory()) + "/digest-signing-key"
    }

    /// The key, created when it is the embedded default and does not exist yet.
    func key(database: DatabaseOptions) throws -> Curve25519.Signing.PrivateKey? {
        guard let path = keyPath(database: database) else { return nil }
        return signingKeyPath == nil && ProcessInfo.processInfo.environment["LEDGER_SIGNING_KEY_FILE"] == nil
            ? try DigestSigningKey.loadOrCreate(path: path) : try DigestSigningKey.load(path: path)
    }
}

/// `ledger digest`: signs a digest of every app's log now.
struct DigestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "digest", abstract: "Sign a digest of every app's log (tamper evidence).")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var digest: DigestOptions

    mutating func run() async throws {
        let logger = CommandLogging.logger("ledger.digest")
        let database = database
        let digest = digest
        let digests = try await database.withLedger(logger: logger) { service, _, _ in
            let existingKey = try digest.key(database: database)
            guard let key = existingKey else {
                throw CommandFailure(
                    "no signing key: pass --signing-key FILE or set LEDGER_SIGNING_KEY_FILE (64 hex digits of an Ed25519 private " + "key)")
            }
            return try await service.withConnection { connection in
                let digests = try ChainDigester().digest(on: connection, key: key)
                try OperatorActionVerifier().digest(on: connection, key: key)
                return digests
            }
        }
        print("signed \(digests.count) digest(s) of the log, and one of the operator record")
        if let first = digests.first { print("public key: \(first.publicKey.map { String(format: "%02x", $0) }.joined())") }
    }
}
