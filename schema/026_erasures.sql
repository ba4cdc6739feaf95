-- Erased users (docs/erasure.md): one row per erasure, holding the signed certificate it answered, so that erasing
-- again answers the same one. `suppression` is a keyed hash of the app user id (HMAC under a key derived from the
-- blind-index key, so it is not the blind index): it lets the ledger answer `user_erased` for the id and keep new
-- facts about the user's purchases under the erased pseudonym, and says nothing without the key and the id.
CREATE TABLE ledger.erasures (
    app_id       text        NOT NULL,
    pseudonym    text        NOT NULL,
    suppression  bytea       NOT NULL,
    certificate  jsonb       NOT NULL,
    reason       text        NOT NULL,
    erased_by    text        NOT NULL,
    erased_at    timestamptz NOT NULL,
    CONSTRAINT erasures_pkey PRIMARY KEY (app_id, pseudonym),
    CONSTRAINT erasures_suppression UNIQUE (app_id, suppression)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT ON ledger.erasures TO ledger_service;
    END IF;
END
$$;
