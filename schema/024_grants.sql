-- The grants projection: each app user's support grants (README "Support grants"), folded from the
-- user.grant_given and user.grant_revoked events of the user's own stream. One row per user who was ever given a
-- grant; `grants` is what the per-user views read (every grant with its expiry and revocation, as JSON),
-- `fold_state` what the next event folds from (NULL after a rebuild).
CREATE TABLE ledger.user_grants (
    app_id        text   NOT NULL,
    app_user_id   text   NOT NULL,
    grants        jsonb  NOT NULL,
    fold_state    jsonb,
    last_position bigint NOT NULL,
    CONSTRAINT user_grants_pkey PRIMARY KEY (app_id, app_user_id)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.user_grants TO ledger_service;
    END IF;
END
$$;
