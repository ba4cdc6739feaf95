import Crypto
import Foundation
import LedgerStore

/// Seals small secrets the server must read back (one-time-password secrets) with AES-GCM under the installation's
/// master key, so that the database alone does not give them away.
package struct SecretBox: Sendable {
    let key: SymmetricKey

    package init(key: SymmetricKey) { self.key = key }

    /// Nonce, ciphertext and tag, as one value to store.
    package func seal(_ secret: [UInt8]) throws -> [UInt8] {
        guard let combined = try AES.GCM.seal(secret, using: key).combined else {
            throw OperatorError.sealing("AES-GCM gave no combined box")
        }
        return Array(combined)
    }

    package func open(_ sealed: [UInt8]) throws -> [UInt8] {
        do {
            return Array(try AES.GCM.open(AES.GCM.SealedBox(combined: sealed), using: key))
        } catch {
            throw OperatorError.sealing("a sealed secret does not open with this master key; is it the installation's?")
        }
    }
}

/// The installation's master key: 32 random bytes, hex-encoded, in a file only its owner can read
/// (`LEDGER_MASTER_KEY_FILE`; by default `master-key` in the data folder, made on first start).
package enum MasterKey {
    package static func load(path: String) throws -> SymmetricKey {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            throw OperatorError.masterKey("\(path) cannot be read: \(error.localizedDescription)")
        }
        guard let bytes = Hex.bytes(text), bytes.count == 32 else {
            throw OperatorError.masterKey("\(path) must hold a 256-bit key as 64 hex digits")
        }
        return SymmetricKey(data: bytes)
    }

    /// Loads the key at `path`, creating it (mode 0600) when the file does not exist.
    package static func loadOrCreate(path: String) throws -> SymmetricKey {
        if FileManager.default.fileExists(atPath: path) { return try load(path: path) }
        let bytes = RandomToken.bytes(32)
        let created = FileManager.default.createFile(
            atPath: path, contents: Data(Hex.string(bytes).utf8), attributes: [.posixPermissions: 0o600])
        guard created else { throw OperatorError.masterKey("cannot write the master key to \(path)") }
        return SymmetricKey(data: bytes)
    }
}
