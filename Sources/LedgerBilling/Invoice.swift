import Crypto
import Foundation
import LedgerDomain
import LedgerStore
import PostgresClient
import UTCTime

/// A finalized (or voided) invoice as stored.
public struct Invoice: Sendable, Equatable {
    public var id: String
    public var accountID: String
    public var month: String
    public var year: Int
    public var number: Int
    public var status: String
    public var content: InvoiceContent
    /// The canonical JSON the hash covers, exactly as stored.
    public var contentJSON: String
    public var contentHash: [UInt8]
    /// The log snapshot the content was computed from (`xmin:xmax:in-progress…`).
    public var snapshot: String
    public var finalizedAt: Instant
    public var replaces: String?
    public var replacedBy: String?
    public var voidedAt: Instant?
    public var voidReason: String?

    /// `2026-000042`: the year and the gapless number within it.
    public var displayNumber: String {
        let digits = String(number)
        return "\(year)-" + String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    public var contentHashHex: String { Hex.string(contentHash) }

    static let columns = """
        id, account_id, month, year, number, status, content, content_hash, snapshot::text, finalized_at, replaces, replaced_by,
        voided_at, void_reason
        """

    static func decode(_ row: PostgresRow) throws -> Invoice {
        let json = try row.decode(String.self, at: 6)
        return Invoice(
            id: try row.decode(String.self, at: 0), accountID: try row.decode(String.self, at: 1),
            month: try row.decode(String.self, at: 2), year: Int(try row.decode(Int32.self, at: 3)),
            number: Int(try row.decode(Int32.self, at: 4)), status: try row.decode(String.self, at: 5),
            content: try InvoiceCanonicalJSON.decode(json), contentJSON: json,
            contentHash: try row.decode([UInt8].self, at: 7), snapshot: try row.decode(String.self, at: 8),
            finalizedAt: try row.decode(Instant.self, at: 9), replaces: try row.decode(String?.self, at: 10),
            replacedBy: try row.decode(String?.self, at: 11), voidedAt: try row.decode(Instant?.self, at: 12),
            voidReason: try row.decode(String?.self, at: 13))
    }
}

/// The one serialisation of invoice content that is hashed: JSON with sorted keys, no extra whitespace.
package enum InvoiceCanonicalJSON {
    package static func encode(_ content: InvoiceContent) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and integers cannot fail.
        return (try? String(decoding: encoder.encode(content), as: UTF8.self)) ?? "{}"
    }

    package static func decode(_ json: String) throws -> InvoiceContent {
        try JSONDecoder().decode(InvoiceContent.self, from: Data(json.utf8))
    }

    package static func hash(_ json: String) -> [UInt8] { Array(SHA256.hash(data: Array(json.utf8))) }
}

/// Why an invoice operation was refused; each says what to do instead.
public enum InvoiceError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownAccount(String)
    case unknownInvoice(String)
    case unknownPlan(String)
    case invalidPlan(String)
    case planExists(String)
    case alreadyVoided(String)
    case adjustedLater(invoice: String, by: String)
    case planChangeForFinalizedMonth(String)
    /// Finalizing (or voiding, which finalizes a replacement) a month that has not ended by the service clock.
    case monthNotEnded(CalendarMonth)

    public var description: String {
        switch self {
        case .unknownAccount(let id): "there is no account \(id)"
        case .unknownInvoice(let id): "there is no invoice \(id)"
        case .unknownPlan(let id): "there is no price plan \(id); create it first"
        case .invalidPlan(let message): "the price plan is not valid: \(message)"
        case .planExists(let id): "a plan \(id) exists already; plans never change, create one with another id"
        case .alreadyVoided(let id): "invoice \(id) is already voided; its replacement is the live one"
        case .adjustedLater(let invoice, let by):
            "invoice \(invoice)'s month was adjusted on the later invoice \(by); void that one first, or correct with an adjustment"
        case .planChangeForFinalizedMonth(let month):
            "the account already has a finalized invoice for \(month) or later; a plan can start only after the last finalized month"
        case .monthNotEnded(let month):
            "\(month) has not ended yet (UTC, by the service clock): a month is invoiced (finalized, or voided and replaced) only once it "
                + "is over, so that its invoice bills all of it; do it from \(InvoiceStore.firstDay(after: month)) on, and draft it meanwhile"
        }
    }
}
