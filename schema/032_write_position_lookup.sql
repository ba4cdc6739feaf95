-- Read-your-writes finds where a write's newest event sits in log order (ProjectionVisibility): one lookup per
-- write, by position. As a statement of the service's connections it was planned once per connection, generically;
-- a connection that planned it before the log's first ANALYZE (a new install, a new database) kept a sequential
-- scan of the whole log for every write until autovacuum analyzed the table. Inside a function, with sequential
-- scans off as for the appends (011), the position index answers it whatever the statistics say.
--
-- The app is compared in the scan under the collation "C", as in 031: no index starting with app_id can answer
-- the comparison (so the position index stays the one that does), and Citus routes the lookup to the app's worker.
-- `OFFSET 0` plans the lookup apart from the ordering: otherwise the log-order index, read backwards from the newest
-- event until the write's events turn up, looks cheaper for `LIMIT 1` (and reads the whole log for an old write).
CREATE FUNCTION ledger.newest_of_positions(p_app text, p_positions bigint[])
RETURNS TABLE (out_transaction_id xid8, out_position bigint)
LANGUAGE plpgsql STABLE
AS $$
BEGIN
    RETURN QUERY
        SELECT w.transaction_id, w.position FROM (
            SELECT e.transaction_id, e.position FROM ledger.events e
            WHERE e.position = ANY(p_positions) AND e.app_id = p_app COLLATE "C" OFFSET 0) AS w
        ORDER BY w.transaction_id DESC, w.position DESC LIMIT 1;
END
$$;

ALTER FUNCTION ledger.newest_of_positions(text, bigint[]) SET plan_cache_mode = force_generic_plan;
ALTER FUNCTION ledger.newest_of_positions(text, bigint[]) SET enable_seqscan = off;
