-- Statistics for tables that start empty, as soon as they hold rows (FirstStatistics.swift). Without column
-- statistics PostgreSQL rates every equality alike, so the service's generic plans pick the smallest index that
-- matches any leading column (for webhook_deliveries, whose indexes all start with (app_id, endpoint_id), the update
-- of one delivery read every delivery of the endpoint) and keep it until autovacuum's first ANALYZE, up to a minute
-- after the first rows. The service's role does not own the tables, so it asks this function: it analyzes only the
-- tables it names, only while they have no column statistics, and only once they hold p_minimum_rows (a sample too small
-- would make every column look unique) and 16 pages (a table smaller is read whole more cheaply than through an index,
-- and a plan made then would go on reading it whole as it grows). True once the table has statistics (or needs none
-- from here).
CREATE FUNCTION ledger.first_statistics(p_table regclass, p_minimum_rows integer) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog
AS $$
DECLARE
    v_rows bigint;
BEGIN
    IF p_table NOT IN ('ledger.webhook_deliveries'::regclass, 'ledger.webhook_attempts'::regclass) THEN
        RAISE EXCEPTION 'ledger.first_statistics analyzes only the tables it names, not %', p_table;
    END IF;
    -- On Citus the shards are the workers' tables: their own autovacuum analyzes them.
    IF to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL THEN
        RETURN true;
    END IF;
    -- Column statistics, not whether it was ever analyzed: an ANALYZE of the whole database while the table was
    -- still empty (a restore, a maintenance script) leaves none, and the plans just as they were.
    IF EXISTS (
        SELECT FROM pg_stats s JOIN pg_namespace n ON n.nspname = s.schemaname JOIN pg_class c ON c.relnamespace = n.oid
        WHERE c.oid = p_table AND s.tablename = c.relname
    ) THEN
        RETURN true;
    END IF;
    EXECUTE format('SELECT count(*) FROM (SELECT 1 FROM %s LIMIT %s) AS sample', p_table, p_minimum_rows) INTO v_rows;
    IF v_rows < p_minimum_rows OR pg_relation_size(p_table) < 16 * 8192 THEN
        RETURN false;
    END IF;
    EXECUTE format('ANALYZE %s', p_table);
    RETURN true;
END
$$;

REVOKE ALL ON FUNCTION ledger.first_statistics(regclass, integer) FROM PUBLIC;
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT EXECUTE ON FUNCTION ledger.first_statistics(regclass, integer) TO ledger_service;
    END IF;
END
$$;
