-- Failed sign-ins, per subject: a name typed at sign-in (`name:<text>`, whether or not such an operator exists, so
-- the answers reveal nothing) and a source address (`address:<ip>`). `SignInThrottle` decides from a row whether an
-- attempt may be checked now; an admin lifts a lock by deleting the row (`ledger operators unlock`).
CREATE TABLE ledger.sign_in_throttle (
    subject          text        NOT NULL,
    failures         integer     NOT NULL,
    last_failure_at  timestamptz NOT NULL,
    locked_until     timestamptz,
    CONSTRAINT sign_in_throttle_pkey PRIMARY KEY (subject)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.sign_in_throttle TO ledger_service;
    END IF;
END
$$;
