import AppStoreSamples
import Foundation
import LedgerServerTestSupport
import Testing

/// Traces end to end: `ledger serve` exporting by OTLP (the standard `OTEL_*` variables) to a receiver started here,
/// a notification sent with the caller's `traceparent`, a status read, and the webhook the notification causes.
@Suite struct TracingTests {
    /// Both OTLP/HTTP encodings (protobuf is the default) through the ledger's exporter.
    @Test(.timeLimit(.minutes(10)), arguments: ["http/protobuf", "http/json"])
    func aNotificationIsOneTraceFromTheRequestToTheWebhook(otlpProtocol: String) async throws {
        let collector = OTLPReceiver()
        try await collector.start()
        defer { Task { await collector.stop() } }
        let hooks = WebhookReceiver()
        try await hooks.start()
        defer { Task { await hooks.stop() } }
        let signer = try AppStoreTestSigner()
        let (server, _) = try await ServerProcess.started(
            databasePrefix: "tracing", signer: signer,
            environment: [
                "OTEL_EXPORTER_OTLP_ENDPOINT": collector.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL": otlpProtocol,
                "OTEL_TRACES_SAMPLER": "parentbased_always_on", "OTEL_BSP_SCHEDULE_DELAY": "100",
                "LEDGER_LOG_LEVEL": "debug", "LEDGER_WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "1"
            ])
        defer { server.killNow() }
        let client = HTTPClient(base: server.baseURL, timeout: 30)
        let tenant = try await LedgerTenant.create(client)
        let endpoint = try await client.send(
            "POST", "/v1/apps/\(tenant.appID)/webhooks", headers: tenant.secret, body: #"{"url":"\#(hooks.url)"}"#)
        #expect(endpoint.status == 201, "\(endpoint.text)")

        // The App Store's (or a proxy's) trace: the ledger's request span must be its child.
        let histories = try SubscriptionHistories(users: 1, seed: 41, signer: signer)
        let user = histories.users[0]
        let callerTrace = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let callerSpan = (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        let notification = histories.all[0]
        let recorded = try await client.send(
            "POST", tenant.notificationPath, headers: ["traceparent": "00-\(callerTrace)-\(callerSpan)-01"], body: notification.body)
        #expect(recorded.status == 200, "\(recorded.text)")
        let read = try await client.send("GET", "/v1/users/\(user)", headers: tenant.secret)
        #expect(read.status == 200, "\(read.text)")
        // A malformed traceparent is ignored (a new trace), and never makes the tracer log the request's headers.
        let malformed = try await client.send(
            "GET", "/v1/users/\(user)", headers: tenant.secret.merging(["traceparent": "00-not-a-trace-01"]) { $1 })
        #expect(malformed.status == 200, "\(malformed.text)")

        // Polled, bounded: the webhook goes out behind the projections, spans leave in batches every 100 ms.
        let deadline = ContinuousClock.now + .seconds(60)
        func delivered() -> Bool { hooks.accepted.contains { $0.traceparent != nil } }
        func exported() -> Bool {
            let spans = collector.spans
            // A span leaves after its children: the caller's trace is whole once every parent it names has left too.
            let trace = spans.filter { $0.traceID == callerTrace }
            let ids = Set(trace.map(\.spanID))
            let whole = trace.allSatisfy { $0.parentSpanID == callerSpan || ids.contains($0.parentSpanID) }
            return whole && spans.contains { $0.name == "webhook.deliver" } && spans.contains { $0.name == "GET /v1/users/{user_id}" }
        }
        while ContinuousClock.now < deadline, !(delivered() && exported()) { try await Task.sleep(for: .milliseconds(100)) }

        let spans = collector.spans
        // The exporter's own requests make no span (each would be exported by another request, without end).
        #expect(!spans.contains { $0.name == "POST" && $0.kind == 3 }, "the exporter traced its own requests")
        let trace = spans.filter { $0.traceID == callerTrace }
        let byID = Dictionary(trace.map { ($0.spanID, $0) }, uniquingKeysWith: { first, _ in first })
        func children(of parent: OTLPReceiver.Span?, named prefix: String) -> [OTLPReceiver.Span] {
            trace.filter { $0.parentSpanID == parent?.spanID && $0.name.hasPrefix(prefix) }
        }

        // One trace: the request's server span under the caller's, every other span beneath it.
        let request = try #require(trace.first { $0.parentSpanID == callerSpan }, "no span is the caller's child: \(spans)")
        #expect(request.kind == 2 && request.name == "POST /v1/apps/{app_id}/notifications", "\(request)")
        #expect(request.attributes["http.response.status_code"] == "200")
        for span in trace where span.spanID != request.spanID {
            var ancestor = span
            while let parent = byID[ancestor.parentSpanID] { ancestor = parent }
            #expect(ancestor.spanID == request.spanID, "\(span) is not beneath the request")
        }

        // Verification per signed payload, each saying whether its chain was known.
        let verifications = children(of: request, named: "appstore.verify")
        #expect(Set(verifications.map(\.name)) == ["appstore.verify notification", "appstore.verify transaction"], "\(verifications)")
        for verification in verifications { #expect(["hit", "miss"].contains(verification.attributes["appstore.chain_cache"] ?? "")) }
        // The append, the group commit it joined (its child, or linked to it when another caller's append led the
        // group), the statement that wrote it, and the wait for the projections.
        let append = try #require(children(of: request, named: "ledger.append").first, "\(trace)")
        let group = try #require(
            spans.first { $0.name == "ledger.group_commit" && ($0.parentSpanID == append.spanID || $0.links.contains(append.spanID)) },
            "no group commit joined by \(append)")
        #expect(Int(group.attributes["ledger.group_commit.appends"] ?? "") ?? 0 >= 1)
        #expect(!children(of: request, named: "ledger.projection_wait").isEmpty, "\(trace)")
        let statements = trace.filter { $0.attributes["db.system.name"] == "postgresql" }
        #expect(statements.contains { $0.parentSpanID == group.spanID }, "no statement under the group commit")
        for statement in statements {
            #expect(statement.kind == 3 && statement.attributes["db.namespace"]?.isEmpty == false, "\(statement)")
            #expect(statement.attributes["db.operation.name"]?.isEmpty == false)
        }

        // The webhook carries the trace: its traceparent names the delivery span, a child of the request.
        let message = try #require(hooks.accepted.first { $0.traceparent != nil }, "no webhook carried a traceparent")
        let parts = try #require(message.traceparent).split(separator: "-").map(String.init)
        #expect(parts.count == 4 && parts[1] == callerTrace, "\(message.traceparent ?? "")")
        let delivery = try #require(trace.first { $0.spanID == parts[2] }, "the webhook's traceparent names no exported span")
        #expect(delivery.name == "webhook.deliver" && delivery.kind == 3 && delivery.parentSpanID == request.spanID, "\(delivery)")

        // The status read is a trace of its own, with its statement beneath it.
        let status = try #require(spans.first { $0.name == "GET /v1/users/{user_id}" && $0.kind == 2 }, "\(spans.map(\.name))")
        #expect(spans.contains { $0.traceID == status.traceID && $0.attributes["db.system.name"] == "postgresql" })

        // Never a parameter's value, nor anything naming the user, in any span (personal data stays out of traces).
        // The first user's original transaction id (`SubscriptionHistories`), which the log's stream ids hold.
        let transactionID = String(100_000_000 * Int64(41 % 1000 + 1))
        for span in spans {
            for (key, value) in span.attributes {
                #expect(!value.contains(user) && !value.contains(transactionID), "\(span.name) \(key)=\(value)")
            }
        }
        // Log lines inside the request carry its trace and span ids.
        let log = (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? ""
        let tail = await server.logTail()
        #expect(log.contains("trace_id=\(callerTrace)") || log.contains(#""trace_id":"\#(callerTrace)""#), "\(tail)")
        let (secretLogged, headerLogged) = (log.contains(tenant.secretKey), log.contains("not-a-trace"))
        #expect(!secretLogged, "the log holds the tenant's secret key")
        #expect(!headerLogged, "the tracer logged the malformed header")

        // A graceful stop ends: the exporter's last drain sends what is queued and returns.
        let exit = await server.stop()
        let stopped = await server.logTail()
        #expect(exit == 0, "\(stopped)")
    }
}
