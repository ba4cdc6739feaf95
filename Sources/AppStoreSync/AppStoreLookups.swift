import AppStoreServerAPI
import AppStoreVerification
import LedgerRecording
import LedgerStore
import LedgerTenancy

/// The App Store Server API's read calls whose answers carry signed items, each item verified offline for the app
/// (as notifications are) before anything trusts it: Look Up Order ID, Get Refund History, the test notification.
package struct AppStoreLookups: Sendable {
    let recorder: LedgerRecorder

    package init(recorder: LedgerRecorder) { self.recorder = recorder }

    /// The transactions of an order (the id on the customer's e-mail receipt); empty when Apple says the id is invalid.
    package func order(app: AppRecord, client: AppStoreServerAPIClient, orderID: String) async throws -> [TransactionPayload] {
        let lookup = try await client.lookUpOrder(orderID: orderID)
        guard lookup.status == 0 else { return [] }
        return try await recorder.verifiedTransactions(app: app, lookup.signedTransactions ?? [])
    }

    /// Every refunded transaction of the customer who made `transactionID`, all pages.
    package func refunds(app: AppRecord, client: AppStoreServerAPIClient, transactionID: String) async throws -> [TransactionPayload] {
        var refunded: [TransactionPayload] = []
        var revision: String?
        repeat {
            let page = try await client.refundHistory(transactionID: transactionID, revision: revision)
            refunded += try await recorder.verifiedTransactions(app: app, page.signedTransactions)
            guard page.hasMore, let next = page.revision, next != revision else { break }
            revision = next
        } while true
        return refunded
    }

    /// Asks Apple to send a test notification and returns its token and, once Apple has one, the notification it sent.
    package func requestTestNotification(app: AppRecord, client: AppStoreServerAPIClient) async throws
        -> (token: String, sent: VerifiedNotification?)
    {
        let token = try await client.requestTestNotification().testNotificationToken
        let status = try await client.testNotificationStatus(token: token)
        guard let signed = status.signedPayload else { return (token, nil) }
        return (token, try await recorder.verifiedNotification(app: app, signed))
    }
}
