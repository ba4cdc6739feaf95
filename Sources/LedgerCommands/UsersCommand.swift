import ArgumentParser
import Foundation
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerWebhooks

/// `ledger users erase`: what `DELETE /v1/users/{user_id}` does, from the shell (docs/erasure.md).
struct UsersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "App users: erase one (their personal data destroyed, the log still verifies).",
        subcommands: [Erase.self])

    struct Erase: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase an app user: destroy their data key and blind index, and print the signed erasure certificate.",
            discussion: """
                In one transaction: the user's id can no longer be opened or found, the webhook deliveries that named \
                it name their pseudonym instead, and the certificate (signed with the digest key) is stored. Erasing \
                again prints the same certificate. Reads of the id then answer 404 user_erased. Exit 1 for an id the \
                app never named. Put no personal data in the reason: it is kept with the certificate.
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @OptionGroup var digest: DigestOptions
        @Argument(help: "The app (app_…).") var app: String
        @Argument(help: "The app user id, as the app names the user.") var user: String
        @Option(help: "Why (a ticket or request reference), up to 500 characters.") var reason: String

        mutating func validate() throws {
            guard (1...500).contains(reason.unicodeScalars.count), !reason.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { throw ValidationError("--reason must be one line of 1 to 500 characters") }
            guard (1...256).contains(user.unicodeScalars.count) else { throw ValidationError("the user id must be 1 to 256 characters") }
        }

        mutating func run() async throws {
            let (database, masterKey, digest, app, user, reason) = (database, masterKey, digest, app, user, reason)
            try await database.withLedger(logger: CommandLogging.logger("ledger.users")) { pool, _, _ in
                guard let key = try digest.key(database: database) else {
                    throw CommandFailure("erasure certificates are signed with the digest key; pass --signing-key or set LEDGER_SIGNING_KEY_FILE")
                }
                let erasure = UserErasure(identities: IdentityStore(pool: pool, keys: try masterKey.source(database: database)), signingKey: key)
                let actor = OperatorActor.shell(user: OperatorsCommand.user)
                let outcome: UserErasure.Outcome
                do {
                    outcome = try await erasure.erase(app: app, user: user, reason: reason, by: actor.eventActor, at: LedgerClock.system.now()) {
                        connection, app, user, pseudonym in
                        try WebhookStore.forget(app: app, user: user, pseudonym: pseudonym, on: connection)
                    }
                } catch let error as ErasureError {
                    throw CommandFailure(error.description)
                }
                if case .erased(let signed) = outcome {
                    _ = try await OperatorActionLog(pool: pool).append(
                        "user.erase", target: "user:" + signed.certificate.pseudonym, detail: "in \(app): \(reason)", by: actor,
                        at: LedgerClock.system.now())
                }
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(outcome.certificate), as: UTF8.self))
            }
        }
    }
}
