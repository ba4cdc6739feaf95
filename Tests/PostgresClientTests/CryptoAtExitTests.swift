import PostgresTestSupport
import Testing

@testable import PostgresClient

/// OpenSSL (libpq's, for SCRAM and TLS) is told before the first connect to leave its state alone at exit, so that a
/// connection closed on another thread while a command exits does not call into freed memory (`CryptoAtExit`).
@Suite struct CryptoAtExitTests {
    @Test func aConnectionFirstAsksOpenSSLToKeepItsStateUntilExit() async throws {
        let pool = PostgresPool(configuration: PostgresConfiguration(connectionString: try await TestDatabase.makeDatabase()), size: 1)
        try await pool.withConnection { connection in _ = try connection.query("SELECT 1") }
        await pool.shutdown()
        // libpq is linked against OpenSSL on every platform this builds for: the symbol is found and the call succeeds.
        #expect(CryptoAtExit.isKept)
    }
}
