import Foundation
import LedgerStore
import UTCTime

/// One row of the operator record as JSON, the same for the API's pages, its export and the console's download:
/// every field the chain covers, and the row's hash.
package struct OperatorActionJSON: Encodable, Sendable {
    var seq: Int64
    var at: String
    var operatorID: String
    var actor: String
    var role: String
    var channel: String
    var action: String
    var target: String
    var detail: String
    var sourceAddress: String
    var requestID: String
    var previousHash: String
    var hash: String

    enum CodingKeys: String, CodingKey {
        case seq, at, actor, role, channel, action, target, detail, hash
        case operatorID = "operator_id"
        case sourceAddress = "source_address"
        case requestID = "request_id"
        case previousHash = "previous_hash"
    }

    package init(_ row: OperatorAction) {
        (seq, at, operatorID, actor, role) = (row.seq, row.at.rfc3339, row.actor.operatorID, row.actor.name, row.actor.role)
        (channel, action, target, detail) = (row.actor.channel.rawValue, row.action, row.target, row.detail)
        (sourceAddress, requestID) = (row.actor.sourceAddress, row.actor.requestID)
        (previousHash, hash) = (Hex.string(row.previousHash), Hex.string(row.hash))
    }

    /// The row as one line of JSON lines (sorted keys), newline included.
    package static func line(_ row: OperatorAction) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings and integers only: encoding cannot fail.
        let data = (try? encoder.encode(OperatorActionJSON(row))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
