-- The App Store reconciliation `serve` runs once a day per app, and the consumption requests it answers (README "App Store Server API").
--
-- One row per app is the lease that makes it run once across instances: an instance claims a run by moving
-- started_at forward in one statement that only succeeds when the previous run started at least a day ago, so
-- of several instances ticking at once exactly one wins. The row also keeps the last run's outcome, so every
-- instance can expose it in /metrics.

CREATE TABLE ledger.appstore_reconcile_runs (
    app_id        text        NOT NULL REFERENCES ledger.apps (id),
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    succeeded     boolean,
    seen          integer     NOT NULL DEFAULT 0,
    missed        integer     NOT NULL DEFAULT 0,
    error         text,
    -- The start of the last run that succeeded: the next run covers the notifications since (with a day's overlap).
    last_success_started_at timestamptz,
    CONSTRAINT appstore_reconcile_runs_pkey PRIMARY KEY (app_id)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE ON ledger.appstore_reconcile_runs TO ledger_service;
    END IF;
END
$$;

-- Apple's consumption requests that `serve` answers for apps that opted in: found by this small partial index instead
-- of a scan of the app's whole log at every check (an answer is found by its idempotency key).
CREATE INDEX events_consumption_requests ON ledger.events (app_id, position) WHERE event_type = 'transaction.consumption_requested';
