-- Every instance caches API keys, apps and catalogs (TenancyCache). Whatever changes them (the API on any instance,
-- the CLI, an operator's SQL) tells the instances at once: a NOTIFY on ledger_tenancy naming the table, sent when
-- the change commits. The caches also expire after a second, so a notification lost while a listener reconnects
-- leaves nothing stale for longer.
CREATE FUNCTION ledger.notify_tenancy_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_notify('ledger_tenancy', TG_TABLE_NAME);
    RETURN NULL;
END
$$;

CREATE TRIGGER api_keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ledger.api_keys
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.notify_tenancy_change();
CREATE TRIGGER apps_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ledger.apps
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.notify_tenancy_change();
CREATE TRIGGER products_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ledger.products
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.notify_tenancy_change();
