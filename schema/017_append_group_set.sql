-- Group commit, set-based (Benchmarks/README.md, "where an append's time goes").
--
-- With the committer's linger (GroupCommitQueue) closed-loop writers now form groups of about four, but the group
-- function of 012 still ran each append on its own: a call of ledger.append_events per append, each with its key
-- lookup, stream-head lookup and INSERT. The common group (every append to a stream of its own, no key recorded
-- yet, every expected version holding) now takes one key lookup, one head lookup and one INSERT for all its appends.
-- Any other group (a duplicate, a version conflict, two appends to one stream, one key twice, an empty append) runs
-- as before, append by append, with the same answers; so does a group of one, which the caller sends to
-- ledger.append_events itself.
-- The chain trigger still checks and hashes every row.
--
-- The group function of 012 stays, renamed, as the append-by-append path.
ALTER FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    RENAME TO append_events_one_by_one;

CREATE FUNCTION ledger.append_events_group(
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

-- As 012 and 011 for the function of each append: generic plans, and only the indexes made for the lookups.
ALTER FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET enable_seqscan = off;
