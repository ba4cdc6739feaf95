-- The trace a delivery belongs to: the W3C traceparent of the sampled request that recorded its event (from the event's
-- metadata), so that every attempt is a span of that trace and carries it to the receiver. NULL: not traced.
ALTER TABLE ledger.webhook_deliveries ADD COLUMN traceparent text;
