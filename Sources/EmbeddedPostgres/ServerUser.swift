import Foundation
import Glibc

/// Who runs the PostgreSQL processes. PostgreSQL refuses to run as root, so when the ledger runs as root the
/// cluster belongs to an unprivileged user (`postgres`, created by Debian's package) and every server program is
/// started through `runuser`.
struct ServerUser: Sendable {
    let name: String
    let uid: uid_t
    let gid: gid_t
    /// Non-nil when commands must be wrapped to run as another user.
    let runAsPrefix: [String]?

    static func current(unprivilegedName: String = "postgres") throws(EmbeddedPostgresError) -> ServerUser {
        let uid = getuid()
        guard uid == 0 else {
            let name = getpwuid(uid).map { String(cString: $0.pointee.pw_name) } ?? "\(uid)"
            return ServerUser(name: name, uid: uid, gid: getgid(), runAsPrefix: nil)
        }
        guard let entry = getpwnam(unprivilegedName) else { throw .noUnprivilegedUser(name: unprivilegedName) }
        let runuser = ["/usr/sbin/runuser", "/sbin/runuser"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/runuser"
        return ServerUser(
            name: unprivilegedName, uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid,
            runAsPrefix: [runuser, "-u", unprivilegedName, "--"])
    }

    /// The command line that runs `arguments` as this user.
    func command(_ arguments: [String]) -> [String] { (runAsPrefix ?? []) + arguments }

    /// Makes `path` belong to this user (only needed, and only possible, when running as root).
    func take(_ path: String) throws {
        guard runAsPrefix != nil else { return }
        guard chown(path, uid, gid) == 0 else {
            throw EmbeddedPostgresError.commandFailed(command: "chown \(name) \(path)", status: errno, output: String(cString: strerror(errno)))
        }
    }

    /// Whether this user can enter `path` (every ancestor must be searchable).
    func canReach(_ path: String) -> Bool {
        guard let prefix = runAsPrefix else { return true }
        return (try? ProcessRunner.run(prefix + ["/usr/bin/test", "-x", path], workingDirectory: "/").status) == 0
    }
}
