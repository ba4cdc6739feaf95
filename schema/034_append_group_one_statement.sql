-- Group commit in one statement (Benchmarks/README.md, "The single append's round").
--
-- A group's round is its statement and then its commit's WAL flush, one after the other, so what the statement costs
-- is what the writers wait. 017's group function spent about 0.15 ms of its 0.36 ms (four appends) on its own
-- statements before the INSERT: the event-to-append map, the checks of its input (an append without events, two
-- appends to one stream, one key twice), the key lookup, the head lookup and the expected versions' check, each a
-- statement of its own. The caller knows its input: GroupCommitter now sends each event's append (p_owners, not
-- counts) and sends here only groups whose input is common (AppendStatements.appendGroup). What only the log knows
-- (a key already recorded, a version that does not hold) is checked inside the INSERT: either every event is
-- inserted or none, and no row answered means "run this group append by append" (append_events_one_by_one, 012),
-- which gives every append its own answer (a duplicate, a conflict). Pairs the input check missed could only meet a
-- unique key (two rows for one stream version or one key) and run the group again, as any race does.
-- The chain trigger still checks and hashes every row.
CREATE FUNCTION ledger.append_events_set(
    p_apps text[], p_streams text[], p_expected bigint[], p_owners integer[],
    p_types text[], p_schema_versions bigint[], p_payloads text[], p_metadata text[], p_keys text[], p_occurred_micros bigint[]
) RETURNS TABLE (out_append integer, out_key text, out_position bigint, out_version bigint, out_appended boolean)
LANGUAGE plpgsql
AS $$
BEGIN
    RETURN QUERY
        WITH heads AS (
            SELECT s.i, s.expected,
                   coalesce((SELECT e.stream_version FROM ledger.events e WHERE e.app_id = s.app AND e.stream_id = s.stream
                             ORDER BY e.stream_version DESC LIMIT 1), 0) AS head
            FROM unnest(p_apps, p_streams, p_expected) WITH ORDINALITY AS s(app, stream, expected, i)
        ), inserted AS (
            INSERT INTO ledger.events AS e (app_id, stream_id, stream_version, event_type, schema_version, payload,
                                            metadata, idempotency_key, occurred_at)
            SELECT p_apps[f.i], p_streams[f.i], h.head + row_number() OVER (PARTITION BY f.i ORDER BY f.n),
                   f.type, f.schema_version::integer, f.payload::jsonb, f.metadata::jsonb, f.key,
                   'epoch'::timestamptz + f.micros * interval '1 microsecond'
            FROM unnest(p_types, p_schema_versions, p_payloads, p_metadata, p_keys, p_occurred_micros, p_owners)
                 WITH ORDINALITY AS f(type, schema_version, payload, metadata, key, micros, i, n)
            JOIN heads h ON h.i = f.i
            -- Both conditions are the statement's, not a row's (no reference to f): all rows or none.
            WHERE NOT EXISTS (SELECT 1 FROM heads x WHERE x.expected IS NOT NULL AND x.expected <> x.head)
              AND NOT EXISTS (
                  SELECT 1
                  -- OFFSET 0 keeps the app out of this scan, so that the key's own index answers it (017, 011).
                  FROM (SELECT e.app_id, e.idempotency_key FROM ledger.events e WHERE e.idempotency_key = ANY(p_keys) OFFSET 0) AS x
                  JOIN unnest(p_keys, p_owners) AS k(key, i) ON k.key = x.idempotency_key AND p_apps[k.i] = x.app_id)
            ORDER BY f.n
            RETURNING e.app_id, e.stream_id, e.idempotency_key, e.position, e.stream_version)
        SELECT s.i::integer, inserted.idempotency_key, inserted.position, inserted.stream_version, true
        FROM inserted
        JOIN unnest(p_apps, p_streams) WITH ORDINALITY AS s(app, stream, i)
          ON s.app = inserted.app_id AND s.stream = inserted.stream_id;
END
$$;

-- As 017: generic plans, and only the indexes made for the lookups (the log may be empty and never analyzed).
ALTER FUNCTION ledger.append_events_set(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger.append_events_set(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET enable_seqscan = off;

-- 017's group function is called by no one now. An instance of the previous version still running during an upgrade
-- gets an error for it and runs its group append by append (AppendStatements), so it keeps writing.
DROP FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[]);
