-- The keys that protect personal data, and the one place an app user id is stored (docs/erasure.md).
--
-- keyring: installation-wide keys, each sealed under the master key (LedgerPrivacy's SecretBox); `blind-index` keys
-- the HMAC that finds a user's pseudonym from their id. It survives master key rotations (they re-seal it).
CREATE TABLE ledger.keyring (
    name        text        NOT NULL PRIMARY KEY,
    sealed      bytea       NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

-- data_keys: 256-bit keys, one per subject ('user:<pseudonym>', 'purchase:<original transaction id>'), each sealed
-- under the master key. Erasure destroys a key by setting `sealed` to NULL; the row stays, naming when.
CREATE TABLE ledger.data_keys (
    app_id       text        NOT NULL,
    key_id       text        NOT NULL,
    subject      text        NOT NULL,
    sealed       bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    destroyed_at timestamptz,
    CONSTRAINT data_keys_pkey PRIMARY KEY (app_id, key_id),
    CONSTRAINT data_keys_subject UNIQUE (app_id, subject),
    CONSTRAINT data_keys_destroyed CHECK ((sealed IS NULL) = (destroyed_at IS NOT NULL))
);

-- identities: an app user's pseudonym (random, `usr_…`), the keyed blind index of their id (HMAC-SHA-256 under the
-- keyring's `blind-index` key) and their id sealed under their data key. Erased: both NULL, `erased_at` set.
CREATE TABLE ledger.identities (
    app_id          text        NOT NULL,
    pseudonym       text        NOT NULL,
    blind_index     bytea,
    sealed_user_id  bytea,
    key_id          text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    erased_at       timestamptz,
    CONSTRAINT identities_pkey PRIMARY KEY (app_id, pseudonym),
    CONSTRAINT identities_erased CHECK ((blind_index IS NULL) = (erased_at IS NOT NULL))
);
CREATE UNIQUE INDEX identities_blind_index ON ledger.identities (app_id, blind_index) WHERE blind_index IS NOT NULL;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE ON ledger.keyring, ledger.data_keys, ledger.identities TO ledger_service;
    END IF;
END
$$;
