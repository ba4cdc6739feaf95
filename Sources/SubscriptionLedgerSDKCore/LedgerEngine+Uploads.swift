import Foundation

/// The durable upload queue's sender: only it sends uploads, one at a time and in order, so an upload is never in
/// flight twice, and a user's queued uploads go out with their own cookie whoever the SDK works for now.
extension LedgerEngine {

    /// How an upload's first attempt went.
    enum UploadAttempt: Sendable {
        case delivered(LedgerClient.Delivery)
        /// Not delivered yet: it stays queued and is retried.
        case queued
    }

    /// Queues an upload durably and waits for its first attempt: delivered, or queued for retry; a refusal throws.
    func upload(_ payload: PendingUpload.Payload, for user: String?, transactionIDs: [String] = []) async throws -> UploadAttempt {
        let upload = PendingUpload(userID: user, payload: payload, transactionIDs: transactionIDs)
        queue.enqueue(upload)
        persistQueue()
        emit(.enqueued(upload))
        // Uploads go in order: behind one the ledger keeps failing (no network), this one waits its turn on disk,
        // and the caller hears at once that it is queued rather than when the network is back.
        if queue.pending.contains(where: { $0.id != upload.id && $0.failures > 0 }) {
            startSender()
            return .queued
        }
        return try await withCheckedThrowingContinuation { continuation in
            waiters[upload.id] = continuation
            startSender()
        }
    }

    /// The uploads not delivered yet.
    var pendingUploads: [PendingUpload] { queue.pending }

    /// Sends every queued upload now (e.g. the app learnt the network is back), without waiting for the backoff.
    func retryUploadsNow() {
        queue.makeAllDue(at: Date())
        persistQueue()
        sender?.cancel()
        sender = nil
        startSender()
    }

    func persistQueue() {
        do {
            try files.queue.write(queue.pending)
        } catch {
            log("could not write the upload queue: \(error)")
        }
    }

    func startSender() {
        guard sender == nil, !queue.pending.isEmpty else { return }
        sender = Task { await self.sendQueued() }
    }

    func sendQueued() async {
        defer { sender = nil }
        while !Task.isCancelled {
            guard let due = queue.nextDue else { return }
            guard let upload = queue.next(at: Date()) else {
                try? await Task.sleep(for: .milliseconds(max(1, Int64(due.timeIntervalSinceNow * 1000))))
                continue
            }
            await send(upload)
        }
    }

    func send(_ upload: PendingUpload) async {
        do {
            let delivery = try await client.deliver(upload, cookie: jar.cookie(forUpload: upload))
            if let issued = delivery.issued {
                do { try jar.keep(issued, now: now) } catch { log("could not keep the uid cookie: \(error)") }
                if userID == nil || userID == upload.userID { adopt(delivery.userID) }
                if let user = delivery.userID, user == userID { identified(user) }
            }
            queue.record(.delivered, for: upload.id, at: Date())
            persistQueue()
            log("upload \(upload.id) delivered: \(delivery.recorded) recorded, \(delivery.alreadyKnown) already known")
            emit(.delivered(upload, recorded: delivery.recorded, alreadyKnown: delivery.alreadyKnown))
            // Finished in the store before the purchase is reported done: recorded first, then finished.
            for id in upload.transactionIDs {
                await finishers.removeValue(forKey: id)?()
            }
            waiters.removeValue(forKey: upload.id)?.resume(returning: .delivered(delivery))
        } catch {
            let error = error as? LedgerError ?? .transport("\(error)")
            // A missing or expired cookie is renewed by the next configure, so such an upload waits rather than
            // being dropped.
            let outcome: UploadQueueState.Outcome =
                switch error {
                case .server(let refusal) where refusal.status == 401 || refusal.status == 403: .retryLater
                default: UploadQueueState.outcome(of: error)
                }
            queue.record(outcome, for: upload.id, at: Date())
            persistQueue()
            switch outcome {
            case .retryLater:
                let retryAt = queue.pending.first { $0.id == upload.id }?.notBefore ?? Date()
                log("upload \(upload.id) failed (\(error)); retrying at \(retryAt)")
                emit(.willRetry(upload, error, retryAt: retryAt))
                waiters.removeValue(forKey: upload.id)?.resume(returning: .queued)
            case .refused, .delivered:
                log("upload \(upload.id) refused: \(error)")
                emit(.refused(upload, error))
                waiters.removeValue(forKey: upload.id)?.resume(throwing: error)
            }
        }
    }

    func uploadEvents() -> AsyncStream<UploadEvent> {
        let (stream, continuation) = AsyncStream<UploadEvent>.makeStream()
        let id = UUID()
        uploadListeners[id] = continuation
        continuation.onTermination = { _ in Task { await self.removeUploadListener(id) } }
        return stream
    }

    private func removeUploadListener(_ id: UUID) {
        uploadListeners[id] = nil
    }

    func emit(_ event: UploadEvent) {
        for continuation in uploadListeners.values { continuation.yield(event) }
    }
}
