-- Read-your-writes finds where a write's newest event sits in log order (ProjectionVisibility): one lookup per
-- write, by position. As a statement of the service's connections it was planned once per connection, generically;
-- a connection that planned it before the log's first ANALYZE (a new install, a new database) kept a sequential
-- scan of the whole log for every write until autovacuum analyzed the table. Inside a function, with sequential
-- scans off as for the appends (011), the position index answers it whatever the statistics say.
--
-- The app is compared in the scan under the collation "C", as in 031: no index starting with app_id can answer
-- the comparison (so the position index stays the one that does), and Citus routes the lookup to the app's worker.
-- The newest of the (few) events is picked here rather than by `ORDER BY … LIMIT 1`: with that, the log-order index
-- read backwards from the newest event until the write's events turn up looked cheaper (and read the whole log for
-- an old write), and Citus cannot plan the ordered statement generically.
CREATE FUNCTION ledger.newest_of_positions(p_app text, p_positions bigint[])
RETURNS TABLE (out_transaction_id xid8, out_position bigint)
LANGUAGE plpgsql STABLE
AS $$
DECLARE
    v_transaction_id xid8;
    v_position bigint;
BEGIN
    FOR v_transaction_id, v_position IN
        SELECT e.transaction_id, e.position FROM ledger.events e
        WHERE e.position = ANY(p_positions) AND e.app_id = p_app COLLATE "C"
    LOOP
        IF out_position IS NULL OR (v_transaction_id, v_position) > (out_transaction_id, out_position) THEN
            out_transaction_id := v_transaction_id;
            out_position := v_position;
        END IF;
    END LOOP;
    IF out_position IS NOT NULL THEN
        RETURN NEXT;
    END IF;
END
$$;

ALTER FUNCTION ledger.newest_of_positions(text, bigint[]) SET enable_seqscan = off;
-- Generic plans as the appends have them, except on Citus: it routes the lookup by the app's value, which a generic
-- plan does not have (it refuses to plan one). Deploy/citus/distribute.sql resets it too, for a database that gets
-- Citus after this migration.
DO $$
BEGIN
    IF to_regproc('pg_catalog.citus_is_coordinator') IS NULL THEN
        ALTER FUNCTION ledger.newest_of_positions(text, bigint[]) SET plan_cache_mode = force_generic_plan;
    END IF;
END
$$;
