import AppStoreVerification
import ArgumentParser
import Foundation

/// `ledger appstore …`: offline tools for App Store data, for support staff and tests.
public struct AppStoreCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "appstore",
        abstract: "Verify and decode App Store data offline; backfill and reconcile through the App Store Server API.",
        subcommands: [Decode.self, Sample.self, Backfill.self, Reconcile.self, AnswerConsumption.self]
    )

    public init() {}

    /// `ledger appstore decode`: verify one input and print a JSON report. Exit 0 valid, 1 invalid, 2 usage error.
    public struct Decode: AsyncParsableCommand {
        public static let configuration = CommandConfiguration(
            commandName: "decode",
            abstract: "Verify a signed transaction, renewal info, notification, app transaction or legacy receipt.",
            discussion: """
                Prints one JSON object: {"valid": bool, "kind": "...", "error": "<code>", "message": "...", "payload": {...}}.

                Roots: --root files (DER or PEM) replace the shipped Apple roots; without --root, LEDGER_APPLE_ROOTS \
                (paths separated by ':' or ',') does; the entry 'default' adds the shipped roots back.
                """
        )

        @Option(name: .customLong("root"), help: "A trusted root certificate file (DER or PEM); repeatable.")
        var roots: [String] = []

        @Option(name: .customLong("bundle-id"), help: "The app's bundle identifier.")
        var bundleId: String

        @Option(name: .customLong("app-apple-id"), help: "The app's Apple ID (checked in Production).")
        var appAppleId: Int64?

        @Option(help: "Production, Sandbox, Xcode or LocalTesting.")
        var environment: String

        @Option(help: "auto, transaction, renewal-info, notification, app-transaction or receipt.")
        var kind: String = DecodeKind.auto.rawValue

        @Argument(help: "The file to read, or - for standard input.")
        var file: String

        public init() {}

        public func run() async throws {
            guard let environment = AppStoreEnvironment(configurationName: environment) else {
                throw Self.usageError("--environment must be Production, Sandbox, Xcode or LocalTesting, not \(environment)")
            }
            guard let kind = DecodeKind(rawValue: kind), kind != .unknown else {
                throw Self.usageError("--kind must be auto, transaction, renewal-info, notification, app-transaction or receipt")
            }
            let roots: TrustRoots
            do {
                roots = try TrustRoots.resolve(paths: self.roots)
            } catch {
                throw Self.usageError("trust roots: \(error.message)")
            }
            let text = try readInput()
            let verifier = AppStoreVerifier(
                configuration: AppConfiguration(bundleId: bundleId, appAppleId: appAppleId, environment: environment),
                roots: roots
            )
            let report = await AppStoreDecoder(verifier: verifier).decode(text, kind: kind)
            FileHandle.standardOutput.write(Data((report.jsonString() + "\n").utf8))
            if !report.valid { throw ExitCode(report.exitCode) }
        }

        /// Usage errors exit with status 2 (the contract), not ArgumentParser's 64: the message goes to
        /// standard error and an `ExitCode(2)` ends the command.
        static func usageError(_ message: String) -> ExitCode {
            FileHandle.standardError.write(Data("ledger appstore decode: \(message)\n".utf8))
            return ExitCode(2)
        }

        private func readInput() throws -> String {
            let data: Data?
            if file == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                // FileHandle, not FileManager.contents: it also reads pipes such as <(…). Its non-throwing read
                // traps on errors (a directory, say), so use the throwing one.
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), isDirectory.boolValue {
                    throw Self.usageError("\(file) is a directory; give the file to decode")
                }
                data = try? FileHandle(forReadingAtPath: file).flatMap { try $0.readToEnd() ?? Data() }
            }
            guard let data else { throw Self.usageError("cannot read \(file)") }
            return String(decoding: data, as: UTF8.self)
        }
    }
}
