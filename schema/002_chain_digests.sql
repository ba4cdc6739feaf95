-- Signed digests of the log (SPEC §3.5). The hash chain finds edits and gaps, but not the removal of a stream's
-- newest events, nor a forger who recomputes hashes. A digest, signed with an Ed25519 key kept outside the database,
-- fixes for one app: how many events, and the head (version, hash) of every stream, among the events of transactions
-- below `horizon` (the snapshot xmin when it was taken: that set can never change again in an append-only log).
-- `ledger verify` recomputes the newest digest of every app and checks its signature.

CREATE TABLE ledger.chain_digests (
    app_id       text        NOT NULL,
    digest_id    bigint      GENERATED ALWAYS AS IDENTITY,
    horizon      xid8        NOT NULL,
    event_count  bigint      NOT NULL,
    heads_hash   bytea       NOT NULL,
    created_at   timestamptz NOT NULL,
    public_key   bytea       NOT NULL,
    signature    bytea       NOT NULL,
    CONSTRAINT chain_digests_pkey PRIMARY KEY (app_id, digest_id)
);

CREATE TRIGGER chain_digests_refuse_update_delete BEFORE UPDATE OR DELETE ON ledger.chain_digests
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();
CREATE TRIGGER chain_digests_refuse_truncate BEFORE TRUNCATE ON ledger.chain_digests
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT ON ledger.chain_digests TO ledger_service;
    END IF;
END
$$;
