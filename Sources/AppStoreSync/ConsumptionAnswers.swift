import AppStoreServerAPI
import Foundation
import LedgerDomain
import LedgerRecording
import LedgerStore
import LedgerTenancy
import Logging
import UTCTime

/// Answers Apple's `CONSUMPTION_REQUEST`s with Send Consumption Information (v2), for an app that opted in.
///
/// For each `transaction.consumption_requested` of the last 12 hours without its answer event, the inputs are read from
/// the log (the purchase's owner, kind, consumption and period; the owner's latest consent; the app's refund policy)
/// and `ConsumptionAnswerRules.decide` says what to do:
/// - send: `PUT /inApps/v2/transactions/consumption/{transactionId}`, then `transaction.consumption_information_sent`
///   with the body, its inputs and Apple's status (keyed by the request's transaction id, so sent once per process;
///   two instances may both send before either records it, and Apple keeps the latest). An answer Apple refuses for
///   good (a 4xx other than 401 and 429) is recorded the same way with Apple's status and code, so it is not resent;
///   anything else (transport, 5xx, a wrong key) is logged and tried again at the next pass.
/// - withhold (no consent, consent withdrawn, no user, unknown purchase): nothing is sent and
///   `transaction.consumption_answer_withheld` records why and from what, once per request and reason. The request stays
///   open, so a consent recorded within Apple's 12 hours is answered at the next pass.
package struct ConsumptionAnswers: Sendable {
    package static let metadataSource = "appstore.consumption"
    /// Apple takes an answer within 12 hours of its request.
    package static let answerWindow: Duration = .seconds(12 * 3600)

    /// What one pass did.
    package struct Summary: Sendable, Equatable {
        /// Answers Apple accepted.
        package var sent = 0
        /// Requests left unanswered, with a withheld event recorded now.
        package var withheld = 0
        /// Answers Apple refused for good (recorded with its status).
        package var refused = 0

        package init(sent: Int = 0, withheld: Int = 0, refused: Int = 0) {
            self.sent = sent
            self.withheld = withheld
            self.refused = refused
        }
    }

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

    /// Apple's body for the ledger's answer.
    package static func body(_ answer: ConsumptionAnswer) -> ConsumptionInformation {
        ConsumptionInformation(
            customerConsented: answer.customerConsented, consumptionPercentage: answer.consumptionPercentage,
            deliveryStatus: answer.deliveryStatus.rawValue, refundPreference: answer.refundPreference?.rawValue,
            sampleContentProvided: answer.sampleContentProvided)
    }

    /// Whether Apple's refusal is final: a 4xx that says the request is wrong (not the key's 401, not a rate limit, not
    /// one of Apple's "try again" codes).
    package static func isFinalRefusal(_ error: AppStoreServerAPIError) -> (status: Int, code: Int?)? {
        guard case .rejected(let status, let code, _) = error, (400..<500).contains(status), status != 401,
            !AppStoreRetryPolicy.isRetryable(error)
        else { return nil }
        return (status, code)
    }

    /// Decides every open request of the app and sends the answers it may send.
    @discardableResult
    package func answer(app: AppRecord, client: AppStoreServerAPIClient, settings: AppStoreAPISettings.ConsumptionSettings) async throws
        -> Summary
    {
        guard settings.optedIn else { return Summary() }
        var summary = Summary()
        let since = clock.now().adding(.zero - Self.answerWindow)
        for request in try await requests.unanswered(app: app.id, since: since) where request.subscription.signedDate >= since {
            let (inputs, withheldBefore) = try await recorder.consumptionInputs(
                app: app, request: request, sampleContentProvided: settings.sampleContentProvided)
            switch ConsumptionAnswerRules.decide(inputs) {
            case .withhold(let reason):
                guard !withheldBefore.contains(reason) else { continue }
                _ = try await recorder.consumptionAnswerWithheld(
                    app: app,
                    ConsumptionAnswerWithheld(
                        originalTransactionID: request.subscription.originalTransactionID, transactionID: request.transactionID,
                        productID: request.subscription.productID, environment: request.subscription.environment,
                        requestSignedDate: request.subscription.signedDate, decidedAt: clock.now(), reason: reason, inputs: inputs),
                    metadata: EventMetadata(source: Self.metadataSource))
                summary.withheld += 1
            case .send(let answer):
                let apple: (status: Int, code: Int?)
                do {
                    apple = (try await client.sendConsumptionInformation(transactionID: request.transactionID, Self.body(answer)), nil)
                } catch {
                    logger.error(
                        "sending consumption information failed",
                        metadata: [
                            "app": "\(app.id)", "transaction_id": "\(request.transactionID)", "error": "\(error)"
                        ])
                    guard let refusal = Self.isFinalRefusal(error) else { continue }
                    apple = refusal
                }
                _ = try await recorder.consumptionInformationSent(
                    app: app,
                    ConsumptionInformationSent(
                        originalTransactionID: request.subscription.originalTransactionID, transactionID: request.transactionID,
                        productID: request.subscription.productID, environment: request.subscription.environment,
                        requestSignedDate: request.subscription.signedDate, sentAt: clock.now(), answer: answer, inputs: inputs,
                        appleStatus: apple.status, appleErrorCode: apple.code), metadata: EventMetadata(source: Self.metadataSource))
                if (200..<300).contains(apple.status) { summary.sent += 1 } else { summary.refused += 1 }
            }
        }
        return summary
    }
}
