import Crypto
import Foundation
import LedgerPrivacy
import PostgresTestSupport
import Testing

/// Sealing under the master key: each sealed value names its key, opens under whichever key of the ring sealed it, and
/// the key file is replaced whole and read again by a running service when it changes.
@Suite struct SecretBoxTests {
    /// A path of its own in the test process's scratch folder (removed when the process exits).
    static func scratch(_ name: String) -> String { TestScratch.path(name) }

    @Test func aSealedValueNamesItsKeyAndOpensUnderTheRingThatHoldsIt() throws {
        let (old, new) = (SymmetricKey(size: .bits256), SymmetricKey(size: .bits256))
        let sealedOld = try SecretBox(key: old).seal(Array("JBSWY3DPEHPK3PXP".utf8))
        #expect(sealedOld[0] == 1 && Array(sealedOld[1..<9]) == MasterKeyring.fingerprint(old))
        let rotating = SecretBox(keys: MasterKeySource(fixed: MasterKeyring(current: new, previous: [old])))
        #expect(try rotating.open(sealedOld) == Array("JBSWY3DPEHPK3PXP".utf8))
        #expect(!rotating.isCurrent(sealedOld))
        #expect(rotating.isCurrent(try rotating.seal([1, 2, 3])))
        #expect(throws: PrivacyError.self) { try SecretBox(key: new).open(sealedOld) }
        var altered = sealedOld
        altered[altered.count - 1] ^= 1
        #expect(throws: PrivacyError.self) { try rotating.open(altered) }
        // Sealed before fingerprints: nonce, ciphertext and tag alone.
        let legacy = Array(try #require(try AES.GCM.seal([9, 9], using: old).combined))
        #expect(try rotating.open(legacy) == [9, 9])
        #expect(!rotating.isCurrent(legacy))
    }

    @Test func theKeyFileIsMadeForItsOwnerAndReplacedWhole() throws {
        let path = Self.scratch("master-key")
        let made = try MasterKeyFile.loadOrCreate(path: path)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(MasterKeyring.fingerprint(try MasterKeyFile.loadOrCreate(path: path).current) == MasterKeyring.fingerprint(made.current))
        let two = MasterKeyring(current: SymmetricKey(size: .bits256), previous: [made.current])
        try MasterKeyFile.write(two, to: path)
        let read = try MasterKeyFile.load(path: path)
        #expect(read.all.map(MasterKeyring.fingerprint) == two.all.map(MasterKeyring.fingerprint))
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
        for bad in ["", "not hex\n", String(repeating: "ab", count: 31) + "\n"] {
            try bad.write(toFile: path, atomically: true, encoding: .utf8)
            #expect(throws: PrivacyError.self) { try MasterKeyFile.load(path: path) }
        }
        #expect(throws: PrivacyError.self) { try MasterKeySource(path: Self.scratch("absent"), create: false) }
    }

    @Test func aRunningServiceReadsTheFileAgainWhenItChanges() throws {
        let path = Self.scratch("master-key")
        let source = try MasterKeySource(path: path, create: true)
        let box = SecretBox(keys: source)
        let first = try box.seal([1])
        let next = SymmetricKey(size: .bits256)
        try MasterKeyFile.write(MasterKeyring(current: next, previous: [source.ring.current]), to: path)
        let second = try box.seal([2])
        #expect(Array(second[1..<9]) == MasterKeyring.fingerprint(next), "sealed under the new key")
        #expect(try box.open(first) == [1], "the old key still opens while it is in the file")
        try MasterKeyFile.write(MasterKeyring(current: next), to: path)
        #expect(throws: PrivacyError.self) { try box.open(first) }
        #expect(try box.open(second) == [2])
    }
}
