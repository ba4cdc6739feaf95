-- Where the latest projection rebuild stands (one row): written by the rebuild (`ledger replay`, or the rebuild of
-- missing read models at start) on a connection of its own, read by every `ledger serve` for its metrics
-- (`ledger_rebuild_*`), so a rebuild run from another process shows on the dashboards.
CREATE TABLE ledger.rebuild_progress (
    singleton         boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    projections       text        NOT NULL,
    status            text        NOT NULL CHECK (status IN ('running', 'finished', 'failed')),
    events_done       bigint      NOT NULL,
    -- PostgreSQL's estimate of the log's size when the rebuild started (pg_class.reltuples; a count while it has none).
    events_estimated  bigint      NOT NULL,
    started_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE ON ledger.rebuild_progress TO ledger_service;
    END IF;
END
$$;
