-- Operators (README "Operators"): the people who act on the admin side, each with a role. A password is kept only as
-- its bcrypt hash (cost 12 or more); the time-based one-time password's secret is sealed (AES-GCM) under the
-- installation's master key, never stored in the clear. totp_last_step is the newest time step a code was accepted
-- for, so a code is accepted once. A disabled operator keeps its row (the record names it) and signs in no more.
CREATE TABLE ledger.operators (
    operator_id     text        NOT NULL,
    name            text        NOT NULL,
    role            text        NOT NULL CHECK (role IN ('auditor', 'support', 'finance', 'admin')),
    password_hash   text        NOT NULL,
    totp_sealed     bytea,
    totp_last_step  bigint      NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL,
    disabled_at     timestamptz,
    CONSTRAINT operators_pkey PRIMARY KEY (operator_id),
    CONSTRAINT operators_name_key UNIQUE (name),
    -- admin and finance sign in with a one-time password too.
    CONSTRAINT operators_second_factor CHECK (role IN ('auditor', 'support') OR totp_sealed IS NOT NULL)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE ON ledger.operators TO ledger_service;
    END IF;
END
$$;

-- A console session is an operator's (its role read from ledger.operators at every request, so a disabled operator's
-- session stops at once, on every instance), or a break-glass session of LEDGER_ADMIN_TOKEN (operator_id NULL).
ALTER TABLE ledger.console_sessions
    ADD COLUMN operator_id text REFERENCES ledger.operators (operator_id),
    ADD COLUMN role text NOT NULL DEFAULT 'admin' CHECK (role IN ('auditor', 'support', 'finance', 'admin'));
