import HTTPTypes
import LedgerBilling

extension APIError {
    /// An invoice operation the billing module refused, as the HTTP answer.
    init(_ error: InvoiceError) {
        switch error {
        case .unknownAccount, .unknownInvoice: self = .notFound(error.description)
        case .unknownPlan, .invalidPlan: self = .badRequest(error.description)
        case .planExists, .alreadyVoided, .adjustedLater, .planChangeForFinalizedMonth: self = APIError(.conflict, "conflict", error.description)
        }
    }
}
