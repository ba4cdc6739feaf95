import Logging
import ServiceLifecycle

/// Says at info that a graceful shutdown has begun. It is the last service of the outermost group, so it is the
/// first one told: the line comes at once, before the server drains the requests in flight.
struct ShutdownNotice: Service {
    let logger: Logger

    func run() async throws {
        // Returns when the shutdown begins; a cancelled group (no graceful shutdown) logs nothing.
        guard (try? await gracefulShutdown()) != nil else { return }
        logger.info("shutting down: finishing the requests in flight and closing live streams")
    }
}

/// A background service that says at info when it is told to stop and when it has stopped, so a shutdown that takes
/// seconds shows which step it is in.
struct LoggedService: Service {
    let name: String
    let service: any Service
    let logger: Logger

    func run() async throws {
        try await withGracefulShutdownHandler {
            try await service.run()
        } onGracefulShutdown: {
            logger.info("stopping \(name)")
        }
        logger.info("\(name) stopped")
    }

    /// `ProjectionService` → "projection service".
    static func name(of service: any Service) -> String {
        var words: [String] = []
        for character in String(describing: type(of: service)) {
            if character.isUppercase || words.isEmpty { words.append("") }
            words[words.count - 1].append(character.lowercased())
        }
        return words.joined(separator: " ")
    }
}
