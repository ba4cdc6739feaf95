-- Appends at the database's pace (Benchmarks/README.md, "where an append's time goes").
--
-- 1. The chain trigger hashes with one expression. Through ledger.event_hash, ledger.hash_field (its argument is
--    used twice, and `payload::text` is too costly to repeat) was not inlined: PostgreSQL parsed and planned that SQL
--    function again in every transaction, a third of an append's time. The encoding is exactly event_hash's (which
--    stays, and which `ledger verify` recomputes in Swift); the tests check every stored hash against it.
-- 2. The append function keeps generic plans: with its custom plans PostgreSQL planned each statement of each call.
--    Sequential scans are off in it (011), so the generic plans use the indexes made for them.
-- 3. Group commit, below.

-- The rule is 009's: the previous version must exist.
CREATE OR REPLACE FUNCTION ledger.chain_event() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    v_previous_version bigint;
    v_payload text := NEW.payload::text;
    v_metadata text := NEW.metadata::text;
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
    NEW.hash := sha256(NEW.previous_hash
        || int4send(octet_length(NEW.app_id)) || convert_to(NEW.app_id, 'UTF8')
        || int8send(NEW.position)
        || int4send(octet_length(NEW.stream_id)) || convert_to(NEW.stream_id, 'UTF8')
        || int8send(NEW.stream_version)
        || int4send(octet_length(NEW.event_type)) || convert_to(NEW.event_type, 'UTF8')
        || int4send(NEW.schema_version)
        || int4send(octet_length(v_payload)) || convert_to(v_payload, 'UTF8')
        || int4send(octet_length(v_metadata)) || convert_to(v_metadata, 'UTF8')
        || int4send(octet_length(NEW.idempotency_key)) || convert_to(NEW.idempotency_key, 'UTF8')
        || int8send((extract(epoch FROM NEW.occurred_at) * 1000000)::bigint)
        || int8send((extract(epoch FROM NEW.recorded_at) * 1000000)::bigint));
    RETURN NEW;
END
$$;

ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    SET plan_cache_mode = force_generic_plan;

-- Group commit: several appends, to different streams, in one statement and so in one transaction and one commit.
--
-- Each append keeps its own rules: its duplicates answer with their original positions, its expected version is
-- checked against its own stream, and a version conflict is answered as a row for that append alone (never raised),
-- so one refused append never fails another. Appends to one stream run in their order, each after the one before.
-- An error that is raised (a unique violation from a concurrent
-- writer, a value PostgreSQL refuses) aborts the whole statement; the caller then retries the group, or runs its
-- appends one by one so that the error reaches only the append that caused it.
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
