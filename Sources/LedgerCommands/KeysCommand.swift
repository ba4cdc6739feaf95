import ArgumentParser
import Crypto
import Foundation
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerStore
import PostgresClient

/// `ledger keys rotate`: a new master key, and everything sealed under the old one sealed again under it, while the
/// service runs (README "Master key").
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys", abstract: "The installation's master key: rotate it while the service runs.", subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new master key and seal everything again under it; the service keeps running.",
            discussion: """
                Three steps. 1: the key file gets the new key first and keeps the old one after it; a running service \
                reads the file again when it changes, so from then on it seals with the new key and opens under \
                either. 2: every secret sealed under another key is sealed again under the new one (each row only if \
                unchanged meanwhile). 3: the old key leaves the file, and whatever a service sealed under it in the \
                last moments is sealed again. With several hosts, each with its own copy of the file: run with \
                --begin (steps 1 and 2), copy the file to every host, then run with --finish (step 3) and copy it \
                again. Back up the new file: without it the sealed secrets do not open.
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Flag(help: "Steps 1 and 2 only: the old key stays in the file (several hosts: copy it to each, then --finish).")
        var begin = false
        @Flag(help: "Step 3 only: seal again what is left under older keys, then drop them from the file.") var finish = false

        mutating func validate() throws {
            guard !(begin && finish) else { throw ValidationError("--begin and --finish are two runs; pass one of them, or neither for both") }
        }

        mutating func run() async throws {
            let (path, create) = try masterKey.file(database: database)
            let (begin, finish) = (begin, finish)
            try await database.withLedger(logger: CommandLogging.logger("ledger.keys")) { pool, _, _ in
                do {
                    let found = try create ? MasterKeyFile.loadOrCreate(path: path) : MasterKeyFile.load(path: path)
                    var ring = found
                    if !finish {
                        ring = MasterKeyring(current: SymmetricKey(size: .bits256), previous: found.all)
                        try MasterKeyFile.write(ring, to: path)
                    }
                    var resealed = try await Self.resealAll(pool: pool, ring: ring)
                    if !begin {
                        try MasterKeyFile.write(MasterKeyring(current: ring.current), to: path)
                        resealed += try await Self.resealAll(pool: pool, ring: ring)
                    }
                    let (from, to) = (Self.name(found.current), Self.name(ring.current))
                    let detail = finish ? "older keys dropped, current \(to)" : "\(from) → \(to)" + (begin ? " (old key kept)" : "")
                    _ = try await OperatorActionLog(pool: pool).append(
                        "keys.rotate", target: path, detail: detail + ", \(resealed) secret(s) sealed again",
                        by: .shell(user: OperatorsCommand.user), at: LedgerClock.system.now())
                    print("master key \(path): \(detail); \(resealed) secret(s) sealed again")
                    print(
                        begin
                            ? "copy \(path) to every host, then run `ledger keys rotate --finish`"
                            : "back up \(path) now: the old key opens nothing of this database any more")
                } catch let error as PrivacyError {
                    throw CommandFailure(error.description)
                }
            }
        }

        /// Everything sealed under the master key: the operators' one-time-password secrets, the blind-index key
        /// and every data key.
        static let sealedColumns = OperatorStore.sealedColumns + IdentityStore.sealedColumns

        /// Passes over each column until no value is left under a key other than `ring`'s current one (a pass can
        /// miss a row changed while it ran); returns how many were sealed again.
        static func resealAll(pool: PostgresPool, ring: MasterKeyring) async throws -> Int {
            let box = SecretBox(keys: MasterKeySource(fixed: ring))
            var resealed = 0
            for column in sealedColumns {
                while true {
                    let pass = try await column.reseal(with: box, pool: pool)
                    resealed += pass.resealed
                    if pass.stale == 0 { break }
                }
            }
            return resealed
        }

        /// A key as the record and the output name it: its fingerprint.
        static func name(_ key: SymmetricKey) -> String { "key " + Hex.string(MasterKeyring.fingerprint(key)) }
    }
}
