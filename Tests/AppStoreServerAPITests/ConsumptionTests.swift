import AppStoreSamples
import AppStoreServerAPI
import AppStoreServerTestSupport
import AppStoreSync
import AppStoreVerification
import Foundation
import LedgerDomain
import LedgerRecording
import LedgerServer
import LedgerStore
import Testing

/// A `CONSUMPTION_REQUEST` of an app that opted in is answered once, with what the ledger knows, and recorded.
@Suite(.timeLimit(.minutes(5))) struct ConsumptionTests {
    @Test func aConsumptionRequestIsAnsweredOnceWithTheLedgersKnowledge() async throws {
        let world = try await SyncWorld.make()
        // The coins 1102 were bought (by customer A, whose token names the user) and consumed.
        _ = try await world.backfill.run(app: world.app, client: try world.client(), transactionIDs: ["1102"])
        _ = try await world.recorder.consume(app: world.app, originalTransactionID: "1102", by: SyncWorld.userA,
                                             metadata: EventMetadata(source: "test"))
        let request = try world.signer.notification(
            type: "CONSUMPTION_REQUEST", uuid: "20000000-0000-4000-8000-000000000001",
            signed: Int64((Date().timeIntervalSince1970 - 3600) * 1000),
            transactionJSON: SyncWorld.oneTime(1102, product: "coins", type: "Consumable", token: SyncWorld.userA, at: 6),
            bundleID: SyncWorld.bundleID)
        _ = try await world.recorder.notification(app: world.app, signedPayload: request, metadata: EventMetadata(source: "test"))

        let optedIn = try SettingsFile.write(world: world, consumption: #"{"opted_in": true, "play_time": 2, "user_status": 1}"#)
        let clients = AppStoreClients(settings: try AppStoreAPISettings.load(path: optedIn), retryPolicy: SyncWorld.retryPolicy, logger: world.logger)
        let api = try await LedgerAPI.make(pool: world.pool, configuration: .init(roots: .init(certificates: world.signer.roots)),
                                           logger: world.logger)
        let service = AppStoreService(api: api, clients: clients, logger: world.logger)
        #expect(try await service.answerConsumptionRequests(appID: world.app.id) == 1)
        #expect(try await service.answerConsumptionRequests(appID: world.app.id) == 0)

        let answers = world.fake.consumptionAnswers
        #expect(answers.count == 1 && answers.first?.transactionID == "1102")
        let body = try #require(try JSONSerialization.jsonObject(with: Data((answers.first?.body ?? "").utf8)) as? [String: Any])
        #expect(body["customerConsented"] as? Bool == true && body["consumptionStatus"] as? Int == 3 && body["deliveryStatus"] as? Int == 0)
        #expect(body["platform"] as? Int == 1 && body["playTime"] as? Int == 2 && body["userStatus"] as? Int == 1)
        #expect(body["appAccountToken"] as? String == SyncWorld.userA && body["refundPreference"] as? Int == 0)
        let sent = try await world.events().filter { $0.value.type == "transaction.consumption_information_sent" }
        #expect(sent.keys.sorted() == ["consumption_information:1102"] && sent.first?.value.source == "appstore.consumption")

        // The same from the command line, for a second request.
        let second = try world.signer.notification(
            type: "CONSUMPTION_REQUEST", uuid: "20000000-0000-4000-8000-000000000002",
            signed: Int64((Date().timeIntervalSince1970 - 1800) * 1000),
            transactionJSON: SyncWorld.oneTime(1103, product: "coins", type: "Consumable", token: SyncWorld.userA, at: 9),
            bundleID: SyncWorld.bundleID)
        _ = try await world.recorder.notification(app: world.app, signedPayload: second, metadata: EventMetadata(source: "test"))
        let roots = try SettingsFile.roots(world.signer).flatMap { ["--root", $0] }
        let command = ["appstore", "answer-consumption", "--database-url", world.url, "--app", world.app.id] + roots
        #expect(try await ledger(command + ["--config", optedIn]) == 0)
        #expect(world.fake.consumptionAnswers.map(\.transactionID) == ["1102", "1103"])
        #expect(world.fake.consumptionAnswers.last?.body.contains(#""consumptionStatus":1"#) == true)  // 1103 was not consumed
        #expect(try await ledger(command + ["--config", try SettingsFile.write(world: world)]) == 2)  // not opted in

        // An app that did not opt in sends nothing.
        let notOptedIn = AppStoreClients(settings: try AppStoreAPISettings.load(path: try SettingsFile.write(world: world)), logger: world.logger)
        #expect(try await AppStoreService(api: api, clients: notOptedIn, logger: world.logger).answerConsumptionRequests(appID: world.app.id) == 0)

        let checks = try await world.checkLogAndReadModels()
        #expect(checks.replay == 0 && checks.verify == 0)
        await world.close()
    }

    @Test func theAnswerDeclaresOnlyWhatTheLedgerKnows() {
        let settings = AppStoreAPISettings.ConsumptionSettings(optedIn: true, accountTenure: 3)
        let consumed = ConsumptionAnswers.information(settings, isSubscription: false, known: true, consumed: true, appAccountToken: nil)
        #expect(consumed.consumptionStatus == 3 && consumed.appAccountToken == "" && consumed.accountTenure == 3 && consumed.platform == 1)
        func status(subscription: Bool, known: Bool) -> Int {
            ConsumptionAnswers.information(settings, isSubscription: subscription, known: known, consumed: false, appAccountToken: nil)
                .consumptionStatus
        }
        #expect(status(subscription: false, known: true) == 1)
        #expect(status(subscription: false, known: false) == 0)
        #expect(status(subscription: true, known: true) == 0)
    }
}
