-- The dispatcher's question (README "Live status and webhooks", `WebhookStore.due`): the deliveries due now that head
-- their order key. Asked as "pending, due, and no pending delivery of the same key before it", walked in the order
-- they are sent (next attempt, then log position), so a round reads about as many rows as it sends instead of every
-- pending delivery of the endpoint (a DISTINCT ON over the whole backlog took 35 ms per round at 12,000 pending).
CREATE INDEX webhook_deliveries_due ON ledger.webhook_deliveries (app_id, endpoint_id, next_attempt_at, position)
    WHERE status = 'pending';
