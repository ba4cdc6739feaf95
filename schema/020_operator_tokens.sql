-- Operators' API tokens for the admin API (README "Operators"): each shown once when made, kept only as the SHA-256
-- of its text, with the role it carries (its operator's, or auditor's: read-only), an expiry, and revocable. A token
-- works only while its operator is enabled; the operator's role is read with it at every request.
CREATE TABLE ledger.operator_tokens (
    token_id     text        NOT NULL,
    operator_id  text        NOT NULL REFERENCES ledger.operators (operator_id),
    token_hash   bytea       NOT NULL,
    name         text        NOT NULL DEFAULT '',
    role         text        NOT NULL CHECK (role IN ('auditor', 'support', 'finance', 'admin')),
    created_at   timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    revoked_at   timestamptz,
    CONSTRAINT operator_tokens_pkey PRIMARY KEY (token_id),
    CONSTRAINT operator_tokens_hash_key UNIQUE (token_hash)
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE ON ledger.operator_tokens TO ledger_service;
    END IF;
END
$$;
