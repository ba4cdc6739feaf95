import AppStoreSamples
import EmbeddedPostgres
import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

/// Writes `Tests/Fixtures/upgrade-006/` for `UpgradeFrom006Tests`: a populated database of schema version 6 made by
/// a `ledger` binary of that version, and the answers that version's API gave about it. Runs only when
/// `LEDGER_UPGRADE_FIXTURE_BINARY` names that binary (`scripts/make-upgrade-fixture.sh` builds it and runs this).
///
/// The history goes through the old server's HTTP API as in production: notifications signed by a test PKI the
/// server trusts (`--apple-root`), receipt uploads, a consume, a restore that transfers, external purchases, an
/// invoice finalized for a month with a price plan, and a purchase that arrives after it. Every date lies in the
/// past and every subscription either ended before today or renews until 2099, so the answers do not depend on
/// when they are read; the answers' clock is recorded anyway and the test replays them at it.
@Suite struct UpgradeFixtureGenerator {
    static let binary = ProcessInfo.processInfo.environment["LEDGER_UPGRADE_FIXTURE_BINARY"].flatMap { $0.isEmpty ? nil : $0 }

    @Test(.enabled(if: binary != nil, "set LEDGER_UPGRADE_FIXTURE_BINARY to a ledger binary of schema version 6"))
    func generateTheVersion6Fixture() async throws {
        let binary = try #require(Self.binary)
        let folder = UpgradeFixture.folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let signer = try AppStoreTestSigner()
        let databaseURL = try await TestDatabase.makeDatabase(prefix: "upgrade006", on: .faults)
        let server = try ServerProcess(
            databaseURL: databaseURL, rootFiles: try RootFiles.write(signer), adminToken: LedgerTenant.adminToken,
            launch: .byName(
                binDirectory: URL(fileURLWithPath: binary).deletingLastPathComponent().path,
                workingDirectory: NSTemporaryDirectory()))
        try await server.start()
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL)
        let tenant = try await LedgerTenant.create(client)
        let admin = ["Authorization": "Bearer \(LedgerTenant.adminToken)"]
        @discardableResult
        func send(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) async throws -> HTTPAnswer {
            let answer = try await client.send(method, path, headers: headers, body: body)
            #expect(answer.isSuccess, "\(method) \(path): \(answer.status) \(answer.text)")
            return answer
        }
        try await send(
            "PUT", "/v1/apps/\(tenant.appID)/products/yearly", headers: tenant.secret,
            body: #"{"type":"auto_renewable","subscription_group":"main","entitlements":["pro"]}"#)
        try await send(
            "PUT", "/v1/apps/\(tenant.appID)/products/web_pro", headers: tenant.secret,
            body: #"{"type":"non_consumable","entitlements":["pro"]}"#)
        try await send(
            "POST", "/v1/admin/plans", headers: admin,
            body: #"{"id":"upgrade-test","currency":"USD","tiers":[{"from":1,"to":3,"unit_price_minor":0},"#
                + #"{"from":4,"unit_price_minor":150}]}"#)
        try await send(
            "PUT", "/v1/admin/accounts/\(tenant.accountID)/plan", headers: admin,
            body: #"{"plan_id":"upgrade-test","from_month":"2026-01"}"#)

        let apple = AppleSide(signer: signer)
        func notify(_ payload: String) async throws { try await send("POST", tenant.notificationPath, body: #"{"signedPayload":"\#(payload)"}"#) }
        let users = UpgradeFixture.users
        // U1: monthly from June, renewed three times, auto-renew turned off, expired in October.
        try await notify(
            apple.subscription(
                "1001", user: users[0], product: "monthly", type: "SUBSCRIBED", subtype: "INITIAL_BUY",
                renewal: 0, purchased: "2026-06-03T10:00:00Z", expires: "2026-07-03T10:00:00Z"))
        for (renewal, (purchased, expires)) in [
            ("2026-07-03T10:00:00Z", "2026-08-03T10:00:00Z"), ("2026-08-03T10:00:00Z", "2026-09-03T10:00:00Z"),
            ("2026-09-03T10:00:00Z", "2026-10-03T10:00:00Z")
        ].enumerated() {
            try await notify(
                apple.subscription(
                    "1001", user: users[0], product: "monthly", type: "DID_RENEW", renewal: renewal + 1,
                    purchased: purchased, expires: expires))
        }
        try await notify(apple.autoRenewOff("1001", user: users[0], renewal: 3, at: "2026-09-20T08:00:00Z"))
        try await notify(
            apple.subscription(
                "1001", user: users[0], product: "monthly", type: "EXPIRED", subtype: "VOLUNTARY", renewal: 3,
                purchased: "2026-09-03T10:00:00Z", expires: "2026-10-03T10:00:00Z", signed: "2026-10-03T11:00:00Z"))
        // U2: yearly with an introductory offer, renewing until 2099.
        try await notify(
            apple.subscription(
                "2001", user: users[1], product: "yearly", type: "SUBSCRIBED", subtype: "INITIAL_BUY", renewal: 0,
                purchased: "2026-09-10T12:00:00Z", expires: "2099-09-10T12:00:00Z", offerType: 1))
        // U3: monthly bought in September and refunded a week later.
        try await notify(
            apple.subscription(
                "3001", user: users[2], product: "monthly", type: "SUBSCRIBED", subtype: "INITIAL_BUY", renewal: 0,
                purchased: "2026-09-05T09:00:00Z", expires: "2026-10-05T09:00:00Z"))
        try await notify(
            apple.subscription(
                "3001", user: users[2], product: "monthly", type: "REFUND", renewal: 0, purchased: "2026-09-05T09:00:00Z",
                expires: "2026-10-05T09:00:00Z", signed: "2026-09-12T09:00:00Z", revoked: "2026-09-12T09:00:00Z"))
        // U4: two consumables, one consumed.
        try await notify(apple.oneTime("4001", user: users[3], product: "coins", type: "Consumable", purchased: "2026-09-12T15:00:00Z"))
        try await notify(apple.oneTime("4002", user: users[3], product: "coins", type: "Consumable", purchased: "2026-09-14T15:00:00Z"))
        try await send("POST", "/v1/users/\(users[3])/purchases/4001/consume", headers: tenant.secret)
        // U5 buys lifetime; U6 restores it (the app transfers).
        try await notify(apple.oneTime("5001", user: users[4], product: "lifetime", type: "Non-Consumable", purchased: "2026-09-20T18:00:00Z"))
        try await send("POST", "/v1/users/\(users[5])/restore", headers: tenant.secret, body: #"{"original_transaction_ids":["5001"]}"#)
        // U7: a card payment, and a test-mode one that never counts.
        for (payment, environment) in [("pay_7001", "production"), ("pay_7002", "test")] {
            try await send(
                "POST", "/v1/users/\(users[6])/external-purchases", headers: tenant.secret,
                body: """
                    {"payment_id":"\(payment)","provider":"bluesnap","product_id":"web_pro","product_type":"non_consumable",
                     "price":{"amount_milliunits":19990,"currency":"EUR"},"purchased_at":"2026-09-15T10:00:00Z","environment":"\(environment)"}
                    """)
        }
        // A subscription nobody is linked to (it counts as its own paying user), renewing until 2099.
        try await notify(
            apple.subscription(
                "8001", user: nil, product: "monthly", type: "SUBSCRIBED", subtype: "INITIAL_BUY", renewal: 0,
                purchased: "2026-09-21T07:00:00Z", expires: "2099-09-21T07:00:00Z"))
        // U8: a receipt upload with a lifetime purchase.
        let receipt = try signer.receipt(
            type: "Production",
            purchases: [
                ReceiptBuilder.inAppPurchase(product: "lifetime", transactionId: "9001", purchaseDate: "2026-09-25T10:00:00Z")
            ])
        try await send("POST", "/uploadReceipt", headers: tenant.publicHeaders, body: #"{"user-id":"\#(users[7])","data":"\#(receipt)"}"#)

        // September finalized, then a September purchase arrives late: October's draft adjusts for it.
        try await LogInspection(databaseURL: databaseURL).waitForProjections()
        try await send("POST", "/v1/admin/invoices", headers: admin, body: #"{"account_id":"\#(tenant.accountID)","month":"2026-09"}"#)
        try await notify(
            apple.subscription(
                "10001", user: users[8], product: "monthly", type: "SUBSCRIBED", subtype: "INITIAL_BUY", renewal: 0,
                purchased: "2026-09-28T10:00:00Z", expires: "2026-10-28T10:00:00Z"))
        try await notify(
            apple.subscription(
                "10001", user: users[8], product: "monthly", type: "DID_RENEW", renewal: 1,
                purchased: "2026-10-28T10:00:00Z", expires: "2026-11-28T10:00:00Z"))
        try await notify(
            apple.subscription(
                "10001", user: users[8], product: "monthly", type: "EXPIRED", subtype: "VOLUNTARY", renewal: 1,
                purchased: "2026-10-28T10:00:00Z", expires: "2026-11-28T10:00:00Z", signed: "2026-11-02T10:00:00Z"))
        try await LogInspection(databaseURL: databaseURL).waitForProjections()

        // The answers, read from the old server.
        let invoices = try await send("GET", "/v1/admin/invoices?account_id=\(tenant.accountID)", headers: admin)
        let invoiceIDs = (invoices.json["invoices"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(invoiceIDs.count == 1)
        let keys = UpgradeFixture.Tenant(appID: tenant.appID, accountID: tenant.accountID, secretKey: tenant.secretKey, publicKey: tenant.publicKey)
        var requests = UpgradeFixture.requests(tenant: keys, invoices: invoiceIDs)
        let clock = Date()
        for index in requests.indices {
            let request = requests[index]
            let headers = request.headers(tenant: keys, adminToken: LedgerTenant.adminToken)
            let answer = try await client.send(request.method, request.path, headers: headers)
            #expect(answer.isSuccess, "\(request.path): \(answer.status) \(answer.text)")
            requests[index].status = answer.status
            requests[index].body = answer.text
        }
        #expect(await server.stop() == 0)

        // The fixture: the dump (plain SQL, no owners) and the answers.
        let dump = folder.appendingPathComponent("ledger-006.sql").path
        let dumped = try ProcessRunner.run([
            try PostgresInstallation.locate().program("pg_dump"), "--no-owner", "--format=plain",
            "--file=\(dump)", "--dbname=\(databaseURL)"
        ])
        #expect(dumped.status == 0, "\(dumped.output)")
        // pg_dump's `\restrict` guard lines need a psql of August 2025 or later; the fixture is ours, so they go.
        let text = try String(contentsOfFile: dump, encoding: .utf8)
        try text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }
            .joined(separator: "\n").write(toFile: dump, atomically: true, encoding: .utf8)
        let fixture = UpgradeFixture.Answers(
            generatedBy: ProcessInfo.processInfo.environment["LEDGER_UPGRADE_FIXTURE_COMMIT"] ?? "unknown", clock: clock.timeIntervalSince1970,
            tenant: keys, requests: requests)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(fixture).write(to: folder.appendingPathComponent("answers.json"))
    }
}

/// Apple's side of the fixture's history: notifications signed by the test PKI, in the Production environment.
struct AppleSide {
    let signer: AppStoreTestSigner

    static func milliseconds(_ rfc3339: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        return Int64((formatter.date(from: rfc3339)!.timeIntervalSince1970 * 1000).rounded())
    }

    func subscription(
        _ original: String, user: String?, product: String, type: String, subtype: String? = nil, renewal: Int,
        purchased: String, expires: String, signed: String? = nil, revoked: String? = nil, offerType: Int? = nil
    ) throws -> String {
        let signedAt = Self.milliseconds(signed ?? purchased) + 1000
        let transaction = AppStorePayloads.transaction(
            id: renewal == 0 ? original : "\(original)\(renewal)", original: original, product: product, purchase: "\(Self.milliseconds(purchased))",
            originalPurchase: nil, expires: Self.milliseconds(expires), reason: renewal == 0 ? "PURCHASE" : "RENEWAL", token: user,
            revocation: revoked.map(Self.milliseconds), revocationReason: revoked == nil ? nil : 0, offerType: offerType, environment: "Production",
            signed: signedAt, group: "main")
        return try signer.notification(
            type: type, subtype: subtype, uuid: UUID().uuidString.lowercased(), signed: signedAt,
            transactionJSON: transaction, environment: "Production")
    }

    func autoRenewOff(_ original: String, user: String, renewal: Int, at: String) throws -> String {
        let signedAt = Self.milliseconds(at)
        let transaction = AppStorePayloads.transaction(
            id: "\(original)\(renewal)", original: original, product: "monthly", purchase: "\(Self.milliseconds("2026-09-03T10:00:00Z"))",
            originalPurchase: nil, expires: Self.milliseconds("2026-10-03T10:00:00Z"), reason: "RENEWAL", token: user, environment: "Production",
            signed: signedAt, group: "main")
        return try signer.notification(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", signed: signedAt,
            transactionJSON: transaction,
            renewalInfoJSON: AppStorePayloads.renewalInfo(
                original: original, autoRenew: 0, signed: signedAt,
                environment: "Production"),
            environment: "Production")
    }

    func oneTime(_ id: String, user: String, product: String, type: String, purchased: String) throws -> String {
        let at = Self.milliseconds(purchased)
        let transaction = AppStorePayloads.transaction(
            id: id, original: id, product: product, type: type, purchase: "\(at)", originalPurchase: at,
            expires: nil, token: user, environment: "Production", signed: at + 1000)
        return try signer.notification(type: "ONE_TIME_CHARGE", signed: at + 1000, transactionJSON: transaction, environment: "Production")
    }
}
