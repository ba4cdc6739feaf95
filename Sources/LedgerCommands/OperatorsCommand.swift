import ArgumentParser
import Crypto
import EmbeddedPostgres
import Foundation
import LedgerDomain
import LedgerOperators
import LedgerPrivacy
import LedgerStore
import PostgresClient
import UTCTime

/// Where the installation's master key is: `--master-key` / `LEDGER_MASTER_KEY_FILE`, else `master-key` in the data
/// folder (the embedded cluster's, used with an external database too), created on first use with mode 0600. It seals
/// the operators' one-time-password secrets; keep a copy with the database's backups, apart from them.
struct MasterKeyOptions: ParsableArguments {
    @Option(
        name: .customLong("master-key"),
        help: "File of the 256-bit master key, 64 hex digits (default: $LEDGER_MASTER_KEY_FILE, or master-key in the data folder).")
    var path: String?

    /// The key file, and whether it may be created (only the default one: a path given that does not exist is a typo).
    func file(database: DatabaseOptions) throws -> (path: String, create: Bool) {
        if let path { return (path, false) }
        if let path = ProcessInfo.processInfo.environment["LEDGER_MASTER_KEY_FILE"], !path.isEmpty { return (path, false) }
        let folder = database.dataDirectory ?? EmbeddedCluster.defaultDirectory()
        if !FileManager.default.fileExists(atPath: folder) {  // an external database: the folder holds only keys
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        return (folder + "/master-key", true)
    }

    /// The keys as a running service reads them: again whenever `ledger keys rotate` changes the file.
    func source(database: DatabaseOptions) throws -> MasterKeySource {
        let (path, create) = try file(database: database)
        do {
            return try MasterKeySource(path: path, create: create)
        } catch {
            throw CommandFailure(error.description)
        }
    }
}

/// `ledger operators …`: the people who act on the admin side, each with a role (README "Operators"). The first admin
/// is made here, on the server; there is no default account or password anywhere.
struct OperatorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators", abstract: "Add, list and disable operators; give one a new password or role.",
        subcommands: [Add.self, List.self, Disable.self, ResetPassword.self, SetRole.self, Unlock.self, Tokens.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator; prints the one-time-password secret as an otpauth:// URI, once.",
            discussion: """
                The password is read from standard input (--password-stdin), never from an argument, so it stays out \
                of the shell's history and the process list: printf '%s' "$PASSWORD" | ledger operators add alice \
                --role admin --password-stdin. Add the printed otpauth:// URI to an authenticator app (as text, or as \
                a QR code of it); admin and finance sign in with its codes, and so do support and auditors unless \
                --without-one-time-password is given.
                """)
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Argument(help: "The operator's name: lowercase letters, digits, '.', '_', '-', '@'.") var name: String
        @Option(help: "auditor, support, finance or admin.") var role: String
        @Flag(help: "Read the password from standard input (required).") var passwordStdin = false
        @Flag(help: "No one-time password (support and auditor only).") var withoutOneTimePassword = false

        mutating func validate() throws {
            guard OperatorRole(rawValue: role) != nil else { throw ValidationError("--role must be one of \(OperatorRole.names)") }
            guard passwordStdin else { throw ValidationError("pass --password-stdin and the password on standard input") }
        }

        mutating func run() async throws {
            let password = try OperatorsCommand.passwordFromStandardInput()
            let (name, role, oneTimePassword) = (name, OperatorRole(rawValue: role) ?? .auditor, !withoutOneTimePassword)
            let (record, uri) = try await OperatorsCommand.store(database, masterKey) { store in
                try await store.add(
                    name: name, role: role, password: password, oneTimePassword: oneTimePassword, by: .shell(user: OperatorsCommand.user),
                    at: LedgerClock.system.now())
            }
            print("added operator \(record.name) (\(record.id)) with the \(record.role.rawValue) role")
            if let uri { print("one-time password (shown once; add it to an authenticator app): \(uri)") }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Every operator, its role and whether it is disabled.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions

        mutating func run() async throws {
            let operators = try await OperatorsCommand.store(database, masterKey) { try await $0.list() }
            if operators.isEmpty { print("no operator yet: add the first admin with `ledger operators add NAME --role admin --password-stdin`") }
            print("name\trole\tone_time_password\tstatus\tcreated_at")
            for o in operators {
                let status = o.disabledAt.map { "disabled \($0.rfc3339)" } ?? "active"
                print("\(o.name)\t\(o.role.rawValue)\t\(o.hasOneTimePassword ? "yes" : "no")\t\(status)\t\(o.createdAt.rfc3339)")
            }
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable an operator: it signs in no more.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Argument(help: "The operator's name.") var name: String

        mutating func run() async throws {
            let name = name
            let record = try await OperatorsCommand.store(database, masterKey) {
                try await $0.disable(name: name, by: .shell(user: OperatorsCommand.user), at: LedgerClock.system.now())
            }
            print("operator \(record.name) is disabled since \(record.disabledAt?.rfc3339 ?? "now")")
        }
    }

    struct ResetPassword: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reset-password", abstract: "Give an operator a new password, read from standard input.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Argument(help: "The operator's name.") var name: String
        @Flag(help: "Read the password from standard input (required).") var passwordStdin = false

        mutating func validate() throws {
            guard passwordStdin else { throw ValidationError("pass --password-stdin and the password on standard input") }
        }

        mutating func run() async throws {
            let password = try OperatorsCommand.passwordFromStandardInput()
            let name = name
            let record = try await OperatorsCommand.store(database, masterKey) {
                try await $0.resetPassword(name: name, password: password, by: .shell(user: OperatorsCommand.user), at: LedgerClock.system.now())
            }
            print("operator \(record.name) has a new password")
        }
    }

    struct SetRole: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-role",
            abstract: "Give an operator another role; one moving to admin or finance without a one-time password gets one.")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Argument(help: "The operator's name.") var name: String
        @Option(help: "auditor, support, finance or admin.") var role: String

        mutating func validate() throws {
            guard OperatorRole(rawValue: role) != nil else { throw ValidationError("--role must be one of \(OperatorRole.names)") }
        }

        mutating func run() async throws {
            let (name, role) = (name, OperatorRole(rawValue: role) ?? .auditor)
            let (record, uri) = try await OperatorsCommand.store(database, masterKey) {
                try await $0.setRole(name: name, role: role, by: .shell(user: OperatorsCommand.user), at: LedgerClock.system.now())
            }
            print("operator \(record.name) now has the \(record.role.rawValue) role")
            if let uri { print("one-time password (shown once; add it to an authenticator app): \(uri)") }
        }
    }

    struct Unlock: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lift the slow-down or lock that failed sign-ins put on a name (or, with --address, on an address).")
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var masterKey: MasterKeyOptions
        @Argument(help: "The operator's name (as typed at sign-in).") var name: String?
        @Option(help: "A source address instead of a name.") var address: String?

        mutating func validate() throws {
            guard (name == nil) != (address == nil) else { throw ValidationError("give a name or --address, one of them") }
        }

        mutating func run() async throws {
            let (name, address) = (name, address)
            let lifted = try await OperatorsCommand.store(database, masterKey) {
                try await $0.unlock(name: name, address: address, by: .shell(user: OperatorsCommand.user), at: LedgerClock.system.now())
            }
            print(lifted ? "unlocked \(name ?? address ?? "")" : "\(name ?? address ?? "") was not slowed down or locked")
        }
    }

    /// `ledger operators tokens …`: operators' tokens for the admin API.
    struct Tokens: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make, list and revoke operators' tokens for the admin API.", subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Make a token for an operator; prints it once (send it as Authorization: Bearer lop_…).")
            @OptionGroup var database: DatabaseOptions
            @Argument(help: "The operator's name.") var name: String
            @Option(help: "The role it carries: the operator's (default) or auditor (read-only).") var role: String?
            @Option(help: "Days it lives (1–366).") var days: Int = 90
            @Option(help: "A label to know it by.") var label: String = ""

            mutating func validate() throws {
                if let role, OperatorRole(rawValue: role) == nil { throw ValidationError("--role must be one of \(OperatorRole.names)") }
                guard (1...366).contains(days) else { throw ValidationError("--days must be from 1 to 366") }
                guard label.utf8.count <= 200 else { throw ValidationError("--label is at most 200 bytes") }
            }

            mutating func run() async throws {
                let (name, role, days, label) = (name, role.flatMap(OperatorRole.init(rawValue:)), days, label)
                let (token, text) = try await OperatorsCommand.tokens(database) { store in
                    try await store.create(
                        operatorName: name, role: role, name: label, life: .seconds(Int64(days) * 86_400), by: .shell(user: OperatorsCommand.user),
                        at: LedgerClock.system.now())
                }
                print("token \(token.id) of \(token.operatorName), \(token.role.rawValue) role, until \(token.expiresAt.rfc3339)")
                print("shown once: \(text)")
            }
        }

        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Tokens (never their text), of one operator or all.")
            @OptionGroup var database: DatabaseOptions
            @Argument(help: "Only this operator's.") var name: String?

            mutating func run() async throws {
                let name = name
                let tokens = try await OperatorsCommand.tokens(database) { try await $0.list(operatorName: name) }
                print("token_id\toperator\trole\tlabel\texpires_at\tstatus")
                for t in tokens {
                    let status = t.revokedAt == nil ? "active" : "revoked"
                    print("\(t.id)\t\(t.operatorName)\t\(t.role.rawValue)\t\(t.name)\t\(t.expiresAt.rfc3339)\t\(status)")
                }
            }
        }

        struct Revoke: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a token: it stops at once, on every instance.")
            @OptionGroup var database: DatabaseOptions
            @Argument(help: "The token's id (tok_…).") var id: String

            mutating func run() async throws {
                let id = id
                guard
                    try await OperatorsCommand.tokens(
                        database, { try await $0.revoke(id: id, by: .shell(user: OperatorsCommand.user), at: LedgerClock.system.now()) })
                else {
                    throw CommandFailure("there is no token \(id); see `ledger operators tokens list`")
                }
                print("token \(id) is revoked")
            }
        }
    }

    static func tokens<T: Sendable>(_ database: DatabaseOptions, _ body: @Sendable (OperatorTokenStore) async throws -> T) async throws -> T {
        do {
            return try await database.withLedger(logger: CommandLogging.logger("ledger.operators")) { pool, _, _ in
                try await body(OperatorTokenStore(pool: pool))
            }
        } catch let error as OperatorError {
            throw CommandFailure(error.description)
        } catch let error as PrivacyError {
            throw CommandFailure(error.description)
        }
    }

    /// Who runs the command, as the operator record names a change made from the server's shell.
    static var user: String { ProcessInfo.processInfo.environment["USER"] ?? "" }

    /// The password: standard input up to its end, without the one line ending `echo` adds.
    static func passwordFromStandardInput() throws -> String {
        var text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else { throw CommandFailure("no password on standard input") }
        return text
    }

    static func store<T: Sendable>(
        _ database: DatabaseOptions, _ masterKey: MasterKeyOptions, _ body: @Sendable (OperatorStore) async throws -> T
    ) async throws -> T {
        do {
            // The key after the database: the embedded cluster makes the data folder, with the owner it needs.
            return try await database.withLedger(logger: CommandLogging.logger("ledger.operators")) { pool, _, _ in
                try await body(OperatorStore(pool: pool, keys: try masterKey.source(database: database)))
            }
        } catch let error as OperatorError {
            throw CommandFailure(error.description)
        } catch let error as PrivacyError {
            throw CommandFailure(error.description)
        }
    }
}
