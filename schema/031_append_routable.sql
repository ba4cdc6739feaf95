-- The append function in statements that name their app in each scan of the log, so that Citus sends each one to
-- the worker holding the app (Deploy/SCALE-OUT.md). Answers and plans on a single node are those of 011.
--
-- 011 kept the app's condition out of the idempotency lookup's scan with `OFFSET 0`, so that no index starting with
-- app_id could answer it (on an app the statistics have not seen, they all look as cheap). Citus cannot route a scan
-- whose distribution column is filtered outside it: it read every shard of the log and filtered on the coordinator.
-- The app is now compared in the scan itself, under the collation "C": an index is used for a comparison only under
-- the index's own collation (the database default), so the lookup's index (idempotency_key) is still the only one
-- that can answer it, while Citus prunes to the app's shard. The comparison is the same: equality of text under any
-- deterministic collation is equality of bytes.
--
-- On Citus the log must commit on one worker in one phase (Deploy/SCALE-OUT.md, "the log's order"): Citus commits
-- a one-worker transaction there before the coordinator's, but a two-phase one after it, and the projections read
-- up to the coordinator's horizon. An INSERT … SELECT from arrays is run by Citus through the coordinator with
-- COPY, always in two phases; an INSERT … VALUES of one row goes to the app's worker in one. So where Citus is
-- installed the events are inserted one row at a time (and the group committer calls the append-by-append group
-- function of 012 with one app's appends: GroupCommitter); without Citus, as before, in one statement (a row at a
-- time costs about 17 µs more per event here).
CREATE OR REPLACE FUNCTION ledger.append_events(
    p_app text, p_stream text, p_expected bigint,
    p_types text[], p_schema_versions bigint[], p_payloads text[], p_metadata text[], p_keys text[], p_occurred_micros bigint[]
) RETURNS TABLE (out_key text, out_position bigint, out_version bigint, out_appended boolean)
LANGUAGE plpgsql
AS $$
DECLARE
    v_recorded text[] := '{}';
    v_head bigint;
    v_row_at_a_time boolean := to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL;
BEGIN
    FOR out_key, out_position, out_version IN
        SELECT e.idempotency_key, e.position, e.stream_version
        FROM ledger.events e
        WHERE e.idempotency_key = ANY(p_keys) AND e.app_id = p_app COLLATE "C"
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
    IF NOT v_row_at_a_time THEN
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
        RETURN;
    END IF;
    FOR i IN 1 .. cardinality(p_keys) LOOP
        CONTINUE WHEN p_keys[i] = ANY(v_recorded);
        v_head := v_head + 1;
        INSERT INTO ledger.events AS e (app_id, stream_id, stream_version, event_type, schema_version, payload, metadata,
                                        idempotency_key, occurred_at)
        VALUES (p_app, p_stream, v_head, p_types[i], p_schema_versions[i]::integer, p_payloads[i]::jsonb,
                p_metadata[i]::jsonb, p_keys[i], 'epoch'::timestamptz + p_occurred_micros[i] * interval '1 microsecond')
        RETURNING e.idempotency_key, e.position, e.stream_version INTO out_key, out_position, out_version;
        out_appended := true;
        RETURN NEXT;
    END LOOP;
END
$$;

-- As before (CREATE OR REPLACE drops a function's settings): generic plans, and only the indexes made for the lookups.
ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    SET enable_seqscan = off;
