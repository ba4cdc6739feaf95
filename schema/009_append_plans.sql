-- An append's lookups must use the indexes made for them however the log looked when a connection first planned
-- them. PL/pgSQL keeps one plan per statement and connection; made on a new, empty log, where every index looks
-- alike to the planner, the plans kept scanned the app's whole index (app_id, transaction_id, position) on every
-- append, so appends slowed as the log grew, until autovacuum's first ANALYZE made connections plan again
-- (Benchmarks/README.md, "the append drop").
--
-- append_events, with the rules of 006. The idempotency key of a single-event append (the common case: one
-- notification, one upload) is looked up by a statement planned on each call (EXECUTE), against the log's size
-- then: no rewriting makes an equality on that index's two columns win over the app's other indexes on an empty
-- log. A batch keeps its planned lookup (planned on each call, a batch's 500 keys made the planner choose a scan of
-- the whole small log, three times slower); on a new log its connection may scan the app's events once per batch
-- until the first ANALYZE. The stream's head is read backwards from the end of the stream's index, a plan that
-- stays right on an empty log.
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
    IF cardinality(p_keys) = 1 THEN
        FOR out_key, out_position, out_version IN EXECUTE
            'SELECT e.idempotency_key, e.position, e.stream_version
             FROM ledger.events e WHERE e.app_id = $1 AND e.idempotency_key = $2' USING p_app, p_keys[1]
        LOOP
            out_appended := false;
            v_recorded := v_recorded || out_key;
            RETURN NEXT;
        END LOOP;
    ELSE
        FOR out_key, out_position, out_version IN
            SELECT e.idempotency_key, e.position, e.stream_version
            FROM ledger.events e WHERE e.app_id = p_app AND e.idempotency_key = ANY(p_keys)
        LOOP
            out_appended := false;
            v_recorded := v_recorded || out_key;
            RETURN NEXT;
        END LOOP;
    END IF;
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

-- The chain trigger runs once per event, so it keeps its plan; its lookup is written so that only the stream's
-- index can answer it without a sort (the latest version below the new one, read backwards), a plan that stays
-- right on an empty log. The rule is the one of 001: the previous version must exist.
CREATE OR REPLACE FUNCTION ledger.chain_event() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    v_previous_version bigint;
BEGIN
    IF NEW.stream_version = 1 THEN
        NEW.previous_hash := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    ELSE
        SELECT hash, stream_version INTO NEW.previous_hash, v_previous_version FROM ledger.events
        WHERE app_id = NEW.app_id AND stream_id = NEW.stream_id AND stream_version < NEW.stream_version
        ORDER BY stream_version DESC LIMIT 1;
        IF v_previous_version IS DISTINCT FROM NEW.stream_version - 1 THEN
            RAISE EXCEPTION 'stream % of app % has no version % to follow', NEW.stream_id, NEW.app_id, NEW.stream_version - 1
                USING ERRCODE = 'P0002', HINT = 'append with the stream''s current version';
        END IF;
    END IF;
    NEW.hash := ledger.event_hash(NEW.previous_hash, NEW.app_id, NEW.position, NEW.stream_id, NEW.stream_version,
        NEW.event_type, NEW.schema_version, NEW.payload, NEW.metadata, NEW.idempotency_key, NEW.occurred_at, NEW.recorded_at);
    RETURN NEW;
END
$$;
