import AppStoreServerAPI
import AppStoreVerification
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging

/// Imports the whole App Store history of purchases into the ledger through the App Store Server API.
///
/// For each transaction id: Get Transaction History (v2) page by page, oldest revision first, until Apple says there
/// is no more; every signed transaction is verified offline and recorded through `LedgerRecorder` under the same
/// idempotency keys as notifications and uploads (`tx:<transaction id>`…), so a transaction the ledger already holds,
/// from whatever path, is never appended twice, even while notifications arrive concurrently. Then Get All
/// Subscription Statuses once per original transaction of a subscription, to record its latest renewal info.
///
/// A failure of one transaction id (unknown to Apple, a page that does not verify) is reported in the summary and the
/// others go on; Apple refusing the credentials (401 / 403) stops the run, as nothing else could succeed.
package struct AppStoreBackfill: Sendable {
    package static let metadataSource = "appstore.api"

    let recorder: LedgerRecorder
    let logger: Logger

    package init(recorder: LedgerRecorder, logger: Logger) {
        self.recorder = recorder
        self.logger = logger
    }

    /// What a backfill did.
    package struct Summary: Sendable, Equatable, Encodable {
        package struct Failure: Sendable, Equatable, Encodable {
            package var transactionID: String
            /// A stable code: `appstore_api` (Apple answered an error, see `appleErrorCode`), `appstore_unreachable`,
            /// or the verification code of a signed item that did not verify.
            package var code: String
            package var appleErrorCode: Int?
            package var message: String

            package init(transactionID: String, code: String, appleErrorCode: Int?, message: String) {
                self.transactionID = transactionID
                self.code = code
                self.appleErrorCode = appleErrorCode
                self.message = message
            }

            enum CodingKeys: String, CodingKey {
                case transactionID = "transaction_id"
                case code
                case appleErrorCode = "apple_error_code"
                case message
            }
        }

        /// Distinct purchases (original transaction ids) found.
        package var purchases = 0
        /// Signed transactions Apple returned (history pages and latest statuses).
        package var transactionsSeen = 0
        package var eventsRecorded = 0
        /// Events the ledger already held (from a notification, an upload, an earlier backfill).
        package var alreadyKnown = 0
        package var failures: [Failure] = []

        enum CodingKeys: String, CodingKey {
            case purchases
            case transactionsSeen = "transactions_seen"
            case eventsRecorded = "events_recorded"
            case alreadyKnown = "already_known"
            case failures
        }
    }

    /// Backfills every purchase of each of `transactionIDs`. `progress(done, total)` is called after each id.
    package func run(
        app: AppRecord, client: AppStoreServerAPIClient, transactionIDs: [String], requestID: String? = nil,
        progress: @Sendable (Int, Int) -> Void = { _, _ in }
    ) async throws(AppStoreSyncError) -> Summary {
        var summary = Summary()
        var purchases: Set<String> = []
        var transactions: Set<String> = []
        let metadata = EventMetadata(source: Self.metadataSource, requestID: requestID)
        for (index, id) in transactionIDs.enumerated() {
            do {
                let found = try await backfill(app: app, client: client, transactionID: id, metadata: metadata, into: &summary)
                purchases.formUnion(found.originals)
                transactions.formUnion(found.transactions)
            } catch let error as AppStoreServerAPIError {
                if case .rejected(let status, _, _) = error, status == 401 || status == 403 { throw .appStore(error) }
                summary.failures.append(.init(transactionID: id, code: Self.code(error), appleErrorCode: error.code, message: error.description))
            } catch let RecordingError.unverifiable(error, path) {
                summary.failures.append(
                    .init(
                        transactionID: id, code: error.code.rawValue, appleErrorCode: nil,
                        message: (path.map { "\($0): " } ?? "") + error.message))
            } catch {
                summary.failures.append(.init(transactionID: id, code: "not_recorded", appleErrorCode: nil, message: "\(error)"))
            }
            progress(index + 1, transactionIDs.count)
        }
        summary.purchases = purchases.count
        summary.transactionsSeen = transactions.count
        logger.info(
            "App Store backfill done",
            metadata: [
                "app": "\(app.id)", "ids": "\(transactionIDs.count)", "purchases": "\(summary.purchases)",
                "recorded": "\(summary.eventsRecorded)", "already_known": "\(summary.alreadyKnown)", "failures": "\(summary.failures.count)"
            ])
        return summary
    }

    /// One transaction id's history; returns the original transaction ids and the transaction ids it holds.
    func backfill(
        app: AppRecord, client: AppStoreServerAPIClient, transactionID: String, metadata: EventMetadata,
        into summary: inout Summary
    ) async throws -> (originals: Set<String>, transactions: Set<String>) {
        var revision: String?
        var originals: Set<String> = []
        var transactions: Set<String> = []
        var subscriptions: Set<String> = []
        repeat {
            let page = try await client.transactionHistory(transactionID: transactionID, revision: revision)
            let (result, verified) = try await recorder.fetchedTransactions(
                app: app, page.signedTransactions.map { ($0, nil) }, metadata: metadata)
            summary.eventsRecorded += result.recorded
            summary.alreadyKnown += result.alreadyKnown
            for transaction in verified {
                if let id = transaction.transactionId { transactions.insert(id) }
                guard let original = transaction.originalTransactionId ?? transaction.transactionId else { continue }
                originals.insert(original)
                if transaction.type == .autoRenewableSubscription { subscriptions.insert(original) }
            }
            guard page.hasMore, let next = page.revision, next != revision else { break }
            revision = next
        } while true
        for original in subscriptions.sorted() {
            let statuses = try await client.allSubscriptionStatuses(transactionID: original)
            let latest = statuses.data.flatMap(\.lastTransactions).filter { $0.originalTransactionId == original }
            let fetched = latest.compactMap { item in item.signedTransactionInfo.map { (transaction: $0, renewalInfo: item.signedRenewalInfo) } }
            let (result, verified) = try await recorder.fetchedTransactions(app: app, fetched, metadata: metadata)
            transactions.formUnion(verified.compactMap(\.transactionId))
            summary.eventsRecorded += result.recorded
            summary.alreadyKnown += result.alreadyKnown
        }
        return (originals, transactions)
    }

    static func code(_ error: AppStoreServerAPIError) -> String {
        switch error {
        case .rejected: "appstore_api"
        case .transport: "appstore_unreachable"
        case .malformedResponse: "appstore_malformed_response"
        }
    }
}
