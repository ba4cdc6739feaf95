import Crypto

/// Seals small secrets the server must read back (operators' one-time-password secrets) with AES-GCM under the
/// installation's master key, so that the database alone does not give them away.
///
/// A sealed value is a version byte (1), the sealing key's fingerprint (8 bytes), then AES-GCM's nonce, ciphertext
/// and tag: it opens with whichever key of the ring sealed it, and a rotation finds what is not yet under the current
/// key. Values sealed before fingerprints (nonce, ciphertext and tag alone) open with any key of the ring.
package struct SecretBox: Sendable {
    static let version: UInt8 = 1
    static let header = 1 + 8
    let keys: MasterKeySource

    package init(keys: MasterKeySource) { self.keys = keys }

    package init(key: SymmetricKey) { self.init(keys: MasterKeySource(key: key)) }

    package func seal(_ secret: [UInt8]) throws(PrivacyError) -> [UInt8] {
        let key = keys.ring.current
        let combined: [UInt8]
        do {
            guard let box = try AES.GCM.seal(secret, using: key).combined else { throw PrivacyError.sealing("AES-GCM gave no combined box") }
            combined = Array(box)
        } catch {
            throw .sealing("AES-GCM refused to seal: \(error)")
        }
        return [Self.version] + MasterKeyring.fingerprint(key) + combined
    }

    package func open(_ sealed: [UInt8]) throws(PrivacyError) -> [UInt8] {
        let ring = keys.ring
        if sealed.count > Self.header, sealed[0] == Self.version, let key = ring.key(fingerprint: sealed[1..<Self.header]),
            let opened = Self.open(sealed[Self.header...], key)
        {
            return opened
        }
        for key in ring.all {
            if let opened = Self.open(sealed[...], key) { return opened }
        }
        throw .sealing("it does not open with the master key; is the key file the installation's, and was it rotated completely?")
    }

    /// Whether `sealed` is sealed under the current key (a rotation leaves those alone).
    package func isCurrent(_ sealed: [UInt8]) -> Bool {
        sealed.count > Self.header && sealed[0] == Self.version
            && sealed[1..<Self.header] == MasterKeyring.fingerprint(keys.ring.current)[...]
    }

    private static func open(_ combined: ArraySlice<UInt8>, _ key: SymmetricKey) -> [UInt8]? {
        guard let box = try? AES.GCM.SealedBox(combined: combined), let opened = try? AES.GCM.open(box, using: key) else { return nil }
        return Array(opened)
    }
}
