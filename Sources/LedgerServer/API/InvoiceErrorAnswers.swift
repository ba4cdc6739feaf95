import HTTPTypes
import LedgerBilling

extension APIError {
    /// An invoice operation the billing module refused, as the HTTP answer.
    init(_ error: InvoiceError) {
        switch error {
        case .unknownAccount, .unknownInvoice: self = .notFound(error.description)
        case .unknownPlan, .invalidPlan: self = .badRequest(error.description)
        case .planExists, .alreadyVoided, .adjustedLater, .planChangeForFinalizedMonth: self = APIError(.conflict, "conflict", error.description)
        // The same request succeeds once the month is over: a conflict with the clock, with a code of its own.
        case .monthNotEnded: self = APIError(.conflict, "month_not_ended", error.description)
        }
    }
}
