-- Idempotency lookups that stay on the (app_id, idempotency_key) index for an app the statistics do not know.
--
-- The planner's statistics on app_id come from the last ANALYZE. An app created after it (or with few events then)
-- is estimated at one row, so every index that starts with app_id looks as cheap as the unique one, and the plans
-- chose (app_id, transaction_id, position) and filtered every event of the app: each notification of a new app
-- cost more than the last (13 ms at 16,000 events, `EXPLAIN ANALYZE` in Benchmarks/README.md), and on a large log
-- autovacuum's next ANALYZE (after 10% of the table changes) may be hours away. Each key is now looked up on its
-- own (a nested loop over the keys) and ordered by the key: only the unique index returns the rows in that order,
-- so when the estimates tie its plan is the cheaper one, for one key or a batch's 500, on an empty log or a large
-- one, planned once per connection (no EXECUTE: planning on each call cost more than the lookup).

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
        FROM unnest(p_keys) AS k(key)
        CROSS JOIN LATERAL (
            SELECT e.idempotency_key, e.position, e.stream_version FROM ledger.events e
            WHERE e.app_id = p_app AND e.idempotency_key = k.key
            ORDER BY e.idempotency_key) AS x
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
