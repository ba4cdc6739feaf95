import HTTPTypes
import LedgerServerTestSupport
import Testing

@Suite struct AdminRoutesTests {
    @Test func operatorCreatesAccountsAppsAndKeys() async throws {
        try await APIHarness.make().test { api in
            let account = try await api.send(.post, "/v1/admin/accounts", headers: APIClient.admin, json: #"{"name":"Acme"}"#)
            #expect(account.status == .created)
            let accountID = try #require(account.string("id"))
            #expect(accountID.hasPrefix("acct_"))
            let app = try await api.send(
                .post, "/v1/admin/apps", headers: APIClient.admin,
                json: """
                    {"name":"Acme Pro","account_id":"\(accountID)","bundle_id":"com.acme.pro","transfer_policy":"keep_and_refuse","allow_xcode":true}
                    """)
            #expect(app.status == .created)
            let appID = try #require(app.string("id"))
            #expect(app.string("transfer_policy") == "keep_and_refuse")
            #expect(app.json["allow_xcode"] as? Bool == true)
            #expect(app.json.keys.contains("apple_app_id"))
            #expect(app.string("notification_url") == "/v1/apps/\(appID)/notifications")

            let fetched = try await api.send(.get, "/v1/admin/accounts/\(accountID)", headers: APIClient.admin)
            #expect(fetched.array("apps").map { $0["id"] as? String } == [appID])
            #expect(try await api.send(.get, "/v1/admin/apps/\(appID)", headers: APIClient.admin).string("bundle_id") == "com.acme.pro")

            let key = try await api.send(
                .post, "/v1/admin/apps/\(appID)/keys", headers: APIClient.admin,
                json: #"{"kind":"secret","name":"backend"}"#)
            #expect(key.status == .created)
            let secret = try #require(key.string("key"))
            #expect(secret.hasPrefix("sk_"))
            // Listed without the key itself: it is shown once.
            let listed = try await api.send(.get, "/v1/admin/apps/\(appID)/keys", headers: APIClient.admin)
            #expect(listed.array("keys").count == 1)
            #expect(listed.array("keys").first?["key"] == nil)
            #expect(!listed.text.contains(secret))
            // The key works until it is revoked, then never again.
            #expect(try await api.send(.get, "/v1/apps/\(appID)/products", headers: APIClient.bearer(secret)).status == .ok)
            // Spaces and tabs around the key are HTTP's optional whitespace, not part of it; a blank key is none.
            #expect(try await api.send(.get, "/v1/apps/\(appID)/products", headers: APIClient.bearer(" \t\(secret)\t ")).status == .ok)
            #expect(try await api.send(.get, "/v1/apps/\(appID)/products", headers: APIClient.bearer("\t \t")).status == .unauthorized)
            let keyID = try #require(key.string("id"))
            let revoked = try await api.send(.delete, "/v1/admin/apps/\(appID)/keys/\(keyID)", headers: APIClient.admin)
            #expect(revoked.status == .ok)
            #expect(revoked.string("revoked_at") != nil)
            let again = try await api.send(.delete, "/v1/admin/apps/\(appID)/keys/\(keyID)", headers: APIClient.admin)
            #expect(again.string("revoked_at") == revoked.string("revoked_at"))
            let refused = try await api.send(.get, "/v1/apps/\(appID)/products", headers: APIClient.bearer(secret))
            #expect(refused.status == .unauthorized)
            #expect(refused.errorCode == "unauthorized")
        }
    }

    @Test func everyAdminEndpointRefusesMissingAndWrongCredentials() async throws {
        try await APIHarness.make().test { api in
            let tenant = try await api.tenant()
            let endpoints: [(HTTPRequest.Method, String, String?)] = [
                (.post, "/v1/admin/accounts", #"{"name":"x"}"#),
                (.get, "/v1/admin/accounts/\(tenant.accountID)", nil),
                (.post, "/v1/admin/apps", #"{"name":"x","account_id":"\#(tenant.accountID)","bundle_id":"b"}"#),
                (.get, "/v1/admin/apps/\(tenant.appID)", nil),
                (.post, "/v1/admin/apps/\(tenant.appID)/keys", #"{"kind":"public"}"#),
                (.get, "/v1/admin/apps/\(tenant.appID)/keys", nil),
                (.delete, "/v1/admin/apps/\(tenant.appID)/keys/key_x", nil)
            ]
            for (method, uri, body) in endpoints {
                for headers in [[:], APIClient.bearer("wrong"), tenant.secret, tenant.publicHeaders] as [HTTPFields] {
                    let response = try await api.send(method, uri, headers: headers, json: body)
                    #expect(response.status == .unauthorized, "\(method) \(uri)")
                    #expect(response.errorCode == "unauthorized")
                    #expect(response.errorMessage?.isEmpty == false)
                }
            }
        }
    }

    @Test func badInputIsA4xxThatSaysWhatToFix() async throws {
        try await APIHarness.make().test { api in
            let tenant = try await api.tenant()
            let cases: [(String, String, HTTPResponse.Status, String, String)] = [
                ("/v1/admin/accounts", #"{"name":""}"#, .badRequest, "invalid_request", "name"),
                ("/v1/admin/accounts", #"{"name":42}"#, .badRequest, "invalid_json", "`name` must be a string"),
                ("/v1/admin/accounts", #"{"nam"#, .badRequest, "invalid_json", "not valid JSON"),
                ("/v1/admin/accounts", #"{}"#, .badRequest, "invalid_json", "`name` is required"),
                ("/v1/admin/apps", #"{"name":"a","account_id":"acct_nope","bundle_id":"b"}"#, .badRequest, "invalid_request", "no account"),
                (
                    "/v1/admin/apps", #"{"name":"a","account_id":"\#(tenant.accountID)","bundle_id":"b","transfer_policy":"steal"}"#,
                    .badRequest, "invalid_request", "transfer_policy"
                ),
                (
                    "/v1/admin/apps", #"{"name":"a","account_id":"\#(tenant.accountID)","bundle_id":"b","apple_app_id":-1}"#,
                    .badRequest, "invalid_request", "apple_app_id"
                ),
                ("/v1/admin/apps/\(tenant.appID)/keys", #"{"kind":"root"}"#, .badRequest, "invalid_request", "kind"),
                ("/v1/admin/apps/app_nope/keys", #"{"kind":"public"}"#, .notFound, "not_found", "app_nope"),
                ("/v1/admin/accounts", "'; DROP TABLE ledger.events; --", .badRequest, "invalid_json", "JSON")
            ]
            for (uri, body, status, code, hint) in cases {
                let response = try await api.send(.post, uri, headers: APIClient.admin, json: body)
                #expect(response.status == status, "\(uri) \(body): \(response.text)")
                #expect(response.errorCode == code, "\(uri) \(body)")
                #expect(response.errorMessage?.contains(hint) == true, "\(response.errorMessage ?? "")")
            }
            let missing = try await api.send(.get, "/v1/admin/accounts/acct_%27%20OR%201%3D1", headers: APIClient.admin)
            #expect(missing.status == .notFound)
            let revokeOther = try await api.send(.delete, "/v1/admin/apps/\(tenant.appID)/keys/key_nope", headers: APIClient.admin)
            #expect(revokeOther.status == .notFound)
        }
    }

    @Test func unknownRoutesAre404AndWrongMethodsAre405AsJSON() async throws {
        try await APIHarness.make().test { api in
            let missing = try await api.send(.get, "/v1/nothing-here")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "not_found")
            let wrongMethod = try await api.send(.patch, "/v1/admin/accounts")
            #expect(wrongMethod.status == .methodNotAllowed)
            #expect(wrongMethod.headers[.allow] == "POST")
            #expect(wrongMethod.errorCode == "method_not_allowed")
        }
    }
}
