import Foundation
import LedgerConcurrency
import LedgerDomain
import LedgerPrivacy
import LedgerStore
import Tracing
import LedgerTracing
import Logging
import PostgresClient
import Synchronization
import UTCTime

/// The operator's settings for webhooks (`ledger serve` reads them from the environment, see docs/webhooks.md).
package struct WebhookSettings: Sendable {
    package var schedule = RetrySchedule()
    /// An endpoint with no successful delivery for this long after a failure is disabled.
    package var disableAfter: Duration = .seconds(5 * 86_400)
    /// How long a dispatcher's claim on an endpoint lasts unrenewed: after a crash, another instance takes over
    /// within this time.
    package var leaseDuration: Duration = .seconds(15)
    /// Deliveries of one endpoint in flight at once (each to a different user).
    package var concurrencyPerEndpoint = 8
    /// How often an idle dispatcher looks for due retries and deliveries made by another instance.
    package var pollInterval: Duration = .seconds(1)
    package var limits = WebhookSender.Limits()
    package var allowPrivateAddresses = false
    /// How long the previous secret keeps signing after a rotation.
    package var rotationOverlap: Duration = .seconds(24 * 3600)

    package init() {}
}

/// Sends webhooks while the server runs: fans the log out into deliveries (`WebhookFanOut`, one instance at a time by
/// its advisory lock) and dispatches every endpoint whose lease this instance holds, one task per endpoint.
///
/// An endpoint's task sends the due head of each order key (user), up to `concurrencyPerEndpoint` at once
/// (`DeliveryWindow`), and records every attempt before the key's next delivery can be chosen: per user in order,
/// across users in parallel, a slow user holding back no other.
/// A delivery whose attempt was not recorded (the process died) is still pending and is sent again with the same
/// `webhook-id`: at least once.
package final class WebhookDispatcher: Sendable {
    package let store: WebhookStore
    let fanOut: WebhookFanOut
    let sender: WebhookSender
    let settings: WebhookSettings
    let clock: LedgerClock
    let logger: Logger
    /// This process's name on the leases it holds.
    package let owner = RandomToken.identifier(prefix: "dispatcher_")
    private let signal = WakeSignal()
    private let running = Mutex<[String: Running]>([:])
    /// Endpoints whose task has ended, and waiters for that (`stoppedDispatching`).
    private let endings = Mutex<Endings>(Endings())

    private struct Endings {
        var ended: Set<String> = []
        var waiters: [String: [FirstAnswer<Void>]] = [:]
    }

    private struct Running {
        var task: Task<Void, Never>
        let endpoint: EndpointSlot
        let signal: WakeSignal
    }

    /// The endpoint's settings as last leased, read by its task before each round.
    private final class EndpointSlot: Sendable {
        private let value: Mutex<WebhookEndpoint>
        init(_ endpoint: WebhookEndpoint) { value = Mutex(endpoint) }
        var current: WebhookEndpoint {
            get { value.withLock { $0 } }
            set { value.withLock { $0 = newValue } }
        }
    }

    package init(
        pool: PostgresPool, identities: IdentityStore, settings: WebhookSettings, clock: LedgerClock = .system,
        render: @escaping WebhookFanOut.Renderer, logger: Logger = Logger(label: "ledger.webhooks")
    ) {
        self.store = WebhookStore(pool: pool, identities: identities)
        self.fanOut = WebhookFanOut(pool: pool, identities: identities, render: render)
        self.sender = WebhookSender(policy: OutboundPolicy(allowPrivateAddresses: settings.allowPrivateAddresses), limits: settings.limits)
        self.settings = settings
        self.clock = clock
        self.logger = logger
    }

    /// New events may be ready for the fan-out (the projections advanced).
    package func wake() { signal.fire() }

    /// Runs until the task is cancelled; then stops sending, gives up its leases and closes its HTTP client.
    package func run() async {
        let listener = PostgresListener(configuration: store.pool.configuration, channels: [WebhookFanOut.channel, EventStore.notificationChannel])
        let listening = Task { [self] in
            for await _ in listener.events() {
                signal.fire()
                wakeEndpoints()
            }
        }
        let leasing = Task { [self] in await keepLeases() }
        while !Task.isCancelled {
            do {
                if try await fanOut.catchUp() > 0 { wakeEndpoints() }
            } catch {
                logger.warning("webhook fan-out failed; retrying", metadata: ["error": "\(error)"])
            }
            await signal.wait(timeout: settings.pollInterval)
        }
        leasing.cancel()
        await leasing.value
        listening.cancel()
        await listener.stop()
        let tasks = running.withLock { running in
            defer { running.removeAll() }
            return running.values.map(\.task)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        try? await store.releaseLeases(owner: owner)
        await sender.shutdown()
    }

    /// Takes and renews endpoints' leases on a clock of its own, so that a long fan-out (a backlog after an outage)
    /// cannot let them lapse while this instance is still sending.
    private func keepLeases() async {
        while !Task.isCancelled {
            do {
                reconcile(try await store.leaseEndpoints(owner: owner, duration: settings.leaseDuration))
            } catch {
                logger.warning("webhook leases could not be renewed; retrying", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: settings.leaseDuration / 3)
        }
    }

    private func wakeEndpoints() {
        for signal in running.withLock({ $0.values.map(\.signal) }) { signal.fire() }
    }

    /// Starts a task for each endpoint newly leased, refreshes the others' settings, stops those lost.
    private func reconcile(_ endpoints: [WebhookEndpoint]) {
        let stopped = running.withLock { running -> [Task<Void, Never>] in
            let keys = Set(endpoints.map(Self.key))
            var stopped: [Task<Void, Never>] = []
            for (key, entry) in running where !keys.contains(key) {
                entry.task.cancel()
                stopped.append(entry.task)
                running[key] = nil
            }
            for endpoint in endpoints {
                if let entry = running[Self.key(endpoint)] {
                    entry.endpoint.current = endpoint
                    continue
                }
                let box = EndpointSlot(endpoint)
                let signal = WakeSignal()
                let key = Self.key(endpoint)
                endings.withLock { _ = $0.ended.remove(key) }
                let task = Task { [self] in
                    await dispatch(box, signal: signal)
                    ended(key)
                }
                running[key] = Running(task: task, endpoint: box, signal: signal)
            }
            return stopped
        }
        if !stopped.isEmpty { logger.info("stopped dispatching \(stopped.count) webhook endpoint(s): disabled, deleted or leased elsewhere") }
    }

    private static func key(_ endpoint: WebhookEndpoint) -> String { key(app: endpoint.appID, endpoint: endpoint.endpointID) }
    private static func key(app: String, endpoint: String) -> String { app + "\u{0}" + endpoint }

    /// Returns true once this instance has stopped sending to the endpoint: its task was let go (the endpoint was
    /// disabled, deleted or leased elsewhere) and has finished, so nothing more goes out to it from here; false if
    /// that has not happened within `timeout`. For tests, which wait for this rather than sleeping.
    package func stoppedDispatching(app: String, endpoint: String, timeout: Duration) async -> Bool {
        let key = Self.key(app: app, endpoint: endpoint)
        let answer = FirstAnswer<Void>()
        let ended = endings.withLock { endings -> Bool in
            if endings.ended.contains(key) { return true }
            endings.waiters[key, default: []].append(answer)
            return false
        }
        if ended { return true }
        let result = await answer.value(timeout: timeout) { .failure(CancellationError()) }
        endings.withLock { $0.waiters[key]?.removeAll { $0 === answer } }
        return (try? result.get()) != nil
    }

    /// An endpoint's task has returned; unless a new one was started for it meanwhile, its waiters are answered.
    private func ended(_ key: String) {
        guard running.withLock({ $0[key] == nil }) else { return }
        let waiters = endings.withLock { endings in
            endings.ended.insert(key)
            return endings.waiters.removeValue(forKey: key) ?? []
        }
        for waiter in waiters { waiter.give(.success(())) }
    }

    /// What ended in an endpoint task's group: a delivery's attempt, or a wait for a wake-up.
    private enum Step: Sendable {
        case sent(deliveryID: String, recorded: Bool)
        case wokenUp
    }

    /// Sends the endpoint's due deliveries through a `DeliveryWindow` until the task is cancelled.
    private func dispatch(_ endpoint: EndpointSlot, signal: WakeSignal) async {
        await withTaskGroup(of: Step.self) { group in
            var window = DeliveryWindow(capacity: settings.concurrencyPerEndpoint)
            var readDue = true
            var waitingForWakeUp = false
            while !Task.isCancelled {
                if readDue {
                    readDue = false
                    let admitted = await admitDue(endpoint, into: &window)
                    let target = endpoint.current
                    for delivery in admitted {
                        group.addTask { [self] in .sent(deliveryID: delivery.deliveryID, recorded: await deliver(delivery, to: target)) }
                    }
                }
                if window.wantsWakeUp && !waitingForWakeUp {
                    waitingForWakeUp = true
                    group.addTask { [settings] in
                        await signal.wait(timeout: settings.pollInterval)
                        return .wokenUp
                    }
                }
                switch await group.next() {
                case .sent(let deliveryID, let recorded):
                    readDue = window.finished(deliveryID, recorded: recorded)
                case .wokenUp:
                    waitingForWakeUp = false
                    window.wokenUp()
                    readDue = true
                case nil:
                    readDue = true  // not reached: a wait for a wake-up is in the group whenever nothing is in flight
                }
            }
        }
    }

    /// Reads the due deliveries and admits what the window has room for. The endpoint is read again before anything is
    /// sent, so that a rotated secret, a new URL or a disabling applies to the next message.
    private func admitDue(_ endpoint: EndpointSlot, into window: inout DeliveryWindow) async -> [WebhookDelivery] {
        let current = endpoint.current
        let due: [WebhookDelivery]
        do {
            due = try await store.due(app: current.appID, endpoint: current.endpointID, limit: window.capacity)
        } catch {
            logger.warning("webhook deliveries could not be read; retrying", metadata: ["endpoint": "\(current.endpointID)", "error": "\(error)"])
            window.failed()
            return []
        }
        guard due.contains(where: { !window.sending.contains($0.deliveryID) }) else { return [] }
        guard let fresh = try? await store.endpoint(app: current.appID, id: current.endpointID), fresh.status == .enabled else {
            window.failed()
            return []
        }
        endpoint.current = fresh
        return window.admit(due)
    }

    /// One attempt of one delivery, recorded with its outcome; whether the record was written.
    ///
    /// Each attempt is a client span in the trace of the request that recorded the event (`traceparent`, kept with
    /// the delivery), or a trace of its own; the request carries the span's `traceparent` to the receiver.
    func deliver(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint) async -> Bool {
        await withSpan("webhook.deliver", context: TraceContext.context(traceparent: delivery.traceparent), ofKind: .client) { span in
            if span.isRecording {
                span.attributes["ledger.app_id"] = delivery.appID
                span.attributes["ledger.webhook.endpoint_id"] = delivery.endpointID
                span.attributes["ledger.webhook.delivery_id"] = delivery.deliveryID
                span.attributes["ledger.webhook.event_type"] = delivery.eventType
                span.attributes["ledger.webhook.attempt"] = delivery.attempts + 1
            }
            return await attempt(delivery, to: endpoint, span: span)
        }
    }

    private func attempt(_ delivery: WebhookDelivery, to endpoint: WebhookEndpoint, span: any Span) async -> Bool {
        let now = clock.now()
        let body = Array(delivery.payload.utf8)
        let timestamp = now.epochMilliseconds / 1000
        let result: WebhookSender.Result
        let started = ContinuousClock.now
        do {
            let signature = try WebhookSignature.header(
                secrets: endpoint.signingSecrets(at: now), id: delivery.deliveryID,
                timestamp: timestamp, body: body)
            result = await sender.post(
                url: endpoint.url,
                headers: [
                    ("webhook-id", delivery.deliveryID), ("webhook-timestamp", String(timestamp)), ("webhook-signature", signature)
                ] + TraceContext.headers(of: span.context), body: body)
        } catch {
            result = WebhookSender.Result(statusCode: nil, error: "the endpoint's secret is malformed; rotate it")
        }
        if let code = result.statusCode { span.attributes["http.response.status_code"] = code }
        if !(200..<300).contains(result.statusCode ?? 0) { span.setStatus(SpanStatus(code: .error, message: result.error)) }
        let elapsed = (ContinuousClock.now - started).components
        let attempt = WebhookAttempt(
            attempt: delivery.attempts + 1, attemptedAt: now, statusCode: result.statusCode,
            latencyMilliseconds: Int(elapsed.seconds * 1000 + elapsed.attoseconds / 1_000_000_000_000_000),
            error: result.error)
        let outcome: WebhookOutcome =
            attempt.succeeded
            ? .succeeded
            : settings.schedule.afterFailure(
                attempt: attempt.attempt, firstAttempt: delivery.firstAttemptAt ?? now, now: now, unit: Double.random(in: 0..<1))
        do {
            try await store.record(attempt, of: delivery, outcome: outcome, disableAfter: settings.disableAfter)
            return true
        } catch {
            // Still pending: it is sent again (same webhook-id), which the receiver deduplicates.
            logger.warning(
                "a webhook attempt could not be recorded; it will be sent again",
                metadata: ["delivery": "\(delivery.deliveryID)", "error": "\(error)"])
            return false
        }
    }
}
