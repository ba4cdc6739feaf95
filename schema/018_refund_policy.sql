-- Each app's refund policy: the refundPreference of its answers to Apple's CONSUMPTION_REQUESTs (README "App Store Server
-- API"). Existing apps get the default, by_consumption: decline what was delivered and fully used, prorate what was partly
-- used, grant what was not delivered or not used at all.
ALTER TABLE ledger.apps ADD COLUMN refund_policy text NOT NULL DEFAULT 'by_consumption'
    CHECK (refund_policy IN ('by_consumption', 'always_grant', 'always_decline', 'no_preference'));

-- The admin API changes the policy of an existing app; apps stay insert-only otherwise.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT UPDATE (refund_policy) ON ledger.apps TO ledger_service;
    END IF;
END
$$;
