import AppStoreSamples
import AppStoreServerAPI
import AppStoreServerTestSupport
import AppStoreSync
import AppStoreVerification
import Foundation
import LedgerDomain
import LedgerPrivacy
import LedgerRecording
import LedgerServer
import LedgerStore
import LedgerTenancy
import Testing
import UTCTime

/// Apple's `CONSUMPTION_REQUEST`s of an app that opted in, answered with Send Consumption Information v2 against the fake
/// App Store server: only for users who consented, with the percentage the ledger recorded consumed and the preference of
/// the app's refund policy; every decision (sent, withheld) and its inputs in the user's history.
@Suite(.timeLimit(.minutes(10))) struct ConsumptionTests {
    static let path = "/inApps/v2/transactions/consumption/"

    /// A ledger with the app opted in, and the service that answers.
    struct Answering {
        let world: SyncWorld
        let service: AppStoreService
        let settings: String

        static func make(consumption: String = #"{"opted_in": true}"#) async throws -> Answering {
            let world = try await SyncWorld.make()
            let settings = try SettingsFile.write(world: world, consumption: consumption)
            let clients = AppStoreClients(
                settings: try AppStoreAPISettings.load(path: settings), retryPolicy: SyncWorld.retryPolicy,
                logger: world.logger)
            let api = try await world.makeAPI(.init(roots: .init(certificates: world.signer.roots)))
            return Answering(world: world, service: AppStoreService(api: api, clients: clients, logger: world.logger), settings: settings)
        }

        func pass() async throws -> ConsumptionAnswers.Summary { try await service.answerConsumptionRequests(appID: world.app.id) }

        /// Apple asks about the purchase `transactionJSON` describes, signed `signed` (epoch ms; default an hour ago).
        func request(_ transactionJSON: String, signed: Int64 = now() - 3_600_000, uuid: String = UUID().uuidString.lowercased()) async throws {
            let payload = try world.signer.notification(
                type: "CONSUMPTION_REQUEST", uuid: uuid, signed: signed, transactionJSON: transactionJSON,
                bundleID: SyncWorld.bundleID)
            _ = try await world.recorder.notification(app: world.app, signedPayload: payload, metadata: EventMetadata(source: "test"))
        }

        func consent(_ consented: Bool, user: String = SyncWorld.userA) async throws {
            _ = try await world.recorder.consumptionConsent(
                app: world.app, user: user, consented: consented, source: .app,
                metadata: EventMetadata(source: "test"))
        }

        /// The consumption answers the fake received: path → body.
        var received: [String: String] {
            Dictionary(
                world.fake.calls.filter { $0.path.contains("/transactions/consumption/") }.map { ("\($0.method) \($0.path)", $0.body) },
                uniquingKeysWith: { _, last in last })
        }

        /// The decision events of the app, by idempotency key, decoded.
        func decisions() async throws -> [String: LedgerEvent] {
            var decoded: [String: LedgerEvent] = [:]
            for (key, event) in try await world.events() where key.hasPrefix("consumption_withheld:") || key.hasPrefix("consumption_information:") {
                let version: Int32 = event.type == "transaction.consumption_information_sent" ? 2 : 1
                decoded[key] = try LedgerEvent.decode(type: event.type, schemaVersion: version, payload: event.payload)
            }
            return decoded
        }
    }

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func coins(_ id: Int) -> String { SyncWorld.oneTime(id, product: "coins", type: "Consumable", token: SyncWorld.userA, at: id - 1100) }

    /// The exact JSON Apple gets (the client writes sorted keys; absent optionals are left out).
    static func body(_ percentage: Int?, _ delivery: String, _ preference: String?) -> String {
        let percent = percentage.map { #""consumptionPercentage":\#($0),"# } ?? ""
        let refund = preference.map { #","refundPreference":"\#($0)""# } ?? ""
        return #"{\#(percent)"customerConsented":true,"deliveryStatus":"\#(delivery)"\#(refund),"sampleContentProvided":false}"#
    }

    @Test func eachBranchOfTheDefaultPolicySendsApplesV2Body() async throws {
        let answering = try await Answering.make()
        let world = answering.world
        // Customer A's coins 1102 (then consumed) and 1103, and a monthly-like subscription 3000 a third through its period
        // when Apple asks.
        _ = try await world.backfill.run(app: world.app, client: try world.client(), transactionIDs: ["1102", "1103"])
        _ = try await world.recorder.consume(
            app: world.app, originalTransactionID: "1102", by: SyncWorld.userA,
            metadata: EventMetadata(source: "test"))
        let asked = Self.now() - 3_600_000
        let start = asked - 10 * SyncWorld.day
        let subscription = AppStorePayloads.transaction(
            id: "3000", original: "3000", purchase: "\(start)", originalPurchase: start, expires: start + 30 * SyncWorld.day,
            token: SyncWorld.userA, signed: start + 1000, bundleID: SyncWorld.bundleID)
        _ = try await world.recorder.notification(
            app: world.app,
            signedPayload: try world.signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: start + 2000, transactionJSON: subscription, bundleID: SyncWorld.bundleID),
            metadata: EventMetadata(source: "test"))
        try await answering.consent(true)
        try await answering.request(Self.coins(1102), signed: asked)
        try await answering.request(subscription, signed: asked)

        #expect(try await answering.pass() == ConsumptionAnswers.Summary(sent: 2))
        #expect(
            answering.received == [
                "PUT \(Self.path)1102": Self.body(100_000, "DELIVERED", "DECLINE"),  // fully consumed and delivered
                "PUT \(Self.path)3000": Self.body(33_333, "DELIVERED", "GRANT_PRORATED")  // a third of the period used
            ])
        #expect(world.fake.calls.allSatisfy { !$0.path.hasPrefix("/inApps/v1/transactions/consumption") })
        #expect(try await answering.pass() == ConsumptionAnswers.Summary())  // answered once

        // What was sent, from what, and Apple's status, in the log.
        let decisions = try await answering.decisions()
        guard case .consumptionInformationSent(let sent)? = decisions["consumption_information:3000"] else {
            Issue.record("no answer recorded for 3000: \(decisions.keys.sorted())")
            return
        }
        #expect(sent.appleStatus == 202 && sent.answer?.refundPreference == .grantProrated && sent.answer?.consumptionPercentage == 33_333)
        // (Read revealed: the log names the owner by pseudonym.)
        #expect(sent.inputs?.appUserID == SyncWorld.userA && sent.inputs?.productType == .autoRenewable)
        #expect(sent.inputs?.periodStart == Instant(epochMilliseconds: start) && sent.inputs?.requestedAt == Instant(epochMilliseconds: asked))
        #expect(sent.inputs?.consent?.consented == true && sent.inputs?.refundPolicy == .byConsumption)
        #expect(try await world.events()["consumption_information:1102"]?.source == ConsumptionAnswers.metadataSource)

        // Undelivered (1103 was never consumed), from the command line: granted in full.
        try await answering.request(Self.coins(1103))
        let roots = try SettingsFile.roots(world.signer).flatMap { ["--root", $0] }
        let command =
            ["appstore", "answer-consumption", "--database-url", world.url, "--app", world.app.id, "--master-key", SyncWorld.masterKeyFile] + roots
        #expect(try await ledger(command + ["--config", answering.settings]) == 0)
        #expect(answering.received["PUT \(Self.path)1103"] == Self.body(0, "UNDELIVERED_OTHER", "GRANT_FULL"))
        #expect(try await ledger(command + ["--config", try SettingsFile.write(world: world)]) == 2)  // not opted in
        #expect(answering.received.count == 3)

        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }

    @Test func theOtherPoliciesStateTheirPreferenceAndAppleRefusalsAreRecorded() async throws {
        let answering = try await Answering.make(consumption: #"{"opted_in": true, "sample_content_provided": true}"#)
        let world = answering.world
        _ = try await world.backfill.run(app: world.app, client: try world.client(), transactionIDs: ["1100", "1101", "1104", "1102"])
        for id in ["1100", "1101"] {
            _ = try await world.recorder.consume(
                app: world.app, originalTransactionID: id, by: SyncWorld.userA,
                metadata: EventMetadata(source: "test"))
        }
        try await answering.consent(true)
        let cases: [(RefundPolicy, id: Int, expected: String)] = [
            (
                .alwaysGrant, 1100,
                #"{"consumptionPercentage":100000,"customerConsented":true,"deliveryStatus":"DELIVERED","#
                    + #""refundPreference":"GRANT_FULL","sampleContentProvided":true}"#
            ),
            (
                .noPreference, 1101,
                #"{"consumptionPercentage":100000,"customerConsented":true,"deliveryStatus":"DELIVERED","#
                    + #""sampleContentProvided":true}"#
            ),
            (
                .alwaysDecline, 1104,
                #"{"consumptionPercentage":0,"customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","#
                    + #""refundPreference":"DECLINE","sampleContentProvided":true}"#
            )
        ]
        for (policy, id, expected) in cases {
            #expect(try await world.tenancy.setRefundPolicy(app: world.app.id, policy)?.refundPolicy == policy)
            try await answering.request(Self.coins(id))
            #expect(try await answering.pass() == ConsumptionAnswers.Summary(sent: 1), "\(policy)")
            #expect(answering.received["PUT \(Self.path)\(id)"] == expected, "\(policy)")
        }

        // Apple refuses an answer for good (a transaction it does not know): recorded with its status, not sent again.
        world.fake.refuseConsumptionAnswers(transactionID: "1102")
        try await answering.request(Self.coins(1102))
        #expect(try await answering.pass() == ConsumptionAnswers.Summary(refused: 1))
        #expect(try await answering.pass() == ConsumptionAnswers.Summary())
        guard case .consumptionInformationSent(let refused)? = try await answering.decisions()["consumption_information:1102"] else {
            Issue.record("the refusal was not recorded")
            return
        }
        #expect(refused.appleStatus == 404 && refused.appleErrorCode == 4_040_010 && refused.inputs?.refundPolicy == .alwaysDecline)
        #expect(world.fake.calls.filter { $0.path == "\(Self.path)1102" }.count == 1)
        await world.close()
    }

    @Test func withoutConsentAppleReceivesNothingAndTheUsersHistorySaysWhy() async throws {
        let answering = try await Answering.make()
        let world = answering.world
        // 1102 belongs to customer A (its token); 2000 to customer B, whom no token names; 9999 the ledger never recorded.
        _ = try await world.backfill.run(app: world.app, client: try world.client(), transactionIDs: ["1102", "2000"])
        try await answering.request(Self.coins(1102))
        try await answering.request(SyncWorld.oneTime(2000, product: "lifetime", type: "Non-Consumable", token: nil, at: 2))
        try await answering.request(SyncWorld.oneTime(9999, product: "coins", type: "Consumable", token: SyncWorld.userA, at: 1))

        #expect(try await answering.pass() == ConsumptionAnswers.Summary(withheld: 3))
        #expect(try await answering.pass() == ConsumptionAnswers.Summary())  // each reason once per request
        var decisions = try await answering.decisions()
        #expect(
            decisions.keys.sorted() == [
                "consumption_withheld:1102:no_consent_recorded", "consumption_withheld:2000:no_user",
                "consumption_withheld:9999:unknown_purchase"
            ])
        guard case .consumptionAnswerWithheld(let withheld)? = decisions["consumption_withheld:1102:no_consent_recorded"] else {
            Issue.record("no withheld event for 1102")
            return
        }
        #expect(withheld.inputs.appUserID == SyncWorld.userA && withheld.inputs.consent == nil && withheld.inputs.productType == .consumable)

        // Consent given, then withdrawn before the next pass: still nothing sent, and the new reason recorded.
        try await answering.consent(true)
        try await answering.consent(false)
        #expect(try await answering.pass() == ConsumptionAnswers.Summary(withheld: 1))
        decisions = try await answering.decisions()
        guard case .consumptionAnswerWithheld(let withdrawn)? = decisions["consumption_withheld:1102:consent_withdrawn"] else {
            Issue.record("no withdrawn event: \(decisions.keys.sorted())")
            return
        }
        #expect(withdrawn.inputs.consent?.consented == false)
        #expect(answering.received.isEmpty && world.fake.consumptionAnswers.isEmpty)

        // Consent again within Apple's 12 hours: the open request is answered at the next pass.
        try await answering.consent(true)
        #expect(try await answering.pass() == ConsumptionAnswers.Summary(sent: 1))
        #expect(answering.received == ["PUT \(Self.path)1102": Self.body(0, "UNDELIVERED_OTHER", "GRANT_FULL")])

        // The user's history: the requests (9999's token names customer A too), each decision, and the consents, in order.
        try await world.project()
        let pseudonymA = try #require(try await world.recorder.identities.find(app: world.app.id, user: SyncWorld.userA))
        let history = try await UserQueries(pool: world.pool).timeline(app: world.app.id, pseudonym: pseudonymA, after: 0, limit: 1000)
            .filter { $0.type.contains("consumption") }.map { "\($0.streamID) \($0.type)" }
        let consent = "user:\(pseudonymA) user.consumption_consent_recorded"
        #expect(
            history == [
                "otx:1102 transaction.consumption_requested", "otx:9999 transaction.consumption_requested",
                "otx:1102 transaction.consumption_answer_withheld", "otx:9999 transaction.consumption_answer_withheld", consent, consent,
                "otx:1102 transaction.consumption_answer_withheld", consent, "otx:1102 transaction.consumption_information_sent"
            ])

        // A request older than Apple's 12 hours is left alone.
        try await answering.request(Self.coins(1104), signed: Self.now() - 13 * 3_600_000)
        #expect(try await answering.pass() == ConsumptionAnswers.Summary())
        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }

    @Test func theBodyIsApplesV2ConsumptionRequest() throws {
        let answer = ConsumptionAnswer(
            consumptionPercentage: nil, deliveryStatus: .undeliveredServerOutage, refundPreference: nil,
            sampleContentProvided: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(ConsumptionAnswers.body(answer)), as: UTF8.self)
        #expect(json == #"{"customerConsented":true,"deliveryStatus":"UNDELIVERED_SERVER_OUTAGE","sampleContentProvided":true}"#)
        // Only a 4xx that says the answer is wrong is final; a wrong key, a rate limit or Apple's "try again" is retried.
        #expect(ConsumptionAnswers.isFinalRefusal(.rejected(status: 400, errorCode: 4_000_000, errorMessage: nil))?.status == 400)
        for transient: AppStoreServerAPIError in [
            .rejected(status: 401, errorCode: nil, errorMessage: nil),
            .rejected(status: 429, errorCode: 4_290_000, errorMessage: nil),
            .rejected(status: 404, errorCode: 4_040_002, errorMessage: nil),
            .rejected(status: 503, errorCode: nil, errorMessage: nil), .transport("reset")
        ] {
            #expect(ConsumptionAnswers.isFinalRefusal(transient) == nil, "\(transient)")
        }
    }
}
