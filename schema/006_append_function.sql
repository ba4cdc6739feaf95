-- One round trip per append (found by the append benchmark, Benchmarks/README.md): the idempotency check, the
-- stream-version check and the insert in one statement, so an append outside a transaction needs no BEGIN, no
-- COMMIT and no separate reads. The rules are those EventStore enforced with three statements before:
--   * keys already recorded answer with their original positions (out_appended = false); only new events are
--     inserted, after the stream's head;
--   * p_expected: NULL any version, 0 the stream must not exist yet, n its head must be n. Otherwise one row with a
--     NULL key and the actual head is returned (a conflict; nothing is written);
--   * concurrent writers still meet at the table's unique keys: the loser gets a unique violation and retries.
CREATE FUNCTION ledger.append_events(
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
        SELECT e.idempotency_key, e.position, e.stream_version
        FROM ledger.events e WHERE e.app_id = p_app AND e.idempotency_key = ANY(p_keys)
    LOOP
        out_appended := false;
        v_recorded := v_recorded || out_key;
        RETURN NEXT;
    END LOOP;
    IF cardinality(v_recorded) = cardinality(p_keys) THEN
        RETURN;
    END IF;
    SELECT coalesce(max(e.stream_version), 0) INTO v_head
        FROM ledger.events e WHERE e.app_id = p_app AND e.stream_id = p_stream;
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
