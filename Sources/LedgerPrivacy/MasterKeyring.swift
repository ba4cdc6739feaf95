import Crypto
import Foundation
import LedgerStore
import Synchronization

/// The installation's master keys: the current one seals; the others, left by a rotation in progress
/// (`ledger keys rotate`), still open what they sealed. Each key is named in what it sealed by its fingerprint.
package struct MasterKeyring: Sendable {
    package let current: SymmetricKey
    package let previous: [SymmetricKey]

    package init(current: SymmetricKey, previous: [SymmetricKey] = []) {
        self.current = current
        self.previous = previous
    }

    package var all: [SymmetricKey] { [current] + previous }

    /// 8 bytes that name a key without revealing it: the start of SHA-256 over a label and the key.
    package static func fingerprint(_ key: SymmetricKey) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("ledger master key v1".utf8))
        key.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        return Array(hasher.finalize().prefix(8))
    }

    package func key(fingerprint: ArraySlice<UInt8>) -> SymmetricKey? {
        all.first { Self.fingerprint($0)[...] == fingerprint }
    }
}

/// The master key file: one key per line as 64 hex digits, the current key first, readable by its owner only
/// (`LEDGER_MASTER_KEY_FILE`; by default `master-key` in the data folder, made on first start).
package enum MasterKeyFile {
    package static func load(path: String) throws(PrivacyError) -> MasterKeyring {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .masterKey("\(path) cannot be read: \(error.localizedDescription)")
        }
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var keys: [SymmetricKey] = []
        for line in lines {
            guard let bytes = Hex.bytes(line), bytes.count == 32 else {
                throw .masterKey("\(path) must hold 256-bit keys as 64 hex digits, one per line")
            }
            keys.append(SymmetricKey(data: bytes))
        }
        guard let current = keys.first else { throw .masterKey("\(path) holds no key") }
        return MasterKeyring(current: current, previous: Array(keys.dropFirst()))
    }

    /// Loads the keys at `path`, creating a file with one new key (mode 0600) when there is none.
    package static func loadOrCreate(path: String) throws(PrivacyError) -> MasterKeyring {
        if FileManager.default.fileExists(atPath: path) { return try load(path: path) }
        let ring = MasterKeyring(current: SymmetricKey(size: .bits256))
        try write(ring, to: path)
        return ring
    }

    /// Replaces the file at once (a new file, mode 0600, renamed over the old one), so that a reader sees the old
    /// keys or the new ones, never a part.
    package static func write(_ ring: MasterKeyring, to path: String) throws(PrivacyError) {
        let text = ring.all.map { key in key.withUnsafeBytes { Hex.string(Array($0)) } }.joined(separator: "\n") + "\n"
        let temporary = path + ".new-\(getpid())"
        guard FileManager.default.createFile(atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw .masterKey("cannot write \(temporary)")
        }
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw .masterKey("cannot replace \(path) (errno \(errno))")
        }
    }
}

/// Where a service gets its master keys: the file, read again whenever it changed (so that a rotation reaches a
/// running service: it seals with the new key and opens what the new key sealed), or fixed keys.
package final class MasterKeySource: Sendable {
    /// The file's identity and age as last read: a rename makes a new inode, an edit a new modification time.
    struct FileStamp: Equatable, Sendable {
        var inode: Int
        var modified: Date?
        var size: Int
    }

    let path: String?
    private let state: Mutex<(ring: MasterKeyring, stamp: FileStamp?)>

    package init(fixed ring: MasterKeyring) {
        path = nil
        state = Mutex((ring, nil))
    }

    package convenience init(key: SymmetricKey) { self.init(fixed: MasterKeyring(current: key)) }

    /// The keys of the file at `path`; with `create`, a file with one new key (mode 0600) when there is none.
    package init(path: String, create: Bool) throws(PrivacyError) {
        self.path = path
        // The stamp before the read: a change between the two is read again at the next look.
        let before = Self.stamp(path)
        let ring = try create ? MasterKeyFile.loadOrCreate(path: path) : MasterKeyFile.load(path: path)
        state = Mutex((ring, before ?? Self.stamp(path)))
    }

    /// The keys now: read again when the file changed since the last look. A file that cannot be read (mid-edit by
    /// hand) leaves the keys as they were.
    package var ring: MasterKeyring {
        guard let path else { return state.withLock { $0.ring } }
        let stamp = Self.stamp(path)
        if let stamp, stamp != state.withLock({ $0.stamp }), let ring = try? MasterKeyFile.load(path: path) {
            state.withLock { $0 = (ring, stamp) }
        }
        return state.withLock { $0.ring }
    }

    static func stamp(_ path: String) -> FileStamp? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return FileStamp(
            inode: (attributes[.systemFileNumber] as? Int) ?? 0, modified: attributes[.modificationDate] as? Date,
            size: (attributes[.size] as? Int) ?? 0)
    }
}
