-- The tenancy NOTIFY (008) is sent once, by the node the instances listen on. On Citus (Deploy/SCALE-OUT.md) a
-- trigger fires on each placement of a table, and a worker cannot prepare (two-phase commit) a transaction that sent
-- a NOTIFY, so a change to a reference table failed there; nobody listens on a worker anyway. The coordinator's
-- placement sends it, named after the table rather than its shard (`apps`, not `apps_102009`). Without Citus the
-- function is 008's. A change to `products` (distributed: its shard is on a worker) is then not announced on Citus;
-- the caches' one-second expiry covers it.
CREATE OR REPLACE FUNCTION ledger.notify_tenancy_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    v_on_coordinator boolean := true;
BEGIN
    IF to_regproc('pg_catalog.citus_is_coordinator') IS NOT NULL THEN
        EXECUTE 'SELECT pg_catalog.citus_is_coordinator()' INTO v_on_coordinator;
    END IF;
    IF v_on_coordinator THEN
        PERFORM pg_notify('ledger_tenancy', regexp_replace(TG_TABLE_NAME, '_[0-9]+$', ''));
    END IF;
    RETURN NULL;
END
$$;
