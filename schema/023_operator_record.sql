-- The operator record (README "Operators"): every operator action through the console, the admin API or the CLI
-- (sign-in, failed sign-in, each write, token and operator changes, break-glass uses), with who acted (operator id
-- and name, '' for none), the role used, the channel, the source address and the request id.
--
-- It is as tamper-evident as the event log: one SHA-256 chain over all rows (seq 1, 2, 3… without gaps), computed by
-- the trigger below and recomputed outside the database by `ledger verify` (OperatorActionHash.swift); signed
-- digests (ledger.operator_action_digests) fix its length and head so a removed tail or a re-hashed chain is found.
-- Rows are never changed or removed. Appends take turns on an advisory lock held to commit, so seq order is commit
-- order and a digest reading the newest row sees a gapless prefix.
CREATE TABLE ledger.operator_actions (
    seq             bigint      NOT NULL,
    at              timestamptz NOT NULL,
    operator_id     text        NOT NULL DEFAULT '',
    actor           text        NOT NULL,
    role            text        NOT NULL DEFAULT '',
    channel         text        NOT NULL CHECK (channel IN ('console', 'api', 'cli')),
    action          text        NOT NULL,
    target          text        NOT NULL DEFAULT '',
    detail          text        NOT NULL DEFAULT '',
    source_address  text        NOT NULL DEFAULT '',
    request_id      text        NOT NULL DEFAULT '',
    previous_hash   bytea       NOT NULL,
    hash            bytea       NOT NULL,
    CONSTRAINT operator_actions_pkey PRIMARY KEY (seq)
);
CREATE INDEX operator_actions_by_operator ON ledger.operator_actions (operator_id, seq);
CREATE INDEX operator_actions_by_action ON ledger.operator_actions (action, seq);
CREATE INDEX operator_actions_by_time ON ledger.operator_actions (at);

-- The hash of one row; OperatorActionHash.swift recomputes exactly this encoding (text fields as the events' are:
-- 4-byte big-endian byte length, then the UTF-8 bytes).
CREATE FUNCTION ledger.operator_action_hash(
    previous_hash bytea, seq bigint, at timestamptz, operator_id text, actor text, role text, channel text,
    action text, target text, detail text, source_address text, request_id text
) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$
    SELECT sha256(
        previous_hash
        || int8send(seq)
        || int8send((extract(epoch FROM at) * 1000000)::bigint)
        || int4send(octet_length(operator_id)) || convert_to(operator_id, 'UTF8')
        || int4send(octet_length(actor)) || convert_to(actor, 'UTF8')
        || int4send(octet_length(role)) || convert_to(role, 'UTF8')
        || int4send(octet_length(channel)) || convert_to(channel, 'UTF8')
        || int4send(octet_length(action)) || convert_to(action, 'UTF8')
        || int4send(octet_length(target)) || convert_to(target, 'UTF8')
        || int4send(octet_length(detail)) || convert_to(detail, 'UTF8')
        || int4send(octet_length(source_address)) || convert_to(source_address, 'UTF8')
        || int4send(octet_length(request_id)) || convert_to(request_id, 'UTF8')
    )
$$;

CREATE FUNCTION ledger.chain_operator_action() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    head record;
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('ledger.operator_actions'));
    SELECT a.seq, a.hash INTO head FROM ledger.operator_actions a ORDER BY a.seq DESC LIMIT 1;
    IF NOT FOUND THEN
        NEW.seq := 1;
        NEW.previous_hash := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    ELSE
        NEW.seq := head.seq + 1;
        NEW.previous_hash := head.hash;
    END IF;
    NEW.hash := ledger.operator_action_hash(NEW.previous_hash, NEW.seq, NEW.at, NEW.operator_id, NEW.actor, NEW.role,
        NEW.channel, NEW.action, NEW.target, NEW.detail, NEW.source_address, NEW.request_id);
    RETURN NEW;
END
$$;

CREATE TRIGGER operator_actions_chain BEFORE INSERT ON ledger.operator_actions
    FOR EACH ROW EXECUTE FUNCTION ledger.chain_operator_action();
CREATE TRIGGER operator_actions_refuse_update_delete BEFORE UPDATE OR DELETE ON ledger.operator_actions
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();
CREATE TRIGGER operator_actions_refuse_truncate BEFORE TRUNCATE ON ledger.operator_actions
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();

-- Signed statements of the record's length and head, as ledger.chain_digests are of each app's log.
CREATE TABLE ledger.operator_action_digests (
    digest_id     bigint      GENERATED ALWAYS AS IDENTITY,
    action_count  bigint      NOT NULL,
    head_hash     bytea       NOT NULL,
    created_at    timestamptz NOT NULL,
    public_key    bytea       NOT NULL,
    signature     bytea       NOT NULL,
    CONSTRAINT operator_action_digests_pkey PRIMARY KEY (digest_id)
);
CREATE TRIGGER operator_action_digests_refuse_update_delete BEFORE UPDATE OR DELETE ON ledger.operator_action_digests
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();
CREATE TRIGGER operator_action_digests_refuse_truncate BEFORE TRUNCATE ON ledger.operator_action_digests
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();

-- The console's earlier record (016) moves into the chain, oldest first, as console actions of unknown role; its
-- table then goes (the chain now holds every row it had).
INSERT INTO ledger.operator_actions (at, actor, channel, action, target, detail)
SELECT at, actor, 'console', action, target, detail FROM ledger.console_actions ORDER BY action_id;
DROP TABLE ledger.console_actions;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT ON ledger.operator_actions, ledger.operator_action_digests TO ledger_service;
    END IF;
END
$$;
