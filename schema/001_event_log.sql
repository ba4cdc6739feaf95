-- The append-only event log (SPEC §3).
--
-- Every unique key starts with app_id (the tenant), so the table can be distributed by app_id (Citus) unchanged.
-- position: global order of insertion (gaps are normal: a rolled-back insert consumes a number).
-- transaction_id: the inserting transaction; readers take only rows whose transaction is older than every
--   transaction still running (pg_snapshot_xmin), ordered by (transaction_id, position), so an event whose
--   transaction commits late is never skipped.
-- previous_hash / hash: a SHA-256 chain per stream, computed by the trigger below and re-checked, outside the
--   database, by `ledger verify`.

CREATE TABLE ledger.events (
    app_id          text        NOT NULL,
    position        bigint      GENERATED ALWAYS AS IDENTITY,
    transaction_id  xid8        NOT NULL DEFAULT pg_current_xact_id(),
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL CHECK (stream_version >= 1),
    event_type      text        NOT NULL,
    schema_version  integer     NOT NULL DEFAULT 1 CHECK (schema_version >= 1),
    payload         jsonb       NOT NULL,
    metadata        jsonb       NOT NULL DEFAULT '{}',
    idempotency_key text        NOT NULL,
    occurred_at     timestamptz NOT NULL,
    recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
    previous_hash   bytea       NOT NULL,
    hash            bytea       NOT NULL,
    CONSTRAINT events_pkey PRIMARY KEY (app_id, position),
    CONSTRAINT events_stream_version_key UNIQUE (app_id, stream_id, stream_version),
    CONSTRAINT events_idempotency_key UNIQUE (app_id, idempotency_key),
    CONSTRAINT events_ids_not_empty CHECK (app_id <> '' AND stream_id <> '' AND event_type <> '' AND idempotency_key <> '')
);

CREATE INDEX events_transaction_order ON ledger.events (transaction_id, position);
CREATE INDEX events_app_transaction_order ON ledger.events (app_id, transaction_id, position);
CREATE INDEX events_position ON ledger.events (position);

-- One length-prefixed field of the hashed encoding: 4-byte big-endian byte length, then the UTF-8 bytes.
CREATE FUNCTION ledger.hash_field(value text) RETURNS bytea
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT int4send(octet_length(value)) || convert_to(value, 'UTF8') $$;

-- The hash of one event. `ledger verify` recomputes exactly this encoding in Swift (EventHash.swift), so a
-- replaced function cannot vouch for altered rows.
CREATE FUNCTION ledger.event_hash(
    previous_hash bytea, app_id text, event_position bigint, stream_id text, stream_version bigint,
    event_type text, schema_version integer, payload jsonb, metadata jsonb, idempotency_key text,
    occurred_at timestamptz, recorded_at timestamptz
) RETURNS bytea
LANGUAGE sql STABLE STRICT PARALLEL SAFE
AS $$
    SELECT sha256(
        previous_hash
        || ledger.hash_field(app_id)
        || int8send(event_position)
        || ledger.hash_field(stream_id)
        || int8send(stream_version)
        || ledger.hash_field(event_type)
        || int4send(schema_version)
        || ledger.hash_field(payload::text)
        || ledger.hash_field(metadata::text)
        || ledger.hash_field(idempotency_key)
        || int8send((extract(epoch FROM occurred_at) * 1000000)::bigint)
        || int8send((extract(epoch FROM recorded_at) * 1000000)::bigint)
    )
$$;

-- Links each new event to the previous one of its stream. Rows inserted earlier by the same statement are
-- visible here, so one multi-row INSERT chains a whole batch.
CREATE FUNCTION ledger.chain_event() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.stream_version = 1 THEN
        NEW.previous_hash := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    ELSE
        SELECT hash INTO NEW.previous_hash FROM ledger.events
        WHERE app_id = NEW.app_id AND stream_id = NEW.stream_id AND stream_version = NEW.stream_version - 1;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'stream % of app % has no version % to follow', NEW.stream_id, NEW.app_id, NEW.stream_version - 1
                USING ERRCODE = 'P0002', HINT = 'append with the stream''s current version';
        END IF;
    END IF;
    NEW.hash := ledger.event_hash(NEW.previous_hash, NEW.app_id, NEW.position, NEW.stream_id, NEW.stream_version,
        NEW.event_type, NEW.schema_version, NEW.payload, NEW.metadata, NEW.idempotency_key, NEW.occurred_at, NEW.recorded_at);
    RETURN NEW;
END
$$;

CREATE TRIGGER events_chain BEFORE INSERT ON ledger.events
    FOR EACH ROW EXECUTE FUNCTION ledger.chain_event();

-- Immutability, enforced by the database for everyone (superusers included, unless they disable triggers,
-- which `ledger verify` then detects through the hash chain).
CREATE FUNCTION ledger.refuse_event_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP
        USING ERRCODE = '42501', HINT = 'record a new event that corrects the earlier one instead';
END
$$;

CREATE TRIGGER events_refuse_update_delete BEFORE UPDATE OR DELETE ON ledger.events
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();
CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON ledger.events
    FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();

-- The role the service works as: it may read and append events, never change them.
-- Creating it needs CREATEROLE; without it the service runs as the connecting user (still held by the triggers).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        CREATE ROLE ledger_service NOLOGIN;
    END IF;
EXCEPTION
    WHEN insufficient_privilege THEN RAISE NOTICE 'cannot create role ledger_service; the triggers still protect ledger.events';
    WHEN duplicate_object OR unique_violation THEN NULL; -- another database of this cluster created it meanwhile
END
$$;

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT USAGE ON SCHEMA ledger TO ledger_service;
        GRANT SELECT, INSERT ON ledger.events TO ledger_service;
        REVOKE UPDATE, DELETE, TRUNCATE ON ledger.events FROM ledger_service;
        GRANT SELECT ON ledger.schema_migrations TO ledger_service;
        BEGIN
            EXECUTE format('GRANT ledger_service TO %I', current_user);
        EXCEPTION WHEN insufficient_privilege OR invalid_grant_operation THEN NULL;
        END;
    END IF;
END
$$;

REVOKE UPDATE, DELETE, TRUNCATE ON ledger.events FROM PUBLIC;
