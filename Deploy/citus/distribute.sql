-- Distributing the ledger's schema with Citus, by tenant (app_id). Run on the coordinator after `ledger migrate`,
-- before the first instance serves. Every table of the schema `ledger` appears here exactly once; the test
-- `CitusReadinessTests` (Tests/LedgerStoreTests) reads this file and fails when a table is missing, when a table
-- distributed by app_id has a unique index or a foreign key that does not start with app_id, or when a table is
-- named before a table it references.

-- Reference tables: small, read on every request before the tenant is known (an API key is found by its hash),
-- copied to every worker.
SELECT create_reference_table('ledger.accounts');
SELECT create_reference_table('ledger.apps');
SELECT create_reference_table('ledger.api_keys');
SELECT create_reference_table('ledger.server_secrets');
SELECT create_reference_table('ledger.price_plans');
SELECT create_reference_table('ledger.account_plans');
SELECT create_reference_table('ledger.invoice_numbers');
SELECT create_reference_table('ledger.invoices');
-- The operators, the console's sign-in sessions and its record of who did what: across tenants.
SELECT create_reference_table('ledger.operators');
SELECT create_reference_table('ledger.operator_tokens');
SELECT create_reference_table('ledger.sign_in_throttle');
SELECT create_reference_table('ledger.console_sessions');
SELECT create_reference_table('ledger.operator_actions');
SELECT create_reference_table('ledger.operator_action_digests');
SELECT create_reference_table('ledger.keyring');
-- The signed statements of the log's rewrites (`ledger migrate --seal-history`): one per rewrite, naming every app.
SELECT create_reference_table('ledger.log_rewrites');

-- Tenant tables, distributed by app_id and co-located (one tenant's log, read models and webhooks on one worker).
-- The webhook tables reference one another, and Citus distributes no table that a table not yet distributed
-- references: their two foreign keys are dropped here and added again below, once all three are co-located (each
-- check then stays on one worker).
ALTER TABLE ledger.webhook_attempts DROP CONSTRAINT webhook_attempts_delivery;
ALTER TABLE ledger.webhook_deliveries DROP CONSTRAINT webhook_deliveries_endpoint;
SELECT create_distributed_table('ledger.events', 'app_id');
SELECT create_distributed_table('ledger.chain_digests', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.products', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.subscriptions', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.purchases', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.paying_purchases', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.paying_users', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.user_grants', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.data_keys', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.identities', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.erasures', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.webhook_endpoints', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.webhook_deliveries', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.webhook_attempts', 'app_id', colocate_with => 'ledger.events');
SELECT create_distributed_table('ledger.appstore_reconcile_runs', 'app_id', colocate_with => 'ledger.events');
ALTER TABLE ledger.webhook_deliveries ADD CONSTRAINT webhook_deliveries_endpoint FOREIGN KEY (app_id, endpoint_id)
    REFERENCES ledger.webhook_endpoints (app_id, endpoint_id) ON DELETE CASCADE;
ALTER TABLE ledger.webhook_attempts ADD CONSTRAINT webhook_attempts_delivery FOREIGN KEY (app_id, endpoint_id, delivery_id)
    REFERENCES ledger.webhook_deliveries (app_id, endpoint_id, delivery_id) ON DELETE CASCADE;

-- Coordinator-only bookkeeping: one row per projection, one cursor of the webhook fan-out, the latest rebuild's
-- progress, the schema's own history.
SELECT citus_add_local_table_to_metadata('ledger.projection_checkpoints');
SELECT citus_add_local_table_to_metadata('ledger.webhook_fanout');
SELECT citus_add_local_table_to_metadata('ledger.rebuild_progress');
SELECT citus_add_local_table_to_metadata('ledger.schema_migrations');

-- The append functions run on the coordinator and send each statement to the app's worker; Citus routes a statement
-- by the app's value, which a generic plan does not have (it refuses to plan one), so these functions plan each
-- call as PostgreSQL chooses rather than always generically (schema/012, 031). The set-based group function (034)
-- is not called on Citus (GroupCommitter).
ALTER FUNCTION ledger.append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[])
    RESET plan_cache_mode;
ALTER FUNCTION ledger.append_events_one_by_one(text[], text[], bigint[], integer[], text[], bigint[], text[], text[], text[], bigint[])
    RESET plan_cache_mode;
-- Read-your-writes' lookup of a write's events (schema/032), for the same reason.
ALTER FUNCTION ledger.newest_of_positions(text, bigint[]) RESET plan_cache_mode;
