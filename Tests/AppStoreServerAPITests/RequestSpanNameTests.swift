import Testing

@testable import AppStoreServerAPI

/// An App Store Server API span names its route with every id replaced: transaction ids stay out of traces.
@Suite struct RequestSpanNameTests {
    @Test(arguments: [
        ("/inApps/v1/history/2000000123456789", "/inApps/v1/history/{id}"),
        ("/inApps/v1/subscriptions/2000000123456789", "/inApps/v1/subscriptions/{id}"),
        ("/inApps/v1/notifications/history", "/inApps/v1/notifications/history"),
        ("/inApps/v1/transactions/consumption/123", "/inApps/v1/transactions/consumption/{id}"),
        ("/inApps/v1/lookup/MK5TTTVWJH", "/inApps/v1/lookup/{id}")
    ])
    func idsAreReplaced(path: String, template: String) {
        #expect(AppStoreServerAPIClient.template(path) == template)
    }
}
