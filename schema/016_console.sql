-- The console (README "Console", Sources/LedgerConsole): its sign-in sessions and the record of who did what.
--
-- A session is found by the SHA-256 of its cookie's token, so the table alone does not let anyone sign in. Each
-- session has its own CSRF token, which every form of the console carries back; it ends at expires_at or at sign-out.
CREATE TABLE ledger.console_sessions (
    token_hash  bytea       NOT NULL,
    actor       text        NOT NULL,
    csrf_token  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    CONSTRAINT console_sessions_pkey PRIMARY KEY (token_hash)
);
CREATE INDEX console_sessions_expiry ON ledger.console_sessions (expires_at);

-- Every write made through the console (finalize, void, revoke a key, redeliver a webhook; sign-in and sign-out),
-- with the person who signed in. Append-only like the event log: rows are never changed or removed.
CREATE TABLE ledger.console_actions (
    action_id   bigint      GENERATED ALWAYS AS IDENTITY,
    at          timestamptz NOT NULL,
    actor       text        NOT NULL,
    action      text        NOT NULL,
    target      text        NOT NULL,
    detail      text        NOT NULL DEFAULT '',
    CONSTRAINT console_actions_pkey PRIMARY KEY (action_id)
);
CREATE TRIGGER console_actions_refuse_update_delete BEFORE UPDATE OR DELETE ON ledger.console_actions
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();
CREATE TRIGGER console_actions_refuse_truncate BEFORE TRUNCATE ON ledger.console_actions
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.console_sessions TO ledger_service;
        GRANT SELECT, INSERT ON ledger.console_actions TO ledger_service;
    END IF;
END
$$;
