-- Tenancy and configuration: billing accounts, their apps, the apps' API keys and product catalogs.
--
-- These are configuration, not facts: they are mutable rows (a key is revoked, a product gets another
-- entitlement), while everything that happened to purchases stays in ledger.events. Every event's app_id is an
-- apps.id; the event log keeps no foreign key to it so that an export can be imported before its apps exist.

CREATE TABLE ledger.accounts (
    id         text        PRIMARY KEY,
    name       text        NOT NULL CHECK (name <> ''),
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ledger.apps (
    id                       text        PRIMARY KEY,
    account_id               text        NOT NULL REFERENCES ledger.accounts (id),
    name                     text        NOT NULL CHECK (name <> ''),
    bundle_id                text        NOT NULL CHECK (bundle_id <> ''),
    apple_app_id             bigint      CHECK (apple_app_id > 0),
    transfer_policy          text        NOT NULL CHECK (transfer_policy IN ('transfer', 'transfer_if_no_active', 'keep_and_refuse')),
    allow_xcode              boolean     NOT NULL DEFAULT false,
    app_account_token_policy text        NOT NULL DEFAULT 'ignore' CHECK (app_account_token_policy IN ('ignore', 'token_is_app_user_id')),
    created_at               timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX apps_account ON ledger.apps (account_id);

-- Keys are shown once, at creation; only their SHA-256 is kept, so a copy of the database reveals no usable key.
CREATE TABLE ledger.api_keys (
    id         text        PRIMARY KEY,
    app_id     text        NOT NULL REFERENCES ledger.apps (id),
    kind       text        NOT NULL CHECK (kind IN ('public', 'secret')),
    name       text,
    key_hash   bytea       NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE INDEX api_keys_app ON ledger.api_keys (app_id);

CREATE TABLE ledger.products (
    app_id             text        NOT NULL REFERENCES ledger.apps (id),
    product_id         text        NOT NULL CHECK (product_id <> ''),
    product_type       text        NOT NULL CHECK (product_type IN ('consumable', 'non_consumable', 'non_renewing', 'auto_renewable')),
    subscription_group text,
    entitlements       text[]      NOT NULL DEFAULT '{}',
    updated_at         timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (app_id, product_id)
);

-- Server-wide secrets shared by every instance (the key that signs `uid` cookies), created on first use.
CREATE TABLE ledger.server_secrets (
    name       text        PRIMARY KEY,
    secret     bytea       NOT NULL CHECK (octet_length(secret) >= 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT ON ledger.accounts, ledger.apps, ledger.server_secrets TO ledger_service;
        GRANT SELECT, INSERT, UPDATE ON ledger.api_keys, ledger.products TO ledger_service;
    END IF;
END
$$;
