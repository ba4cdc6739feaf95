import Crypto
import Foundation
import LedgerJobs
import LedgerOperators
import LedgerStore
import Logging
import Metrics
import PostgresClient
import ServiceLifecycle

/// Signs a digest of every app's log (and one of the operator record) at start and then every `interval`, until graceful shutdown, on one instance
/// at a time (`ExclusiveJob` "digests"): instances sharing a database do not sign the same digests over and over.
package struct DigestService: Service {
    let pool: PostgresPool
    let key: Curve25519.Signing.PrivateKey
    let interval: Duration
    let job: ExclusiveJob
    let logger: Logger

    package init(
        pool: PostgresPool, key: Curve25519.Signing.PrivateKey, interval: Duration,
        jobs: ExclusiveJob.Settings = ExclusiveJob.Settings(), logger: Logger
    ) {
        self.pool = pool
        self.key = key
        self.interval = interval
        LedgerMetrics.bootstrap()  // the job's gauge must reach the registry /metrics reads
        self.job = ExclusiveJob(lock: ExclusiveJobLock(job: "digests", configuration: pool.configuration), settings: jobs, logger: logger)
        self.logger = logger
    }

    package func run() async throws {
        // Every instance says when the newest digest was signed, whoever signed it (the alert takes the newest of all).
        if let newest = try? await pool.query("SELECT extract(epoch FROM max(created_at))::bigint FROM ledger.chain_digests")
            .first?.decode(Int64?.self, at: 0)
        {
            Self.signed(at: Double(newest))
        }
        // Graceful shutdown cancels the wait; that is the normal end, not an error.
        await cancelWhenGracefulShutdown {
            await job.run(every: interval) { await digestOnce() }
        }
    }

    /// `ledger_digest_last_signed_timestamp_seconds`: on-call's "are digests still being signed?".
    static func signed(at seconds: Double) {
        Gauge(label: "ledger_digest_last_signed_timestamp_seconds").record(seconds)
    }

    func digestOnce() async {
        let key = key
        do {
            let digests = try await pool.withConnection { connection in
                let digests = try ChainDigester().digest(on: connection, key: key)
                try OperatorActionVerifier().digest(on: connection, key: key)
                return digests
            }
            logger.info("signed log digests", metadata: ["apps": "\(digests.count)"])
            Self.signed(at: Date().timeIntervalSince1970)
        } catch {
            // A missed digest only delays the next; the service keeps serving.
            logger.error("signing log digests failed", metadata: ["error": "\(error)"])
        }
    }
}
