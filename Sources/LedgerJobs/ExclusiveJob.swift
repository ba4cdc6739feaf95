import Logging
import Metrics

/// A periodic job that runs on one instance at a time (`ExclusiveJobLock`): the holder runs it every `interval`;
/// the others try to take the lock every `retry`, so the job moves to another instance within `retry` of its
/// holder's death. `/metrics` shows `ledger_job_leader{job}`: 1 on the instance that holds the job, 0 elsewhere.
package struct ExclusiveJob: Sendable {
    package struct Settings: Sendable {
        /// How often an instance without the job tries to take it (`LEDGER_JOB_RETRY_SECONDS`).
        package var retry: Duration
        package init(retry: Duration = .seconds(10)) { self.retry = retry }
    }

    let lock: ExclusiveJobLock
    let settings: Settings
    let logger: Logger

    package init(lock: ExclusiveJobLock, settings: Settings, logger: Logger) {
        self.lock = lock
        self.settings = settings
        self.logger = logger
    }

    /// Until cancelled: `work` every `interval` while this instance holds the job. Gives the job up on return.
    package func run(every interval: Duration, _ work: @Sendable () async -> Void) async {
        let gauge = Gauge(label: "ledger_job_leader", dimensions: [("job", lock.job)])
        var leading = false
        while !Task.isCancelled {
            let holds = await lock.holdOrTake()
            if holds != leading {
                logger.info(holds ? "took the job" : "the job is held by another instance", metadata: ["job": "\(lock.job)"])
                leading = holds
            }
            gauge.record(holds ? 1 : 0)
            if holds { await work() }
            try? await Task.sleep(for: holds ? interval : settings.retry)
        }
        gauge.record(0)
        await lock.release()
    }
}
