-- Status reads from typed columns alone: every value a per-user view reads (`SubscriptionSummary`,
-- `PurchaseSummary`) gets a column, so a read is one query and never decodes `fold_state` or folds the log (a
-- rebuild leaves `fold_state` NULL).

ALTER TABLE ledger.subscriptions
    ADD COLUMN offer_payment_mode      text,
    ADD COLUMN offer_period            text,
    ADD COLUMN app_transaction_id      text,
    ADD COLUMN billing_plan_type       text,
    ADD COLUMN commitment              jsonb,
    ADD COLUMN products_ever_purchased text[] NOT NULL DEFAULT '{}';

ALTER TABLE ledger.purchases
    ADD COLUMN family_shared           boolean NOT NULL DEFAULT false;

-- The rows written before have no values for these columns: the workers (or `ledger migrate`) fold the two read
-- models again from the log.
TRUNCATE ledger.subscriptions, ledger.purchases;
DELETE FROM ledger.projection_checkpoints WHERE projection IN ('subscription_status', 'purchases');
