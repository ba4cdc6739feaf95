import AppStoreServerAPI
import Foundation
import LedgerDomain
import LedgerRecording
import LedgerStore
import Logging

/// Answers Apple's `CONSUMPTION_REQUEST`s with Send Consumption Information, for an app that opted in.
///
/// Each `transaction.consumption_requested` in the log without its answer event is answered from what the ledger knows:
/// `consumptionStatus` from whether it recorded the purchase consumed, `deliveryStatus` 0 (delivered), `platform` 1
/// (Apple), `customerConsented` from the app's setting, the rest from the configured defaults (0: undeclared). Then
/// `transaction.consumption_information_sent` is recorded (keyed by the request's transaction id), so it is sent once per
/// process; two instances may both send one answer before either records it (Apple keeps the latest; the event is
/// recorded once). Requests Apple no longer takes (older than 12 hours) are left unanswered.
package struct ConsumptionAnswers: Sendable {
    package static let metadataSource = "appstore.consumption"
    /// Apple takes an answer within 12 hours of its request.
    package static let answerWindow: TimeInterval = 12 * 3600

    let recorder: LedgerRecorder
    let requests: ConsumptionRequestQueries
    let clock: LedgerClock
    let logger: Logger

    package init(recorder: LedgerRecorder, requests: ConsumptionRequestQueries, clock: LedgerClock, logger: Logger) {
        self.recorder = recorder
        self.requests = requests
        self.clock = clock
        self.logger = logger
    }

    /// The body for a request about a purchase the ledger knows (`known`) and recorded consumed or not.
    package static func information(_ settings: AppStoreAPISettings.ConsumptionSettings, isSubscription: Bool, known: Bool, consumed: Bool,
                                    appAccountToken: String?) -> ConsumptionInformation {
        // A subscription is used, not consumed: the ledger has no measure of it, so it declares nothing.
        let status = !known || isSubscription ? 0 : consumed ? 3 : 1
        return ConsumptionInformation(
            customerConsented: settings.customerConsented, consumptionStatus: status, platform: 1,
            sampleContentProvided: settings.sampleContentProvided, deliveryStatus: 0, appAccountToken: appAccountToken ?? "",
            accountTenure: settings.accountTenure, playTime: settings.playTime, lifetimeDollarsRefunded: settings.lifetimeDollarsRefunded,
            lifetimeDollarsPurchased: settings.lifetimeDollarsPurchased, userStatus: settings.userStatus,
            refundPreference: settings.refundPreference)
    }

    /// Answers the app's unanswered requests; returns how many were sent.
    @discardableResult
    package func answer(app: AppRecord, client: AppStoreServerAPIClient, settings: AppStoreAPISettings.ConsumptionSettings) async throws -> Int {
        guard settings.optedIn, settings.customerConsented else { return 0 }
        var sent = 0
        for request in try await requests.unanswered(app: app.id) {
            let requested = Date(timeIntervalSince1970: Double(request.subscription.signedDate.microsecondsSinceEpoch) / 1_000_000)
            guard clock.date().timeIntervalSince(requested) < Self.answerWindow else { continue }
            let original = request.subscription.originalTransactionID
            let facts = try await recorder.consumptionFacts(app: app, originalTransactionID: original)
            let information = Self.information(settings, isSubscription: request.subscription.subscriptionGroupID != nil, known: facts.known,
                                               consumed: facts.consumed, appAccountToken: facts.appAccountToken)
            do {
                try await client.sendConsumptionInformation(transactionID: request.transactionID, information)
            } catch {
                logger.error("sending consumption information failed", metadata: [
                    "app": "\(app.id)", "transaction_id": "\(request.transactionID)", "error": "\(error)",
                ])
                continue
            }
            _ = try await recorder.consumptionInformationSent(app: app, ConsumptionInformationSent(
                originalTransactionID: original, transactionID: request.transactionID, productID: request.subscription.productID,
                environment: request.subscription.environment, requestSignedDate: request.subscription.signedDate, sentAt: clock.now(),
                consumptionStatus: information.consumptionStatus, deliveryStatus: information.deliveryStatus, platform: information.platform,
                customerConsented: information.customerConsented), metadata: EventMetadata(source: Self.metadataSource))
            sent += 1
        }
        return sent
    }
}
