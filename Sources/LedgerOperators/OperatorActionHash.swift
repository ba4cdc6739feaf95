import Crypto
import LedgerStore
import UTCTime

/// The operator record's chain encoding, recomputed outside the database; byte-for-byte `ledger.operator_action_hash`
/// (schema/023_operator_record.sql): SHA-256 over the previous hash, the sequence number, the time in epoch
/// microseconds, then each text field length-prefixed.
package enum OperatorActionHash {
    package static let genesis = [UInt8](repeating: 0, count: 32)

    package static func compute(previousHash: [UInt8], _ row: OperatorAction) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: previousHash)
        HashEncoding.integer(row.seq, into: &hasher)
        HashEncoding.integer(row.at.microsecondsSinceEpoch, into: &hasher)
        for field in [
            row.actor.operatorID, row.actor.name, row.actor.role, row.actor.channel.rawValue, row.action, row.target,
            row.detail, row.actor.sourceAddress, row.actor.requestID
        ] {
            HashEncoding.text(field, into: &hasher)
        }
        return Array(hasher.finalize())
    }
}
