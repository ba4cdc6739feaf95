import Crypto
import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import Synchronization

/// The personal fields of events (`PersonalField`: developer payloads, notifications' verbatim JSON) as the log
/// stores them: sealed with AES-GCM under their purchase's data key (`DataKeyStore`, subject `purchase:<id>`), written
/// `pii1.<key id>.<base64 of nonce, ciphertext and tag>` in the JSON string. Erasing the purchase's owner destroys
/// the key, and the field with it; the stored bytes (which the chain hashes) do not change (docs/erasure.md).
///
/// A field about a purchase whose key was destroyed before it was written (a renewal of an erased user's
/// subscription) is stored as `pii1.destroyed`: the value is never stored readable again.
package struct SealedFields: Sendable {
    static let prefix = "pii1."
    package static let destroyed = "pii1.destroyed"

    let pool: PostgresPool
    let box: SecretBox
    let cache: DataKeyCache

    package static func isSealed(_ text: String) -> Bool { text.hasPrefix(prefix) }

    /// `events` (facts as they arrive, never events read from the log) with every personal field sealed under its
    /// purchase's key, made the first time the purchase has a field to seal. A value that merely looks sealed (a
    /// developer payload that starts with `pii1.`) is sealed like any other.
    package func sealing(app appID: String, _ events: [LedgerEvent]) async throws -> [LedgerEvent] {
        let fields = events.map(\.personalFields)
        let purchases = Set(fields.joined().map(\.purchase))
        guard !purchases.isEmpty else { return events }
        let keys = try await keys(app: appID, purchases: purchases)
        return try zip(events, fields).map { event, fields in
            let sealed = try fields.map { field in try Self.seal(field.value, under: keys[field.purchase] ?? nil) }
            var next = sealed.makeIterator()
            return event.mappingPersonalFields { _ in next.next()! }
        }
    }

    /// The clear text of each of `texts` that opens (texts never sealed are their own clear text); those whose key
    /// was destroyed are left out.
    package func open(app appID: String, _ texts: some Sequence<String>) async throws -> [String: String] {
        var found: [String: String] = [:]
        var wanted: [String: [String]] = [:]
        for text in Set(texts) {
            if !Self.isSealed(text) {
                found[text] = text
            } else if let (keyID, _) = Self.parts(text) {
                wanted[keyID, default: []].append(text)
            }
        }
        guard !wanted.isEmpty else { return found }
        var keys: [String: SymmetricKey] = [:]
        var missing: [String] = []
        for keyID in wanted.keys {
            if let key = cache.key(app: appID, id: keyID) { keys[keyID] = key } else { missing.append(keyID) }
        }
        if !missing.isEmpty {
            let rows = try await pool.query(
                "SELECT key_id, sealed FROM ledger.data_keys WHERE app_id = \(appID) AND key_id = ANY(\(TextArray(missing.sorted())))")
            for row in rows {
                guard let sealed = try row.decode([UInt8]?.self, at: 1) else { continue }
                let keyID = try row.decode(String.self, at: 0)
                let key = SymmetricKey(data: try box.open(sealed))
                cache.remember(app: appID, id: keyID, subject: nil, key: key)
                keys[keyID] = key
            }
        }
        for (keyID, texts) in wanted {
            guard let key = keys[keyID] else { continue }
            for text in texts {
                if let clear = Self.open(text, key: key) { found[text] = clear }
            }
        }
        return found
    }

    /// A sealed field inside a JSON text (an event's payload, a state). (A function: `Regex` is not `Sendable`.)
    static func inText() -> Regex<(Substring, Substring?)> { /pii1\.(?:destroyed|(dk_[0-9a-f]+)\.[A-Za-z0-9+\/=]+)/ }

    /// `texts` (events' or states' JSON) with every sealed field opened, JSON-escaped, and `erased` in place of those
    /// whose key is destroyed: what a person reads (the console's timeline).
    package func revealing(app appID: String, _ texts: [String], erased: String = "(erased)") async throws -> [String] {
        let sealed = texts.flatMap { $0.matches(of: Self.inText()).map { String($0.output.0) } }
        guard !sealed.isEmpty else { return texts }
        let clear = try await open(app: appID, sealed)
        return texts.map { text in text.replacing(Self.inText()) { clear[String($0.output.0)].map(Self.escaped) ?? erased } }
    }

    /// Opens every sealed field inside a text, JSON-escaped, synchronously (the app's live data keys read once): what
    /// a test comparing two logs of the same facts (sealed under different keys) reads them by.
    package func opener(app appID: String) async throws -> @Sendable (String) -> String {
        var keys: [String: SymmetricKey] = [:]
        for row in try await pool.query("SELECT key_id, sealed FROM ledger.data_keys WHERE app_id = \(appID) AND sealed IS NOT NULL") {
            keys[try row.decode(String.self, at: 0)] = SymmetricKey(data: try box.open(try row.decode([UInt8].self, at: 1)))
        }
        return { [keys] text in
            text.replacing(Self.inText()) { match in
                guard let keyID = match.output.1, let key = keys[String(keyID)], let clear = Self.open(String(match.output.0), key: key)
                else { return String(match.output.0) }
                return Self.escaped(clear)
            }
        }
    }

    /// `text` as inside a JSON string.
    static func escaped(_ text: String) -> String {
        guard let json = try? JSONEncoder().encode(text) else { return "" }
        return String(decoding: json.dropFirst().dropLast(), as: UTF8.self)
    }

    /// `owned` with its purchases' developer payloads opened (nil where the key was destroyed): what the API answers.
    package func opening(app appID: String, _ owned: OwnedSummaries) async throws -> OwnedSummaries {
        var owned = owned
        let payloads = try await opened(app: appID, owned.purchases.map { $0.details?.developerPayload })
        for (index, payload) in zip(owned.purchases.indices, payloads) where owned.purchases[index].details != nil {
            owned.purchases[index].details?.developerPayload = payload
        }
        return owned
    }

    /// `values` with each sealed one opened (nil where its key was destroyed), in order; no statement when none is
    /// sealed.
    package func opened(app appID: String, _ values: [String?]) async throws -> [String?] {
        let sealed = values.compactMap { $0 }.filter(Self.isSealed)
        guard !sealed.isEmpty else { return values }
        let clear = try await open(app: appID, sealed)
        return values.map { value in value.flatMap { Self.isSealed($0) ? clear[$0] : $0 } }
    }

    /// Forgets the keys this process holds for `subjects` (an erasure on this instance destroyed them).
    func forget(app appID: String, subjects: some Sequence<String>) { cache.forget(app: appID, subjects: subjects) }

    /// The data key of each purchase (nil: destroyed), from the cache or made or read on one connection.
    private func keys(app appID: String, purchases: Set<String>) async throws -> [String: (id: String, key: SymmetricKey)?] {
        var keys: [String: (id: String, key: SymmetricKey)?] = [:]
        var missing: [String] = []
        for purchase in purchases {
            if let known = cache.key(app: appID, subject: Self.subject(purchase)) { keys[purchase] = known } else { missing.append(purchase) }
        }
        guard !missing.isEmpty else { return keys }
        let (box, wanted) = (box, missing)
        let made = try await pool.withConnection { connection in
            try wanted.map { purchase in
                (purchase, try DataKeyStore.key(app: appID, subject: Self.subject(purchase), box: box, on: connection))
            }
        }
        for (purchase, key) in made {
            keys[purchase] = key
            if let key { cache.remember(app: appID, id: key.id, subject: Self.subject(purchase), key: key.key) }
        }
        return keys
    }

    package static func subject(_ purchase: String) -> String { "purchase:" + purchase }

    static func seal(_ value: String, under key: (id: String, key: SymmetricKey)?) throws -> String {
        guard let key else { return destroyed }
        guard let combined = try AES.GCM.seal(Array(value.utf8), using: key.key).combined else {
            throw PrivacyError.sealing("AES-GCM gave no combined box")
        }
        return prefix + key.id + "." + combined.base64EncodedString()
    }

    static func parts(_ text: String) -> (keyID: String, box: Substring)? {
        let rest = text.dropFirst(prefix.count)
        guard let dot = rest.firstIndex(of: ".") else { return nil }
        return (String(rest[..<dot]), rest[rest.index(after: dot)...])
    }

    static func open(_ text: String, key: SymmetricKey) -> String? {
        guard let (_, encoded) = parts(text), let data = Data(base64Encoded: String(encoded)),
            let box = try? AES.GCM.SealedBox(combined: data), let clear = try? AES.GCM.open(box, using: key)
        else { return nil }
        return String(decoding: clear, as: UTF8.self)
    }
}

/// Data keys this process opened, for at most `lifetime`: a purchase's key is read once per minute rather than once
/// per event or read. An erasure on this instance forgets the user's keys at once; another instance forgets every key
/// it holds when it hears of the erasure (`ledger_erasures`), and if it missed the notice (its listener was
/// reconnecting), a destroyed key is used for at most `lifetime` (what it seals then is unreadable once the entry
/// expires, and reads of the erased user answer `user_erased` meanwhile).
final class DataKeyCache: Sendable {
    static let lifetime: Duration = .seconds(60)
    static let limit = 10_000

    private struct Entry {
        var id: String
        var key: SymmetricKey
        var until: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])

    func key(app appID: String, subject: String) -> (id: String, key: SymmetricKey)? {
        entry("s\0" + appID + "\0" + subject).map { ($0.id, $0.key) }
    }

    func key(app appID: String, id: String) -> SymmetricKey? { entry("k\0" + appID + "\0" + id)?.key }

    func remember(app appID: String, id: String, subject: String?, key: SymmetricKey) {
        let entry = Entry(id: id, key: key, until: .now + Self.lifetime)
        entries.withLock { entries in
            if entries.count >= Self.limit { entries.removeAll(keepingCapacity: true) }
            entries["k\0" + appID + "\0" + id] = entry
            if let subject { entries["s\0" + appID + "\0" + subject] = entry }
        }
    }

    func forgetAll() { entries.withLock { $0.removeAll() } }

    func forget(app appID: String, subjects: some Sequence<String>) {
        entries.withLock { entries in
            for subject in subjects {
                if let entry = entries.removeValue(forKey: "s\0" + appID + "\0" + subject) {
                    entries.removeValue(forKey: "k\0" + appID + "\0" + entry.id)
                }
            }
        }
    }

    private func entry(_ name: String) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[name] else { return nil }
            guard entry.until > .now else {
                entries.removeValue(forKey: name)
                return nil
            }
            return entry
        }
    }
}
