import Foundation
import HTTPTypes
import Hummingbird
import LedgerOperators
import LedgerServer
import LedgerServerTestSupport
import PostgresClient
import Testing
import UTCTime

/// Issue 37: every route the router serves (the JSON API's and the console's), derived from the router itself, is in
/// this table with who may call it; each operator role is tried against each operator route: allowed where the
/// table says, 403 elsewhere, and nothing written by a refusal. A route added without a line here fails the first
/// test, so no route ships without a decision about its roles.
@Suite struct RoleRouteMatrixTests {
    enum Access: Equatable {
        /// No credential (operations; Apple's notifications are checked by their signature).
        case open
        /// An app key (secret, or public with its user's cookie): not an operator's; an operator token is refused.
        case appKey
        /// The admin API: every role reads; a write needs one of these roles.
        case operators(writers: Set<OperatorRole>)
        /// A console page for everyone (sign-in).
        case consoleOpen
        /// A console page for signed-in operators; nil: every role.
        case console(Set<OperatorRole>?)
    }

    static let all = Set(OperatorRole.allCases)
    static let admin: Access = .operators(writers: [.admin])

    /// The table. README "Operators" says the same in prose.
    static let table: [String: Access] = [
        "GET /health": .open, "GET /ready": .open, "GET /metrics": .open, "GET /openapi.json": .open,
        "GET /.well-known/jwks.json": .open,
        "POST /v1/apps/{app_id}/notifications": .open,
        // The app and its backend.
        "GET /productsStatus": .appKey, "POST /uploadReceipt": .appKey, "POST /uploadTransactions": .appKey,
        "GET /v1/apps/{app_id}/products": .appKey, "PUT /v1/apps/{app_id}/products/{product_id}": .appKey,
        "GET /v1/apps/{app_id}/revenue": .appKey,
        "GET /v1/users/{user_id}": .appKey, "GET /v1/users/{user_id}/entitlements": .appKey, "GET /v1/users/{user_id}/events": .appKey,
        "GET /v1/users/{user_id}/live": .appKey, "GET /v1/users/{user_id}/unconsumed": .appKey,
        "POST /v1/users/{user_id}/consumption-consent": .appKey, "POST /v1/users/{user_id}/external-purchases": .appKey,
        "POST /v1/users/{user_id}/purchases/{transaction_id}/consume": .appKey, "POST /v1/users/{user_id}/restore": .appKey,
        "POST /v1/users/{user_id}/transactions": .appKey,
        "POST /v1/users/{user_id}/grants": .appKey, "DELETE /v1/users/{user_id}/grants/{grant_id}": .appKey,
        "DELETE /v1/users/{user_id}": .appKey,
        "POST /v1/apps/{app_id}/webhooks": .appKey, "GET /v1/apps/{app_id}/webhooks": .appKey,
        "GET /v1/apps/{app_id}/webhooks/{endpoint_id}": .appKey, "PATCH /v1/apps/{app_id}/webhooks/{endpoint_id}": .appKey,
        "DELETE /v1/apps/{app_id}/webhooks/{endpoint_id}": .appKey,
        "POST /v1/apps/{app_id}/webhooks/{endpoint_id}/rotate-secret": .appKey,
        "GET /v1/apps/{app_id}/webhooks/{endpoint_id}/deliveries": .appKey,
        "GET /v1/apps/{app_id}/webhooks/{endpoint_id}/deliveries/{delivery_id}": .appKey,
        "POST /v1/apps/{app_id}/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver": .appKey,
        "POST /v1/apps/{app_id}/webhooks/{endpoint_id}/redeliver": .appKey,
        "POST /v1/apps/{app_id}/appstore/backfill": .appKey,
        // Operators: tenancy is the admin's.
        "POST /v1/admin/accounts": admin, "GET /v1/admin/accounts/{account_id}": admin, "POST /v1/admin/apps": admin,
        "GET /v1/admin/apps/{app_id}": admin, "PUT /v1/admin/apps/{app_id}/refund-policy": admin,
        "POST /v1/admin/apps/{app_id}/keys": admin, "GET /v1/admin/apps/{app_id}/keys": admin,
        "DELETE /v1/admin/apps/{app_id}/keys/{key_id}": admin,
        "POST /v1/admin/apps/{app_id}/webhooks": admin, "GET /v1/admin/apps/{app_id}/webhooks": admin,
        "GET /v1/admin/apps/{app_id}/webhooks/{endpoint_id}": admin, "PATCH /v1/admin/apps/{app_id}/webhooks/{endpoint_id}": admin,
        "DELETE /v1/admin/apps/{app_id}/webhooks/{endpoint_id}": admin,
        "POST /v1/admin/apps/{app_id}/webhooks/{endpoint_id}/rotate-secret": admin,
        "GET /v1/admin/apps/{app_id}/webhooks/{endpoint_id}/deliveries": admin,
        "GET /v1/admin/apps/{app_id}/webhooks/{endpoint_id}/deliveries/{delivery_id}": admin,
        // Customers' webhook redelivery and App Store imports are support's.
        "POST /v1/admin/apps/{app_id}/webhooks/{endpoint_id}/deliveries/{delivery_id}/redeliver": .operators(writers: [.support]),
        "POST /v1/admin/apps/{app_id}/webhooks/{endpoint_id}/redeliver": .operators(writers: [.support]),
        "POST /v1/admin/apps/{app_id}/appstore/backfill": .operators(writers: [.support]),
        // So are support grants.
        "POST /v1/admin/apps/{app_id}/users/{user_id}/grants": .operators(writers: [.support]),
        "DELETE /v1/admin/apps/{app_id}/users/{user_id}/grants/{grant_id}": .operators(writers: [.support]),
        // Erasure: support or an admin.
        "DELETE /v1/admin/apps/{app_id}/users/{user_id}": .operators(writers: [.support, .admin]),
        // Invoices are finance's.
        "GET /v1/admin/invoices": .operators(writers: [.finance]), "POST /v1/admin/invoices": .operators(writers: [.finance]),
        "GET /v1/admin/invoice-drafts": .operators(writers: [.finance]), "GET /v1/admin/invoices/{invoice_id}": .operators(writers: [.finance]),
        "GET /v1/admin/invoices/{invoice_id}/reproduction": .operators(writers: [.finance]),
        "POST /v1/admin/invoices/{invoice_id}/void": .operators(writers: [.finance]), "POST /v1/admin/plans": .operators(writers: [.finance]),
        "PUT /v1/admin/accounts/{account_id}/plan": .operators(writers: [.finance]),
        // The operator record: read by all, written by none through it.
        "GET /v1/admin/operator-record": .operators(writers: []), "GET /v1/admin/operator-record/export": .operators(writers: []),
        // The console.
        "GET /console": .consoleOpen, "GET /console/sign-in": .consoleOpen, "POST /console/sign-in": .consoleOpen,
        "POST /console/sign-out": .console(nil), "POST /console/sign-out-everywhere": .console(nil),
        "GET /console/customers": .console(nil), "GET /console/customers/{app}/{user}": .console(nil),
        "GET /console/customers/{app}/{user}/as-of/{position}": .console(nil),
        "POST /console/customers/{app}/{user}/purchases/{purchase}/consume": .console([.support]),
        "POST /console/customers/{app}/{user}/grants": .console([.support]),
        "POST /console/customers/{app}/{user}/grants/{grant}/revoke": .console([.support]),
        "GET /console/finance": .console(nil), "POST /console/finance/finalize": .console([.finance]),
        "GET /console/finance/invoices/{invoice}": .console(nil),
        "GET /console/finance/invoices/{invoice}/download": .console([.finance, .auditor]),
        "POST /console/finance/invoices/{invoice}/void": .console([.finance]),
        "GET /console/operations": .console(nil), "GET /console/operations/apps/{app}": .console(nil),
        "POST /console/operations/apps/{app}/keys": .console([.admin]), "POST /console/operations/apps/{app}/keys/{key}/revoke": .console([.admin]),
        "GET /console/operations/apps/{app}/webhooks/{endpoint}": .console(nil),
        "POST /console/operations/apps/{app}/webhooks/{endpoint}/deliveries/{delivery}/redeliver": .console([.support]),
        "GET /console/operators": .console(nil), "POST /console/operators": .console([.admin]),
        "POST /console/operators/{name}/disable": .console([.admin]), "POST /console/operators/{name}/role": .console([.admin]),
        "POST /console/operators/{name}/password": .console([.admin]), "POST /console/operators/{name}/unlock": .console([.admin]),
        "POST /console/operators/me/tokens": .console(nil), "POST /console/operators/me/tokens/{token}/revoke": .console(nil),
        "GET /console/operators/record": .console(nil), "GET /console/operators/record/download": .console([.auditor, .admin])
    ]

    /// The router's own list of what it serves, as `METHOD /path/{parameter}`.
    static func served(_ harness: APIHarness) -> Set<String> {
        let router = LedgerApplication.makeRouter(readiness: ReadinessCheck(pool: harness.pool, migrations: []), api: harness.api)
        return Set(
            router.routes.map { route in
                let path = route.path.description.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
                return "\(route.method.rawValue) /" + path.joined(separator: "/")
            })
    }

    @Test func everyRouteOfTheRouterHasItsRolesInTheTable() async throws {
        let harness = try await APIHarness.make()
        let served = Self.served(harness)
        await harness.pool.shutdown()
        let missing = served.subtracting(Self.table.keys).sorted()
        #expect(missing.isEmpty, "routes without a line in the role table (add them, with who may call them): \(missing)")
        let stale = Set(Self.table.keys).subtracting(served).sorted()
        #expect(stale.isEmpty, "the table names routes the router no longer serves: \(stale)")
        #expect(served.count > 80)
    }

    /// A concrete path for a route: its app and account are the tenant's, every other parameter an id that does not
    /// exist (the request is judged on its role before anything is looked up).
    static func uri(_ template: String, app: String, account: String) -> String {
        template.split(separator: "/", omittingEmptySubsequences: false).map { part in
            switch part {
            case "{app_id}", "{app}": app
            case "{account_id}": account
            case let p where p.hasPrefix("{"): "x"
            default: String(part)
            }
        }.joined(separator: "/")
    }

    /// Every row of every table of the ledger schema but the sessions' (a request marks its session seen), as text:
    /// what a refused request must leave exactly as it was.
    static func snapshot(_ pool: PostgresPool) async throws -> [String: String] {
        let tables = try await pool.query(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'ledger' AND tablename <> 'console_sessions' ORDER BY tablename"
        ).map { try $0.decode(String.self, at: 0) }
        var state: [String: String] = [:]
        for table in tables {
            let rows = try await pool.query(
                "SELECT coalesce(string_agg(t::text, '|' ORDER BY t::text), '') FROM ledger.\(unescaped: table) t")
            state[table] = try rows.first?.decode(String.self, at: 0) ?? ""
        }
        return state
    }

    @Test func eachRoleIsAllowedWhereTheTableSaysAndRefusedWithNothingWrittenElsewhere() async throws {
        let harness = try await APIHarness.make(now: Instant(secondsSinceEpoch: 1_795_000_000))
        try await harness.test { api in
            let tenant = try await api.tenant()
            var tokens: [OperatorRole: HTTPFields] = [:]
            var sessions: [OperatorRole: (cookie: String, csrf: String)] = [:]
            var operatorIDs: [OperatorRole: String] = [:]
            for role in OperatorRole.allCases {
                let name = "op-\(role.rawValue)"
                tokens[role] = APIClient.bearer(try await OperatorTokenTests.token(harness, name, role))
                let record = try #require(try await OperatorStore(pool: harness.pool, masterKey: harness.masterKey).find(name: name))
                let (token, session) = try await ConsoleSessionStore(pool: harness.pool).start(
                    actor: name, operatorID: record.id, role: role, now: harness.clock.now, lifetimeSeconds: 3600)
                sessions[role] = ("ledger_console=\(token)", session.csrf)
                operatorIDs[role] = record.id
            }
            var refusals: [(role: OperatorRole, route: String, send: @Sendable () async throws -> APIResponse)] = []
            var allowed: [(role: OperatorRole, route: String, send: @Sendable () async throws -> APIResponse)] = []
            for (route, access) in Self.table.sorted(by: { $0.key < $1.key }) {
                let parts = route.split(separator: " ")
                let method = HTTPRequest.Method(String(parts[0]))!
                let uri = Self.uri(String(parts[1]), app: tenant.appID, account: tenant.accountID)
                for role in OperatorRole.allCases {
                    switch access {
                    case .open, .consoleOpen:
                        continue
                    case .appKey:
                        // An operator's token is not an app key.
                        let headers = tokens[role]!
                        refusals.append((role, route, { try await api.send(method, uri, headers: headers, json: "{}") }))
                    case .operators(let writers):
                        let headers = tokens[role]!
                        let may = method == .get || writers.contains(role)
                        let send: @Sendable () async throws -> APIResponse = { try await api.send(method, uri, headers: headers, json: "{}") }
                        if may { allowed.append((role, route, send)) } else { refusals.append((role, route, send)) }
                    case .console(let roles):
                        let (cookie, csrf) = sessions[role]!
                        let may = roles.map { $0.contains(role) } ?? true
                        let ending = route.contains("sign-out")
                        let operatorID = operatorIDs[role]!
                        let send: @Sendable () async throws -> APIResponse = {
                            if method == .get { return try await api.send(.get, uri, headers: [.cookie: cookie]) }
                            guard ending else { return try await ConsoleTests.post(api, uri, cookie: cookie, [("csrf", csrf)]) }
                            // Signing out ends the session: each sign-out gets one of its own.
                            let (token, session) = try await ConsoleSessionStore(pool: harness.pool).start(
                                actor: "op-\(role.rawValue)", operatorID: operatorID, role: role, now: harness.clock.now, lifetimeSeconds: 3600)
                            return try await ConsoleTests.post(api, uri, cookie: "ledger_console=\(token)", [("csrf", session.csrf)])
                        }
                        if may { allowed.append((role, route, send)) } else { refusals.append((role, route, send)) }
                    }
                }
            }
            let before = try await Self.snapshot(harness.pool)
            for refusal in refusals {
                let answer = try await refusal.send()
                if case .appKey = Self.table[refusal.route] {
                    #expect(answer.status == .unauthorized, "\(refusal.role) on \(refusal.route): \(answer.status) \(answer.text.prefix(200))")
                } else {
                    #expect(answer.status == .forbidden, "\(refusal.role) on \(refusal.route): \(answer.status) \(answer.text.prefix(200))")
                    #expect(answer.text.contains("needs the"), "\(refusal.route): the refusal names the role it needs: \(answer.text.prefix(200))")
                }
            }
            let after = try await Self.snapshot(harness.pool)
            for table in before.keys.sorted() where before[table] != after[table] {
                Issue.record("a refused request changed ledger.\(table)")
            }
            #expect(refusals.count > 100)
            // Allowed: past the role check (what follows may still be a 400 or 404 for the made-up ids and empty body).
            // Signing out everywhere last: it ends each role's session, which serves the other requests.
            let last = "POST /console/sign-out-everywhere"
            for request in allowed.filter({ $0.route != last }) + allowed.filter({ $0.route == last }) {
                let answer = try await request.send()
                #expect(
                    ![.forbidden, .unauthorized].contains(answer.status),
                    "\(request.role) on \(request.route): \(answer.status) \(answer.text.prefix(300))")
            }
        }
    }
}
