import Crypto
import Foundation
import LedgerPrivacy
import PostgresClient
import PostgresTestSupport

/// The master key every test installation uses: harnesses and servers on one database must share one (it seals the
/// users' identities), and a test that compares two logs reads both with it.
package enum TestMasterKey {
    package static let key = SymmetricKey(data: [UInt8](repeating: 42, count: 32))
    package static var source: MasterKeySource { MasterKeySource(key: key) }

    /// A key file holding it (`LEDGER_MASTER_KEY_FILE` for a server process), written once per test process.
    package static let file: String = {
        let path = TestScratch.path("test-master-key")
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        FileManager.default.createFile(atPath: path, contents: Data((hex + "\n").utf8), attributes: [.posixPermissions: 0o600])
        return path
    }()

    /// `text` with every pseudonym of `app` replaced by the app user id it stands for and every sealed field opened: two
    /// logs of the same facts name the same users by different pseudonyms and seal under different keys, so tests
    /// compare them revealed.
    package static func revealer(app: String, pool: PostgresPool, keys: MasterKeySource = source) async throws -> @Sendable (String) -> String {
        let identities = IdentityStore(pool: pool, keys: keys)
        let ids = try await identities.all(app: app).filter { $0.key != $0.value }.sorted { $0.key.count > $1.key.count }
        let open = try await identities.fields.opener(app: app)
        return { text in ids.reduce(open(text)) { $0.replacingOccurrences(of: $1.key, with: $1.value) } }
    }
}
