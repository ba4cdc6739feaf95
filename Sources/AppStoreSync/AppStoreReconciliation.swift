import UTCTime
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging

/// Finds the notifications Apple sent that the ledger does not have (Apple gave up delivering them, or the ledger was
/// down) and records them: Get Notification History from `since` to now, page by page, each `signedPayload` through
/// `LedgerRecorder.notification`, which verifies it and records it once per notification UUID.
package struct AppStoreReconciliation: Sendable {
    package static let metadataSource = "appstore.reconcile"
    /// How far back Apple keeps notification history.
    package static let historyLimit: Duration = .seconds(180 * 86_400)

    let recorder: LedgerRecorder
    let logger: Logger

    package init(recorder: LedgerRecorder, logger: Logger) {
        self.recorder = recorder
        self.logger = logger
    }

    package struct Summary: Sendable, Equatable, Encodable {
        package struct Failure: Sendable, Equatable, Encodable {
            package var index: Int
            package var code: String
            package var message: String
        }

        /// Notifications in Apple's history for the period.
        package var seen = 0
        /// Of those, the ones the ledger did not have, now recorded.
        package var missed = 0
        package var alreadyKnown = 0
        package var eventsRecorded = 0
        package var failures: [Failure] = []

        enum CodingKeys: String, CodingKey {
            case seen
            case missed
            case alreadyKnown = "already_known"
            case eventsRecorded = "events_recorded"
            case failures
        }
    }

    /// Checks `since` against Apple's 180-day limit (a minute of slack for the time the request takes is not given:
    /// Apple would refuse it).
    package static func check(since: Instant, now: Instant) throws(AppStoreSyncError) {
        guard since >= now.adding(.zero - historyLimit) else {
            throw .tooEarly(
                "--since must be within the last 180 days (Apple keeps no older notification history); the earliest is "
                    + ISO8601DateFormatter().string(from: now.adding(.seconds(60) - historyLimit).date))
        }
        guard since < now else { throw .tooEarly("--since must be in the past") }
    }

    package func run(app: AppRecord, client: AppStoreServerAPIClient, since: Instant, now: Instant, requestID: String? = nil)
        async throws(AppStoreSyncError) -> Summary
    {
        try Self.check(since: since, now: now)
        let query = NotificationHistoryQuery(startDate: since.epochMilliseconds, endDate: now.epochMilliseconds)
        let metadata = EventMetadata(source: Self.metadataSource, requestID: requestID)
        var summary = Summary()
        var token: String?
        repeat {
            let page: NotificationHistoryPage
            do {
                page = try await client.notificationHistory(query, paginationToken: token)
            } catch {
                // Without the history nothing can be reconciled: the run fails (and is retried at the next schedule).
                throw .appStore(error)
            }
            for item in page.notificationHistory {
                summary.seen += 1
                do {
                    let (_, result) = try await recorder.notification(app: app, signedPayload: item.signedPayload, metadata: metadata)
                    // A notification's events are appended together with its record (keyed by its UUID): something new
                    // means the notification itself was missing.
                    if result.recorded > 0 { summary.missed += 1 } else { summary.alreadyKnown += 1 }
                    summary.eventsRecorded += result.recorded
                } catch let RecordingError.unverifiable(error, _) {
                    summary.failures.append(.init(index: summary.seen - 1, code: error.code.rawValue, message: error.message))
                } catch {
                    summary.failures.append(.init(index: summary.seen - 1, code: "not_recorded", message: "\(error)"))
                }
            }
            guard page.hasMore, let next = page.paginationToken, next != token else { break }
            token = next
        } while true
        logger.info(
            "App Store reconciliation done",
            metadata: [
                "app": "\(app.id)", "seen": "\(summary.seen)", "missed": "\(summary.missed)", "failures": "\(summary.failures.count)"
            ])
        return summary
    }
}
