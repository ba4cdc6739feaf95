/// Why the private PostgreSQL cluster could not be created, started or stopped; each says what to do.
public enum EmbeddedPostgresError: Error, Sendable, CustomStringConvertible {
    case binariesNotFound(searched: [String])
    case noUnprivilegedUser(name: String)
    case dataDirectoryNotReachable(path: String, user: String)
    case commandFailed(command: String, status: Int32, output: String)
    case corruptDataDirectory(path: String, reason: String)

    public var description: String {
        switch self {
        case .binariesNotFound(let searched):
            "PostgreSQL server programs (initdb, pg_ctl) were not found (looked in: \(searched.joined(separator: ", "))). "
                + "Install them with `apt-get install postgresql`, set LEDGER_PG_BINDIR to their folder, or set DATABASE_URL to use an existing "
                + "server."
        case .noUnprivilegedUser(let name):
            "PostgreSQL refuses to run as root and there is no '\(name)' user to run it as. "
                + "Install the postgresql package (it creates that user) or run the ledger as a normal user."
        case .dataDirectoryNotReachable(let path, let user):
            "PostgreSQL runs as user '\(user)', which cannot reach \(path). "
                + "Choose a data folder that user can reach, e.g. --data-dir /var/lib/subscription-ledger (or LEDGER_DATA_DIR)."
        case .commandFailed(let command, let status, let output):
            "`\(command)` failed with status \(status): \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
        case .corruptDataDirectory(let path, let reason):
            "the data folder \(path) cannot be used: \(reason). Move it away to start over with an empty ledger."
        }
    }
}

import Foundation
