import AppStoreServerAPI
import AppStoreSync
import Foundation
import LedgerDomain
import LedgerJobs
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging
import Metrics
import PostgresClient
import ServiceLifecycle
import UTCTime

/// The App Store Server API work `serve` does for each configured app: the daily reconciliation (once across
/// instances: the run is claimed on its lease row, `ReconcileRunStore`), and its last outcome in /metrics:
/// `ledger_appstore_reconcile_last_run_timestamp_seconds{app}` (when the last run started),
/// `ledger_appstore_reconcile_last_success{app}` (1 or 0) and `ledger_appstore_reconcile_last_missed{app}` (notifications
/// it found missing). Every instance publishes the gauges from the lease row, so any instance's /metrics shows them.
/// At every check it also answers the consumption requests of the apps that opted in (`ConsumptionAnswers`).
package struct AppStoreService: Service {
    let clients: AppStoreClients
    let tenancy: TenancyStore
    let runs: ReconcileRunStore
    let reconciliation: AppStoreReconciliation
    let consumption: ConsumptionAnswers
    let schedule: ReconcileSchedule
    let clock: LedgerClock
    let logger: Logger

    /// On one instance at a time ("appstore"): the reconciliation's claim keeps a run single anyway, and one
    /// instance answering consumption requests sends each answer once.
    let job: ExclusiveJob

    package init(
        api: LedgerAPI, clients: AppStoreClients, schedule: ReconcileSchedule = ReconcileSchedule(),
        jobs: ExclusiveJob.Settings = ExclusiveJob.Settings(), logger: Logger
    ) {
        self.job = ExclusiveJob(lock: ExclusiveJobLock(job: "appstore", configuration: api.pool.configuration), settings: jobs, logger: logger)
        self.clients = clients
        self.tenancy = api.tenancy
        self.runs = ReconcileRunStore(pool: api.pool)
        self.reconciliation = AppStoreReconciliation(recorder: api.recorder, logger: logger)
        self.consumption = ConsumptionAnswers(
            recorder: api.recorder, requests: ConsumptionRequestQueries(pool: api.pool),
            clock: api.configuration.clock, logger: logger)
        self.schedule = schedule
        self.clock = api.configuration.clock
        self.logger = logger
        LedgerMetrics.bootstrap()  // the gauges must reach the registry /metrics reads
    }

    package func run() async throws {
        // Graceful shutdown cancels the waits (and a run in progress: it resumes at the next check, idempotently).
        await cancelWhenGracefulShutdown {
            try? await Task.sleep(for: schedule.firstCheckDelay)
            await job.run(every: schedule.checkInterval) { await check() }
        }
    }

    /// One check of every configured app: reconciles those due (if this instance wins the claim), publishes the gauges.
    package func check() async {
        for appID in clients.configuredApps {
            do {
                try await check(appID: appID)
            } catch {
                logger.error("App Store reconciliation check failed", metadata: ["app": "\(appID)", "error": "\(error)"])
            }
            do {
                try await answerConsumptionRequests(appID: appID)
            } catch {
                logger.error("answering consumption requests failed", metadata: ["app": "\(appID)", "error": "\(error)"])
            }
        }
    }

    /// Reconciles the app if due and this call wins the claim (returning the run's summary), then publishes the gauges.
    @discardableResult
    package func check(appID: String) async throws -> AppStoreReconciliation.Summary? {
        let summary: AppStoreReconciliation.Summary?
        do {
            summary = try await reconcileIfDue(appID: appID)
        } catch {
            try? await publish(appID: appID)
            throw error
        }
        try await publish(appID: appID)
        return summary
    }

    func reconcileIfDue(appID: String) async throws -> AppStoreReconciliation.Summary? {
        let now = clock.now()
        let last = try await runs.lastRun(app: appID)
        guard schedule.isDue(lastStartedAt: last?.startedAt, lastFailed: last?.succeeded == false, now: now) else { return nil }
        let started = now
        guard
            try await runs.claim(
                app: appID, now: started, dueIfStartedBefore: schedule.dueIfStartedBefore(now: now),
                failedDueIfStartedBefore: schedule.failedDueIfStartedBefore(now: now))
        else {
            return nil  // another instance runs it
        }
        let since = schedule.periodStart(lastSuccessStartedAt: last?.lastSuccessStartedAt, now: now)
        do {
            guard let app = try await tenancy.app(id: appID) else { throw AppStoreSyncError.unknownApp(appID) }
            let summary = try await reconciliation.run(app: app, client: try clients.client(for: app), since: since, now: now)
            let failed = summary.failures.isEmpty ? nil : "\(summary.failures.count) notification(s) did not verify"
            try await runs.finish(
                app: appID, startedAt: started, at: clock.now(), succeeded: failed == nil, seen: summary.seen,
                missed: summary.missed, error: failed)
            if summary.missed > 0 {
                logger.warning("App Store reconciliation recorded missed notifications", metadata: ["app": "\(appID)", "missed": "\(summary.missed)"])
            }
            return summary
        } catch {
            try await runs.finish(app: appID, startedAt: started, at: clock.now(), succeeded: false, seen: 0, missed: 0, error: "\(error)")
            throw error
        }
    }

    /// Decides the app's unanswered consumption requests and sends the answers it may (nothing unless it opted in).
    @discardableResult
    package func answerConsumptionRequests(appID: String) async throws -> ConsumptionAnswers.Summary {
        let settings = try clients.appSettings(for: appID).consumption
        guard settings.optedIn, let app = try await tenancy.app(id: appID) else { return ConsumptionAnswers.Summary() }
        return try await consumption.answer(app: app, client: try clients.client(for: app), settings: settings)
    }

    func publish(appID: String) async throws {
        guard let run = try await runs.lastRun(app: appID) else { return }
        let app = [("app", appID)]
        Gauge(label: "ledger_appstore_reconcile_last_run_timestamp_seconds", dimensions: app)
            .record(Double(run.startedAt.microsecondsSinceEpoch) / 1_000_000)
        if let succeeded = run.succeeded {
            Gauge(label: "ledger_appstore_reconcile_last_success", dimensions: app).record(succeeded ? 1 : 0)
            Gauge(label: "ledger_appstore_reconcile_last_missed", dimensions: app).record(run.missed)
        }
    }
}
