-- Webhooks to backends (docs/webhooks.md): endpoints per app, one delivery per (endpoint, event), every attempt.
--
-- The fan-out follows the log in commit-safe order behind the projections (its checkpoint is webhook_fanout) and
-- writes, in the transaction that moves its checkpoint, one delivery per matching endpoint with the payload it will
-- send on every attempt: a crash re-runs the batch, and the unique keys make that harmless. Dispatchers then send each
-- endpoint's deliveries in order per `order_key` (the app user, or the purchase while it has no owner): only the
-- lowest pending sequence of a key is sent, so the next waits until the previous succeeded or was given up. One
-- instance dispatches an endpoint at a time: it holds the endpoint's lease (lease_owner / lease_until) and renews it.

CREATE TABLE ledger.webhook_endpoints (
    app_id              text        NOT NULL REFERENCES ledger.apps (id),
    endpoint_id         text        NOT NULL,
    url                 text        NOT NULL CHECK (url ~ '^https?://'),
    description         text,
    -- Ledger event types to send; empty: every type.
    event_types         text[]      NOT NULL DEFAULT '{}',
    environments        text[]      NOT NULL CHECK (environments <@ ARRAY['production', 'sandbox'] AND environments <> '{}'),
    -- Standard Webhooks secrets (`whsec_` + base64). During a rotation the previous one signs too, until it expires.
    secret              text        NOT NULL,
    previous_secret     text,
    previous_secret_expires_at timestamptz,
    status              text        NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
    -- Why it is disabled: by an operator, or automatically after failing for days.
    disabled_reason     text,
    -- The first failure since the last success (NULL while healthy): an endpoint failing too long is disabled.
    failing_since       timestamptz,
    lease_owner         text,
    lease_until         timestamptz,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT webhook_endpoints_pkey PRIMARY KEY (app_id, endpoint_id)
);

CREATE TABLE ledger.webhook_deliveries (
    app_id            text        NOT NULL,
    endpoint_id       text        NOT NULL,
    -- The `webhook-id` header: the same on every attempt, so a receiver deduplicates retries.
    delivery_id       text        NOT NULL,
    position          bigint      NOT NULL,
    event_type        text        NOT NULL,
    app_user_id       text,
    order_key         text        NOT NULL,
    sequence          bigint      NOT NULL CHECK (sequence > 0),
    previous_sequence bigint,
    -- The exact body sent (JSON); its `timestamp` is when the delivery was made, fixed across retries.
    payload           text        NOT NULL,
    status            text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'given_up')),
    attempts          integer     NOT NULL DEFAULT 0,
    next_attempt_at   timestamptz NOT NULL DEFAULT now(),
    created_at        timestamptz NOT NULL DEFAULT now(),
    first_attempt_at  timestamptz,
    finished_at       timestamptz,
    CONSTRAINT webhook_deliveries_pkey PRIMARY KEY (app_id, endpoint_id, delivery_id),
    CONSTRAINT webhook_deliveries_once UNIQUE (app_id, endpoint_id, position),
    CONSTRAINT webhook_deliveries_sequence UNIQUE (app_id, endpoint_id, order_key, sequence),
    CONSTRAINT webhook_deliveries_endpoint FOREIGN KEY (app_id, endpoint_id)
        REFERENCES ledger.webhook_endpoints (app_id, endpoint_id) ON DELETE CASCADE
);
-- The dispatcher's question: each key's lowest pending sequence.
CREATE INDEX webhook_deliveries_pending ON ledger.webhook_deliveries (app_id, endpoint_id, order_key, sequence)
    WHERE status = 'pending';
CREATE INDEX webhook_deliveries_created ON ledger.webhook_deliveries (app_id, endpoint_id, created_at);

CREATE TABLE ledger.webhook_attempts (
    app_id        text        NOT NULL,
    endpoint_id   text        NOT NULL,
    delivery_id   text        NOT NULL,
    attempt       integer     NOT NULL CHECK (attempt > 0),
    attempted_at  timestamptz NOT NULL,
    -- NULL when no HTTP answer came (refused, timed out, blocked address).
    status_code   integer,
    latency_ms    integer     NOT NULL,
    error         text,
    CONSTRAINT webhook_attempts_pkey PRIMARY KEY (app_id, endpoint_id, delivery_id, attempt),
    CONSTRAINT webhook_attempts_delivery FOREIGN KEY (app_id, endpoint_id, delivery_id)
        REFERENCES ledger.webhook_deliveries (app_id, endpoint_id, delivery_id) ON DELETE CASCADE
);

-- The fan-out's place in the log (one row).
CREATE TABLE ledger.webhook_fanout (
    singleton      boolean     PRIMARY KEY DEFAULT true CHECK (singleton),
    transaction_id xid8        NOT NULL,
    position       bigint      NOT NULL,
    updated_at     timestamptz NOT NULL DEFAULT now()
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.webhook_endpoints, ledger.webhook_deliveries, ledger.webhook_attempts,
            ledger.webhook_fanout TO ledger_service;
    END IF;
END
$$;
