-- The append functions in statements that name their app in each scan of the log, so that Citus sends each one to
-- the worker holding the app (Deploy/SCALE-OUT.md). Answers and plans on a single node are those of 011 and 017.
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
-- installed the events are inserted one row at a time, and a group runs append by append (a group holds one app's
-- appends there: GroupCommitQueue); without Citus, as before, in one statement (a row at a time costs about 17 µs
-- more per event here).
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

CREATE OR REPLACE FUNCTION ledger.append_events_group(
    p_apps text[], p_streams text[], p_expected bigint[], p_counts integer[],
    p_types text[], p_schema_versions bigint[], p_payloads text[], p_metadata text[], p_keys text[], p_occurred_micros bigint[]
) RETURNS TABLE (out_append integer, out_key text, out_position bigint, out_version bigint, out_appended boolean)
LANGUAGE plpgsql
AS $$
DECLARE
    v_appends integer := coalesce(cardinality(p_apps), 0);
    v_owner integer[];
    v_heads bigint[];
BEGIN
    IF to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL THEN
        RETURN QUERY
            SELECT * FROM ledger.append_events_one_by_one(p_apps, p_streams, p_expected, p_counts, p_types, p_schema_versions,
                                                          p_payloads, p_metadata, p_keys, p_occurred_micros);
        RETURN;
    END IF;

    -- The append of each event, in event order.
    SELECT array_agg(g.i ORDER BY g.i, k.n) INTO v_owner
    FROM generate_subscripts(p_counts, 1) AS g(i), generate_series(1, p_counts[g.i]) AS k(n);

    IF v_appends > 1
       AND NOT (0 = ANY(p_counts))
       AND cardinality(v_owner) = cardinality(p_keys)
       AND (SELECT count(DISTINCT (s.app, s.stream)) FROM unnest(p_apps, p_streams) AS s(app, stream)) = v_appends
       AND (SELECT count(DISTINCT (p_apps[k.i], k.key)) FROM unnest(p_keys, v_owner) AS k(key, i)) = cardinality(p_keys)
       AND NOT EXISTS (
           SELECT 1
           FROM (SELECT e.app_id, e.idempotency_key FROM ledger.events e WHERE e.idempotency_key = ANY(p_keys) OFFSET 0) AS x
           JOIN unnest(p_keys, v_owner) AS k(key, i) ON k.key = x.idempotency_key AND p_apps[k.i] = x.app_id)
    THEN
        SELECT array_agg(coalesce((SELECT e.stream_version FROM ledger.events e
                                   WHERE e.app_id = p_apps[g.i] AND e.stream_id = p_streams[g.i]
                                   ORDER BY e.stream_version DESC LIMIT 1), 0) ORDER BY g.i)
        INTO v_heads
        FROM generate_subscripts(p_apps, 1) AS g(i);
        IF NOT EXISTS (SELECT 1 FROM generate_subscripts(p_apps, 1) AS g(i)
                       WHERE p_expected[g.i] IS NOT NULL AND p_expected[g.i] <> v_heads[g.i]) THEN
            RETURN QUERY
                WITH inserted AS (
                    INSERT INTO ledger.events AS e (app_id, stream_id, stream_version, event_type, schema_version, payload,
                                                    metadata, idempotency_key, occurred_at)
                    SELECT p_apps[f.i], p_streams[f.i], v_heads[f.i] + row_number() OVER (PARTITION BY f.i ORDER BY f.n),
                           f.type, f.schema_version::integer, f.payload::jsonb, f.metadata::jsonb, f.key,
                           'epoch'::timestamptz + f.micros * interval '1 microsecond'
                    FROM unnest(p_types, p_schema_versions, p_payloads, p_metadata, p_keys, p_occurred_micros, v_owner)
                         WITH ORDINALITY AS f(type, schema_version, payload, metadata, key, micros, i, n)
                    ORDER BY f.n
                    RETURNING e.app_id, e.stream_id, e.idempotency_key, e.position, e.stream_version)
                SELECT s.i::integer, inserted.idempotency_key, inserted.position, inserted.stream_version, true
                FROM inserted
                JOIN unnest(p_apps, p_streams) WITH ORDINALITY AS s(app, stream, i)
                  ON s.app = inserted.app_id AND s.stream = inserted.stream_id;
            RETURN;
        END IF;
    END IF;

    RETURN QUERY
        SELECT * FROM ledger.append_events_one_by_one(p_apps, p_streams, p_expected, p_counts, p_types, p_schema_versions,
                                                      p_payloads, p_metadata, p_keys, p_occurred_micros);
END
$$;

-- As before (CREATE OR REPLACE drops a function's settings): generic plans, and only the indexes made for the lookups.
ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    SET enable_seqscan = off;
ALTER FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET enable_seqscan = off;
