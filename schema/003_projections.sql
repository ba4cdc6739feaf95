-- Projection state, kept current from the log by the projection workers (LedgerStore/Projections).
-- Each projection keeps one JSON state per key (user, original transaction, month…) per app, and one checkpoint:
-- the last event applied, in the log's commit-safe order. A worker writes states and checkpoint in one transaction,
-- so a crash never applies an event twice or skips one. Everything here can be rebuilt from ledger.events.

CREATE TABLE ledger.projection_state (
    app_id        text    NOT NULL,
    projection    text    NOT NULL,
    key           text    NOT NULL,
    state         jsonb   NOT NULL,
    last_position bigint  NOT NULL,
    CONSTRAINT projection_state_pkey PRIMARY KEY (app_id, projection, key)
);

-- Per-user views are queries over one owner's rows (subscriptions and purchases are keyed by original transaction
-- id, because Apple's notifications carry no user and restores move whole histories between users).
CREATE INDEX projection_state_owner ON ledger.projection_state (app_id, projection, (state #>> '{owner,appUserID}'));

-- One row per projection (not per tenant): in a Citus cluster this is a reference table.
CREATE TABLE ledger.projection_checkpoints (
    projection     text        PRIMARY KEY,
    transaction_id xid8        NOT NULL DEFAULT '0',
    position       bigint      NOT NULL DEFAULT 0,
    updated_at     timestamptz NOT NULL DEFAULT now()
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.projection_state, ledger.projection_checkpoints TO ledger_service;
    END IF;
END
$$;
