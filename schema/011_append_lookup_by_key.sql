-- Idempotency lookups that no statistics can turn into a scan of an app's events.
--
-- The planner's statistics on app_id come from the last ANALYZE. An app created after it is estimated at one row,
-- so every index that starts with app_id looks as cheap as the (app_id, idempotency_key) one, and the plans chose
-- (app_id, transaction_id, position) and filtered every event of the app: each notification of a new app cost more
-- than the last (13 ms at 16,000 events, `EXPLAIN ANALYZE` in Benchmarks/README.md); on a large log autovacuum's
-- next ANALYZE (after a tenth of the table changes) may be hours away. Ordering by the key did not settle the tie
-- (an ordering on a column compared for equality is dropped), nor did planning on each call (009) or generic plans
-- (made on an empty log they keep the same tie).
--
-- So the keys are looked up by an index that starts with the key, behind `OFFSET 0`, which keeps the app's
-- condition out of the scan: no index but this one can answer it, whatever the statistics say. The unique
-- constraint (app_id, idempotency_key) still decides what is a duplicate; this index only finds them. It costs one
-- more index entry per event appended. The function runs with sequential scans off: a plan made while the log is
-- empty (a sequential scan of nothing is the cheapest) would otherwise be kept by the connection as the log grows.
CREATE INDEX events_idempotency_lookup ON ledger.events (idempotency_key);

CREATE OR REPLACE FUNCTION ledger.append_events(
    p_app text, p_stream text, p_expected bigint,
    p_types text[], p_schema_versions bigint[], p_payloads text[], p_metadata text[], p_keys text[], p_occurred_micros bigint[]
) RETURNS TABLE (out_key text, out_position bigint, out_version bigint, out_appended boolean)
LANGUAGE plpgsql
AS $$
DECLARE
    v_recorded text[] := '{}';
    v_head bigint;
BEGIN
    FOR out_key, out_position, out_version IN
        SELECT x.idempotency_key, x.position, x.stream_version
        FROM (SELECT e.app_id, e.idempotency_key, e.position, e.stream_version FROM ledger.events e
              WHERE e.idempotency_key = ANY(p_keys) OFFSET 0) AS x
        WHERE x.app_id = p_app
    LOOP
        out_appended := false;
        v_recorded := v_recorded || out_key;
        RETURN NEXT;
    END LOOP;
    IF cardinality(v_recorded) = cardinality(p_keys) THEN
        RETURN;
    END IF;
    SELECT coalesce((SELECT e.stream_version FROM ledger.events e WHERE e.app_id = p_app AND e.stream_id = p_stream
                     ORDER BY e.stream_version DESC LIMIT 1), 0) INTO v_head;
    IF p_expected IS NOT NULL AND p_expected <> v_head THEN
        RETURN QUERY SELECT NULL::text, NULL::bigint, v_head, false;
        RETURN;
    END IF;
    RETURN QUERY
        INSERT INTO ledger.events AS e (app_id, stream_id, stream_version, event_type, schema_version, payload, metadata,
                                        idempotency_key, occurred_at)
        SELECT p_app, p_stream, v_head + row_number() OVER (ORDER BY f.n), f.type, f.schema_version::integer,
               f.payload::jsonb, f.metadata::jsonb, f.key, 'epoch'::timestamptz + f.micros * interval '1 microsecond'
        FROM unnest(p_types, p_schema_versions, p_payloads, p_metadata, p_keys, p_occurred_micros)
             WITH ORDINALITY AS f(type, schema_version, payload, metadata, key, micros, n)
        WHERE f.key <> ALL(v_recorded)
        ORDER BY f.n
        RETURNING e.idempotency_key, e.position, e.stream_version, true;
END
$$;

ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[]) SET enable_seqscan = off;
