import Crypto
import Foundation
import LedgerDomain
import PostgresClient
import UTCTime

/// A signed statement of what one app's log contained below a transaction horizon (see schema/002_chain_digests.sql).
public struct ChainDigest: Sendable, Equatable {
    public var appID: String
    public var horizon: UInt64
    public var eventCount: Int64
    public var headsHash: [UInt8]
    public var createdAt: Instant
    public var publicKey: [UInt8]
    public var signature: [UInt8]

    /// The bytes signed: a label, then every field, length-prefixed like the event hash.
    var signedMessage: [UInt8] {
        var bytes = Array("subscription-ledger chain digest v1".utf8)
        let app = Array(appID.utf8)
        bytes += BigEndian.bytes(of: Int32(app.count)) + app
        bytes += BigEndian.bytes(of: horizon) + BigEndian.bytes(of: eventCount) + headsHash
        bytes += BigEndian.bytes(of: createdAt.microsecondsSinceEpoch)
        return bytes
    }

    /// The state of one app's log below `horizon`, computed from the rows themselves.
    package static func measure(on connection: PostgresConnection, app appID: String, horizon: UInt64) throws -> (count: Int64, headsHash: [UInt8]) {
        let limit = TransactionIDValue(value: horizon)
        let count =
            try connection.query(
                """
                SELECT count(*) FROM ledger.events WHERE app_id = \(appID) AND transaction_id < \(limit)
                """
            ).first?.decode(Int64.self, at: 0) ?? 0
        var hasher = SHA256()
        for row in try connection.query(
            """
            SELECT DISTINCT ON (stream_id COLLATE "C") stream_id, stream_version, hash FROM ledger.events
            WHERE app_id = \(appID) AND transaction_id < \(limit)
            ORDER BY stream_id COLLATE "C", stream_version DESC
            """)
        {
            let stream = Array(try row.decode(String.self, at: 0).utf8)
            hasher.update(data: BigEndian.bytes(of: Int32(stream.count)) + stream)
            hasher.update(data: BigEndian.bytes(of: try row.decode(Int64.self, at: 1)))
            hasher.update(data: try row.decode([UInt8].self, at: 2))
        }
        return (count, Array(hasher.finalize()))
    }
}

/// Takes and checks signed digests.
public struct ChainDigester: Sendable {
    /// Dates the digests.
    public let clock: LedgerClock

    public init(clock: LedgerClock = .system) { self.clock = clock }

    /// Signs a digest of every app's log as of now; returns them.
    @discardableResult
    public func digest(on connection: PostgresConnection, key: Curve25519.Signing.PrivateKey) throws -> [ChainDigest] {
        let horizon = try CommitHorizon.read(on: connection)
        let apps = try connection.query("SELECT DISTINCT app_id FROM ledger.events").map { try $0.decode(String.self, at: 0) }
        return try apps.map { appID in
            let state = try ChainDigest.measure(on: connection, app: appID, horizon: horizon)
            var digest = ChainDigest(
                appID: appID, horizon: horizon, eventCount: state.count, headsHash: state.headsHash,
                createdAt: clock.now(), publicKey: Array(key.publicKey.rawRepresentation), signature: [])
            digest.signature = Array(try key.signature(for: digest.signedMessage))
            try connection.query(
                """
                INSERT INTO ledger.chain_digests (app_id, horizon, event_count, heads_hash, created_at, public_key, signature)
                VALUES (\(appID), \(TransactionIDValue(value: horizon)), \(digest.eventCount), \(digest.headsHash),
                        \(digest.createdAt), \(digest.publicKey), \(digest.signature))
                """)
            return digest
        }
    }

    /// Checks the newest digest of every app: its signature (against `trustedKey` when given, so a re-signed digest
    /// is caught), and that the log below its horizon still has the same events and stream heads.
    public func verify(on connection: PostgresConnection, trustedKey: Curve25519.Signing.PublicKey?) throws -> [DigestProblem] {
        var problems: [DigestProblem] = []
        for row in try connection.query(
            """
            SELECT DISTINCT ON (app_id) app_id, horizon, event_count, heads_hash, created_at, public_key, signature
            FROM ledger.chain_digests ORDER BY app_id, digest_id DESC
            """)
        {
            let digest = ChainDigest(
                appID: try row.decode(at: 0), horizon: try row.decode(at: 1), eventCount: try row.decode(at: 2),
                headsHash: try row.decode(at: 3), createdAt: try row.decode(at: 4),
                publicKey: try row.decode(at: 5), signature: try row.decode(at: 6))
            func problem(_ text: String) { problems.append(DigestProblem(appID: digest.appID, createdAt: digest.createdAt, message: text)) }
            guard let stored = try? Curve25519.Signing.PublicKey(rawRepresentation: digest.publicKey),
                stored.isValidSignature(digest.signature, for: digest.signedMessage)
            else {
                problem("the digest's signature does not verify; the digest itself was altered")
                continue
            }
            if let trustedKey, trustedKey.rawRepresentation != stored.rawRepresentation {
                problem("the digest was signed by a key other than the trusted one; it was replaced")
                continue
            }
            let now = try ChainDigest.measure(on: connection, app: digest.appID, horizon: digest.horizon)
            if now.count != digest.eventCount {
                problem(
                    "the signed digest of \(digest.createdAt) counted \(digest.eventCount) events; the log now has \(now.count) there: events "
                        + "were removed or inserted")
            } else if now.headsHash != digest.headsHash {
                problem("the newest events of some streams differ from the signed digest of \(digest.createdAt): events were replaced or removed")
            }
        }
        return problems
    }
}

public struct DigestProblem: Sendable, Equatable, CustomStringConvertible {
    public var appID: String
    public var createdAt: Instant
    public var message: String
    public var description: String { "app \(appID): \(message)" }
}

/// The Ed25519 key digests are signed with: 32 raw bytes, hex-encoded, in a file readable only by its owner.
public enum DigestSigningKey {
    public static func load(path: String) throws -> Curve25519.Signing.PrivateKey {
        let text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Hex.bytes(text), bytes.count == 32 else {
            throw EventStoreError.invalidEvent("\(path) must hold a 32-byte Ed25519 private key as 64 hex digits")
        }
        return try Curve25519.Signing.PrivateKey(rawRepresentation: bytes)
    }

    /// Loads the key at `path`, creating it (mode 0600) when the file does not exist.
    public static func loadOrCreate(path: String) throws -> Curve25519.Signing.PrivateKey {
        if FileManager.default.fileExists(atPath: path) { return try load(path: path) }
        let key = Curve25519.Signing.PrivateKey()
        guard
            FileManager.default.createFile(
                atPath: path, contents: Data(Hex.string(Array(key.rawRepresentation)).utf8),
                attributes: [.posixPermissions: 0o600])
        else {
            throw EventStoreError.invalidEvent("cannot write the digest signing key to \(path)")
        }
        return key
    }

    public static func publicKey(hex text: String) -> Curve25519.Signing.PublicKey? {
        Hex.bytes(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { try? Curve25519.Signing.PublicKey(rawRepresentation: $0) }
    }
}
