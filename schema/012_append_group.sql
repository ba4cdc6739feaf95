-- Appends at the database's pace (Benchmarks/README.md, "where an append's time goes").
--
-- 1. ledger.event_hash is written without ledger.hash_field. The chain trigger's call of event_hash was inlined, but
--    not the six calls of hash_field inside it (its argument is used twice, and `payload::text` is too costly to
--    repeat): PostgreSQL parsed and planned that SQL function again in every transaction (six calls per event in
--    pg_stat_xact_user_functions), a third of an append's time. Now nothing is left to call. The encoding is
--    unchanged (`ledger verify` recomputes it in Swift, and the tests check every stored hash against it).
-- 2. The append function keeps generic plans: with its custom plans PostgreSQL planned each statement of each call.
--    Sequential scans are off in it (011), so the generic plans use the indexes made for them.
-- 3. Group commit, below.
CREATE OR REPLACE FUNCTION ledger.event_hash(
    previous_hash bytea, app_id text, event_position bigint, stream_id text, stream_version bigint,
    event_type text, schema_version integer, payload jsonb, metadata jsonb, idempotency_key text,
    occurred_at timestamptz, recorded_at timestamptz
) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE
AS $$
    SELECT sha256(
        previous_hash
        || int4send(octet_length(app_id)) || convert_to(app_id, 'UTF8')
        || int8send(event_position)
        || int4send(octet_length(stream_id)) || convert_to(stream_id, 'UTF8')
        || int8send(stream_version)
        || int4send(octet_length(event_type)) || convert_to(event_type, 'UTF8')
        || int4send(schema_version)
        || int4send(octet_length(payload::text)) || convert_to(payload::text, 'UTF8')
        || int4send(octet_length(metadata::text)) || convert_to(metadata::text, 'UTF8')
        || int4send(octet_length(idempotency_key)) || convert_to(idempotency_key, 'UTF8')
        || int8send((extract(epoch FROM occurred_at) * 1000000)::bigint)
        || int8send((extract(epoch FROM recorded_at) * 1000000)::bigint)
    )
$$;

DROP FUNCTION ledger.hash_field(text);

ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;

-- Group commit: several appends, to different streams, in one statement and so in one transaction and one commit.
--
-- Each append keeps its own rules: its duplicates answer with their original positions, its expected version is
-- checked against its own stream, and a version conflict is answered as a row for that append alone (never raised),
-- so one refused append never fails another. Appends to one stream run in their order, each after the one before.
-- An error that is raised (a unique violation from a concurrent writer, a value PostgreSQL refuses) aborts the whole
-- statement; the caller then retries the group, or runs its appends one by one so that the error reaches only the
-- append that caused it.
CREATE FUNCTION ledger.append_events_group(
    p_apps text[], p_streams text[], p_expected bigint[], p_counts integer[],
    p_types text[], p_schema_versions bigint[], p_payloads text[], p_metadata text[], p_keys text[], p_occurred_micros bigint[]
) RETURNS TABLE (out_append integer, out_key text, out_position bigint, out_version bigint, out_appended boolean)
LANGUAGE plpgsql
AS $$
DECLARE
    v_first integer := 1;
    v_last integer;
BEGIN
    FOR i IN 1 .. coalesce(cardinality(p_apps), 0) LOOP
        v_last := v_first + p_counts[i] - 1;
        RETURN QUERY
            SELECT i, a.out_key, a.out_position, a.out_version, a.out_appended
            FROM ledger.append_events(p_apps[i], p_streams[i], p_expected[i], p_types[v_first:v_last],
                p_schema_versions[v_first:v_last], p_payloads[v_first:v_last], p_metadata[v_first:v_last],
                p_keys[v_first:v_last], p_occurred_micros[v_first:v_last]) AS a;
        v_first := v_last + 1;
    END LOOP;
END
$$;

ALTER FUNCTION ledger.append_events_group(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;
