-- Signed statements of the log's rewrites (docs/erasure.md, "Upgrading"): `ledger migrate --seal-history` rewrites a log
-- written before pseudonyms (schema 025) into pseudonyms and sealed fields, recomputes the hash chain, and records
-- here, signed with the digest key, each app's event count and stream-heads hash before and after. `statement` is the
-- exact JSON text signed (`LogRewriteStatement`); `ledger verify` checks the signature and recomputes the "after"
-- side from the rows below the statement's horizon.

CREATE TABLE ledger.log_rewrites (
    rewrite_id  bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    statement   text        NOT NULL,
    public_key  bytea       NOT NULL,
    signature   bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TRIGGER log_rewrites_refuse_update_delete BEFORE UPDATE OR DELETE ON ledger.log_rewrites
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();
CREATE TRIGGER log_rewrites_refuse_truncate BEFORE TRUNCATE ON ledger.log_rewrites
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT ON ledger.log_rewrites TO ledger_service;
    END IF;
END
$$;
