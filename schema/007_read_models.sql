-- Read models: each projection's state in its own typed tables, keyed by tenant first (docs/read-models.md says what
-- every column means). The projection workers keep them current from the log, a batch of events per transaction,
-- each table written with one statement per batch; `ledger replay --rebuild` folds the log in memory and writes
-- fresh copies with COPY, then swaps them in. Everything here can be rebuilt from ledger.events.
--
-- `fold_state` is the reducer's whole state (its last-writer-wins registers and their stamps), from which the next
-- event folds; the other columns are derived from it for queries. A rebuild leaves it NULL (writing it would cost
-- more than the rest of the rebuild): the state is then folded again from the row's stream when an event or a read
-- first needs it. `last_position` is the greatest log position folded into the row.

-- The subscription_status projection: one row per auto-renewable subscription (original transaction id).
CREATE TABLE ledger.subscriptions (
    app_id                  text        NOT NULL,
    original_transaction_id text        NOT NULL,
    owner_app_user_id       text,
    product_id              text,
    subscription_group_id   text,
    -- As Apple last reported it (active, inGracePeriod, inBillingRetry, expired:<reason>, revoked, refunded); NULL
    -- while only identity facts are known. The API judges it against the clock (an active row past expires_at has
    -- lapsed).
    status                  text,
    expires_at              timestamptz,
    grace_expires_at        timestamptz,
    auto_renew              boolean,
    next_product_id         text,
    offer_type              text,
    offer_id                text,
    environment             text,
    price_increase          text,
    latest_transaction_id   text,
    activated_at            timestamptz,
    family_shared           boolean     NOT NULL,
    fold_state              jsonb,
    last_position           bigint      NOT NULL,
    CONSTRAINT subscriptions_pkey PRIMARY KEY (app_id, original_transaction_id)
);
CREATE INDEX subscriptions_owner ON ledger.subscriptions (app_id, owner_app_user_id);

-- The purchases projection: one row per purchase that is not an App Store subscription (consumables,
-- non-consumables, non-renewing subscriptions, external purchases).
CREATE TABLE ledger.purchases (
    app_id                  text        NOT NULL,
    original_transaction_id text        NOT NULL,
    owner_app_user_id       text,
    product_id              text,
    product_type            text,
    transaction_id          text,
    purchased_at            timestamptz,
    expires_at              timestamptz,
    environment             text,
    price_milliunits        bigint,
    price_currency          text,
    developer_payload       text,
    quantity                integer,
    -- 'appStore' or 'external:<provider>'.
    source                  text,
    consumed_at             timestamptz,
    -- valid, refunded or revoked (NULL: nothing said).
    standing                text,
    fold_state              jsonb,
    last_position           bigint      NOT NULL,
    CONSTRAINT purchases_pkey PRIMARY KEY (app_id, original_transaction_id)
);
CREATE INDEX purchases_owner ON ledger.purchases (app_id, owner_app_user_id);

-- The paying_users projection, in two tables. paying_purchases: who owns each purchase that paid or was claimed
-- (the owner claim with its stamp, so that a later, weaker claim cannot win).
CREATE TABLE ledger.paying_purchases (
    app_id                  text        NOT NULL,
    original_transaction_id text        NOT NULL,
    owner_app_user_id       text,
    owner_strong            boolean,
    owner_claimed_at        timestamptz,
    owner_claim_rank        integer,
    owner_claim_tie         text,
    last_position           bigint      NOT NULL,
    CONSTRAINT paying_purchases_pkey PRIMARY KEY (app_id, original_transaction_id)
);

-- paying_users: one row per purchase and month it was paid in (Production purchases and renewals, UTC months).
-- app_user_id is who counts: the owner, else the user the paying event carried, else 'otx:<id>'; transaction_id is
-- the payment that makes the month count (the smallest paying transaction id). The month's paying users of an app
-- are count(DISTINCT app_user_id): what invoices bill.
CREATE TABLE ledger.paying_users (
    app_id                  text        NOT NULL,
    month                   text        NOT NULL,
    original_transaction_id text        NOT NULL,
    app_user_id             text        NOT NULL,
    carried_app_user_id     text,
    transaction_id          text        NOT NULL,
    CONSTRAINT paying_users_pkey PRIMARY KEY (app_id, original_transaction_id, month)
);
CREATE INDEX paying_users_user ON ledger.paying_users (app_id, month, app_user_id);

-- The JSON states are gone: the workers (or `ledger migrate`) build the tables above from the log.
DROP TABLE ledger.projection_state;
DELETE FROM ledger.projection_checkpoints;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT, UPDATE, DELETE ON ledger.subscriptions, ledger.purchases, ledger.paying_purchases,
            ledger.paying_users TO ledger_service;
    END IF;
END
$$;
