import Foundation
import PostgresClient

extension WebhookStore {
    /// Erasure (docs/erasure.md): the deliveries about `user` name the pseudonym instead, their bodies (which named
    /// the id) are replaced by a note, and those not yet sent are given up; in the erasure's transaction.
    /// The body is json_build_object's text spelled out (Citus runs no STABLE function of a column in an UPDATE); the
    /// event types and the pseudonym are the ledger's own names, which need no escaping.
    package static func forget(app appID: String, user: String, pseudonym: String, on connection: PostgresConnection) throws {
        try connection.query(
            """
            UPDATE ledger.webhook_deliveries SET finished_at = now()
            WHERE app_id = \(appID) AND app_user_id IN (\(user), \(pseudonym)) AND finished_at IS NULL
            """)
        try connection.query(
            """
            UPDATE ledger.webhook_deliveries
            SET app_user_id = \(pseudonym),
                payload = '{"type" : "' || event_type || '", "erased" : true, "app_user_id" : "' || \(pseudonym)::text || '"}',
                status = CASE WHEN status = 'pending' THEN 'given_up' ELSE status END
            WHERE app_id = \(appID) AND app_user_id IN (\(user), \(pseudonym))
            """)
    }

    /// What a delivery of an erased user reads as once their key is gone (as `forget` writes it).
    static func erasedBody(type: String, pseudonym: String?) -> String {
        struct Erased: Encodable {
            let type: String
            let erased = true
            let appUserID: String?

            enum CodingKeys: String, CodingKey {
                case type, erased
                case appUserID = "app_user_id"
            }
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: (try? encoder.encode(Erased(type: type, appUserID: pseudonym))) ?? Data(#"{"erased":true}"#.utf8), as: UTF8.self)
    }
}
