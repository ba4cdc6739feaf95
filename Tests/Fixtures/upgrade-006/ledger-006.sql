--
-- PostgreSQL database dump
--


-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: ledger; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA ledger;


--
-- Name: append_events(text, text, bigint, text[], bigint[], text[], text[], text[], bigint[]); Type: FUNCTION; Schema: ledger; Owner: -
--

CREATE FUNCTION ledger.append_events(p_app text, p_stream text, p_expected bigint, p_types text[], p_schema_versions bigint[], p_payloads text[], p_metadata text[], p_keys text[], p_occurred_micros bigint[]) RETURNS TABLE(out_key text, out_position bigint, out_version bigint, out_appended boolean)
    LANGUAGE plpgsql
    AS $$
DECLARE
    v_recorded text[] := '{}';
    v_head bigint;
BEGIN
    FOR out_key, out_position, out_version IN
        SELECT e.idempotency_key, e.position, e.stream_version
        FROM ledger.events e WHERE e.app_id = p_app AND e.idempotency_key = ANY(p_keys)
    LOOP
        out_appended := false;
        v_recorded := v_recorded || out_key;
        RETURN NEXT;
    END LOOP;
    IF cardinality(v_recorded) = cardinality(p_keys) THEN
        RETURN;
    END IF;
    SELECT coalesce(max(e.stream_version), 0) INTO v_head
        FROM ledger.events e WHERE e.app_id = p_app AND e.stream_id = p_stream;
    IF p_expected IS NOT NULL AND p_expected <> v_head THEN
        RETURN QUERY SELECT NULL::text, NULL::bigint, v_head, false;
        RETURN;
    END IF;
    RETURN QUERY
        INSERT INTO ledger.events AS e (app_id, stream_id, stream_version, event_type, schema_version, payload, metadata,
                                        idempotency_key, occurred_at)
        SELECT p_app, p_stream, v_head + row_number() OVER (ORDER BY f.n), f.type, f.schema_version::integer,
               f.payload::jsonb, f.metadata::jsonb, f.key, 'epoch'::timestamptz + f.micros * interval '1 microsecond'
        FROM unnest(p_types, p_schema_versions, p_payloads, p_metadata, p_keys, p_occurred_micros)
             WITH ORDINALITY AS f(type, schema_version, payload, metadata, key, micros, n)
        WHERE f.key <> ALL(v_recorded)
        ORDER BY f.n
        RETURNING e.idempotency_key, e.position, e.stream_version, true;
END
$$;


--
-- Name: chain_event(); Type: FUNCTION; Schema: ledger; Owner: -
--

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


--
-- Name: event_hash(bytea, text, bigint, text, bigint, text, integer, jsonb, jsonb, text, timestamp with time zone, timestamp with time zone); Type: FUNCTION; Schema: ledger; Owner: -
--

CREATE FUNCTION ledger.event_hash(previous_hash bytea, app_id text, event_position bigint, stream_id text, stream_version bigint, event_type text, schema_version integer, payload jsonb, metadata jsonb, idempotency_key text, occurred_at timestamp with time zone, recorded_at timestamp with time zone) RETURNS bytea
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


--
-- Name: hash_field(text); Type: FUNCTION; Schema: ledger; Owner: -
--

CREATE FUNCTION ledger.hash_field(value text) RETURNS bytea
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$ SELECT int4send(octet_length(value)) || convert_to(value, 'UTF8') $$;


--
-- Name: refuse_event_change(); Type: FUNCTION; Schema: ledger; Owner: -
--

CREATE FUNCTION ledger.refuse_event_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % is not allowed', TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP
        USING ERRCODE = '42501', HINT = 'record a new event that corrects the earlier one instead';
END
$$;


--
-- Name: refuse_invoice_change(); Type: FUNCTION; Schema: ledger; Owner: -
--

CREATE FUNCTION ledger.refuse_invoice_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'invoices are never deleted; void the invoice with a replacement instead';
    END IF;
    IF (NEW.id, NEW.account_id, NEW.month, NEW.year, NEW.number, NEW.content, NEW.content_hash, NEW.total_minor,
        NEW.currency, NEW.snapshot::text, NEW.finalized_at, NEW.replaces)
       IS DISTINCT FROM
       (OLD.id, OLD.account_id, OLD.month, OLD.year, OLD.number, OLD.content, OLD.content_hash, OLD.total_minor,
        OLD.currency, OLD.snapshot::text, OLD.finalized_at, OLD.replaces)
       OR OLD.status = 'voided' THEN
        RAISE EXCEPTION 'a finalized invoice is immutable; void it with a replacement instead';
    END IF;
    RETURN NEW;
END
$$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: account_plans; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.account_plans (
    account_id text NOT NULL,
    from_month text NOT NULL,
    plan_id text NOT NULL,
    CONSTRAINT account_plans_from_month_check CHECK ((from_month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'::text))
);


--
-- Name: accounts; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.accounts (
    id text NOT NULL,
    name text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT accounts_name_check CHECK ((name <> ''::text))
);


--
-- Name: api_keys; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.api_keys (
    id text NOT NULL,
    app_id text NOT NULL,
    kind text NOT NULL,
    name text,
    key_hash bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    revoked_at timestamp with time zone,
    CONSTRAINT api_keys_key_hash_check CHECK ((octet_length(key_hash) = 32)),
    CONSTRAINT api_keys_kind_check CHECK ((kind = ANY (ARRAY['public'::text, 'secret'::text])))
);


--
-- Name: apps; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.apps (
    id text NOT NULL,
    account_id text NOT NULL,
    name text NOT NULL,
    bundle_id text NOT NULL,
    apple_app_id bigint,
    transfer_policy text NOT NULL,
    allow_xcode boolean DEFAULT false NOT NULL,
    app_account_token_policy text DEFAULT 'ignore'::text NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT apps_app_account_token_policy_check CHECK ((app_account_token_policy = ANY (ARRAY['ignore'::text, 'token_is_app_user_id'::text]))),
    CONSTRAINT apps_apple_app_id_check CHECK ((apple_app_id > 0)),
    CONSTRAINT apps_bundle_id_check CHECK ((bundle_id <> ''::text)),
    CONSTRAINT apps_name_check CHECK ((name <> ''::text)),
    CONSTRAINT apps_transfer_policy_check CHECK ((transfer_policy = ANY (ARRAY['transfer'::text, 'transfer_if_no_active'::text, 'keep_and_refuse'::text])))
);


--
-- Name: chain_digests; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.chain_digests (
    app_id text NOT NULL,
    digest_id bigint NOT NULL,
    horizon xid8 NOT NULL,
    event_count bigint NOT NULL,
    heads_hash bytea NOT NULL,
    created_at timestamp with time zone NOT NULL,
    public_key bytea NOT NULL,
    signature bytea NOT NULL
);


--
-- Name: chain_digests_digest_id_seq; Type: SEQUENCE; Schema: ledger; Owner: -
--

ALTER TABLE ledger.chain_digests ALTER COLUMN digest_id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ledger.chain_digests_digest_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: events; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.events (
    app_id text NOT NULL,
    "position" bigint NOT NULL,
    transaction_id xid8 DEFAULT pg_current_xact_id() NOT NULL,
    stream_id text NOT NULL,
    stream_version bigint NOT NULL,
    event_type text NOT NULL,
    schema_version integer DEFAULT 1 NOT NULL,
    payload jsonb NOT NULL,
    metadata jsonb DEFAULT '{}'::jsonb NOT NULL,
    idempotency_key text NOT NULL,
    occurred_at timestamp with time zone NOT NULL,
    recorded_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    previous_hash bytea NOT NULL,
    hash bytea NOT NULL,
    CONSTRAINT events_ids_not_empty CHECK (((app_id <> ''::text) AND (stream_id <> ''::text) AND (event_type <> ''::text) AND (idempotency_key <> ''::text))),
    CONSTRAINT events_schema_version_check CHECK ((schema_version >= 1)),
    CONSTRAINT events_stream_version_check CHECK ((stream_version >= 1))
);


--
-- Name: events_position_seq; Type: SEQUENCE; Schema: ledger; Owner: -
--

ALTER TABLE ledger.events ALTER COLUMN "position" ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME ledger.events_position_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: invoice_numbers; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.invoice_numbers (
    year integer NOT NULL,
    last integer NOT NULL
);


--
-- Name: invoices; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.invoices (
    id text NOT NULL,
    account_id text NOT NULL,
    month text NOT NULL,
    year integer NOT NULL,
    number integer NOT NULL,
    status text NOT NULL,
    content text NOT NULL,
    content_hash bytea NOT NULL,
    total_minor bigint NOT NULL,
    currency text NOT NULL,
    snapshot pg_snapshot NOT NULL,
    finalized_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    replaces text,
    voided_at timestamp with time zone,
    void_reason text,
    replaced_by text,
    CONSTRAINT invoices_content_hash_check CHECK ((octet_length(content_hash) = 32)),
    CONSTRAINT invoices_month_check CHECK ((month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'::text)),
    CONSTRAINT invoices_status_check CHECK ((status = ANY (ARRAY['finalized'::text, 'voided'::text])))
);


--
-- Name: price_plans; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.price_plans (
    id text NOT NULL,
    currency text NOT NULL,
    tiers jsonb NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT price_plans_currency_check CHECK ((currency ~ '^[A-Z]{3}$'::text)),
    CONSTRAINT price_plans_id_check CHECK ((id <> ''::text))
);


--
-- Name: products; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.products (
    app_id text NOT NULL,
    product_id text NOT NULL,
    product_type text NOT NULL,
    subscription_group text,
    entitlements text[] DEFAULT '{}'::text[] NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT products_product_id_check CHECK ((product_id <> ''::text)),
    CONSTRAINT products_product_type_check CHECK ((product_type = ANY (ARRAY['consumable'::text, 'non_consumable'::text, 'non_renewing'::text, 'auto_renewable'::text])))
);


--
-- Name: projection_checkpoints; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.projection_checkpoints (
    projection text NOT NULL,
    transaction_id xid8 DEFAULT '0'::xid8 NOT NULL,
    "position" bigint DEFAULT 0 NOT NULL,
    updated_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: projection_state; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.projection_state (
    app_id text NOT NULL,
    projection text NOT NULL,
    key text NOT NULL,
    state jsonb NOT NULL,
    last_position bigint NOT NULL
);


--
-- Name: schema_migrations; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.schema_migrations (
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at timestamp with time zone DEFAULT now() NOT NULL
);


--
-- Name: server_secrets; Type: TABLE; Schema: ledger; Owner: -
--

CREATE TABLE ledger.server_secrets (
    name text NOT NULL,
    secret bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT server_secrets_secret_check CHECK ((octet_length(secret) >= 32))
);


--
-- Data for Name: account_plans; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.account_plans (account_id, from_month, plan_id) FROM stdin;
acct_0551a37d80729908931c33d3	2026-01	upgrade-test
\.


--
-- Data for Name: accounts; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.accounts (id, name, created_at) FROM stdin;
acct_0551a37d80729908931c33d3	Reliability Inc.	2026-11-23 15:44:57.231052+00
\.


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.api_keys (id, app_id, kind, name, key_hash, created_at, revoked_at) FROM stdin;
key_049337e96126d652451aa5e6	app_6ba8bbaf4f46ffa691f9c8d2	secret	\N	\\x29ce842da87012c1a387496208e47b0fa176ce368cfe5eb1f2998d4ff33d827f	2026-11-23 15:44:57.238814+00	\N
key_5052adb1d4b9524be1d85093	app_6ba8bbaf4f46ffa691f9c8d2	public	\N	\\xbfc1956526d21c40d1adeef153c0b72c4f60eb6beb75ca4ed7e5cc7810609d28	2026-11-23 15:44:57.24152+00	\N
\.


--
-- Data for Name: apps; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.apps (id, account_id, name, bundle_id, apple_app_id, transfer_policy, allow_xcode, app_account_token_policy, created_at) FROM stdin;
app_6ba8bbaf4f46ffa691f9c8d2	acct_0551a37d80729908931c33d3	Reliability	com.example.app	1234	transfer	f	token_is_app_user_id	2026-11-23 15:44:57.235311+00
\.


--
-- Data for Name: chain_digests; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.chain_digests (app_id, digest_id, horizon, event_count, heads_hash, created_at, public_key, signature) FROM stdin;
\.


--
-- Data for Name: events; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.events (app_id, "position", transaction_id, stream_id, stream_version, event_type, schema_version, payload, metadata, idempotency_key, occurred_at, recorded_at, previous_hash, hash) FROM stdin;
app_6ba8bbaf4f46ffa691f9c8d2	1	747	otx:1001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"SUBSCRIBED\\",\\"subtype\\":\\"INITIAL_BUY\\",\\"notificationUUID\\":\\"6496f2c4-98df-405d-be24-1044da90675e\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjEwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMTAwMSIsImJ1bmRsZUlkIjoiY29tLmV4YW1wbGUuYXBwIiwicHJvZHVjdElkIjoibW9udGhseSIsInN1YnNjcmlwdGlvbkdyb3VwSWRlbnRpZmllciI6Im1haW4iLCJwdXJjaGFzZURhdGUiOjE3ODA0ODA4MDAwMDAsImV4cGlyZXNEYXRlIjoxNzgzMDcyODAwMDAwLCJxdWFudGl0eSI6MSwidHlwZSI6IkF1dG8tUmVuZXdhYmxlIFN1YnNjcmlwdGlvbiIsImFwcEFjY291bnRUb2tlbiI6IjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMSIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3ODA0ODA4MDEwMDAsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIiwiYXBwVHJhbnNhY3Rpb25JZCI6IjcwNDI4OTU3MjMxMTUxMzg3MSJ9.6RVpGCyLuD3UAUpawFuNxAowpKb8aRB2LYNNqcPyPHc7rfF03Q7QIBorQuNuG48PQI5DiJihqkjvXmPi7ApgMQ\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1780480801000}", "subtype": "INITIAL_BUY", "signedDate": 1780480801000000, "environment": "Production", "notificationType": "SUBSCRIBED", "notificationUUID": "6496f2c4-98df-405d-be24-1044da90675e", "originalTransactionID": "1001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1a"}	notification:6496f2c4-98df-405d-be24-1044da90675e	2026-06-03 10:00:01+00	2026-11-23 15:44:57.2879+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\x3d4bbb6f1da7fb35d25bf8f2911288c2e097c024645ac1d7e9b58d5242cbfbcb
app_6ba8bbaf4f46ffa691f9c8d2	2	747	otx:1001	2	subscription.started	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1780480800000000, "storefront": "USA", "environment": "Production", "expiresDate": 1783072800000000, "familyShared": false, "purchaseDate": 1780480800000000, "transactionID": "1001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000001", "webOrderLineItemID": "20000001001", "subscriptionGroupID": "main", "originalTransactionID": "1001"}, "isResubscribe": false}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1a"}	tx:1001	2026-06-03 10:00:01+00	2026-11-23 15:44:57.28904+00	\\x3d4bbb6f1da7fb35d25bf8f2911288c2e097c024645ac1d7e9b58d5242cbfbcb	\\xc1268275dd9dea0bb15df2902d9ed24fe7ba6a2b8f0f5f5822d2c37cf3180d91
app_6ba8bbaf4f46ffa691f9c8d2	3	747	otx:1001	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1780480800000000, "appUserID": "00000000-0000-4000-8000-000000000001", "originalTransactionIDs": ["1001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1a"}	link:00000000-0000-4000-8000-000000000001:1001:1780480800000000	2026-06-03 10:00:01+00	2026-11-23 15:44:57.289212+00	\\xc1268275dd9dea0bb15df2902d9ed24fe7ba6a2b8f0f5f5822d2c37cf3180d91	\\xb83935606f9e879e18802062b0c209341944d83c6eb5a9140874c47533c335d7
app_6ba8bbaf4f46ffa691f9c8d2	4	752	otx:1001	4	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"DID_RENEW\\",\\"notificationUUID\\":\\"8072987f-4606-4f40-a3ab-b22a13fbb87b\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMTEiLCJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAxIiwid2ViT3JkZXJMaW5lSXRlbUlkIjoiMjAwMDAwMDEwMDExIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc4MzA3MjgwMDAwMCwiZXhwaXJlc0RhdGUiOjE3ODU3NTEyMDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4MzA3MjgwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.akCxEaLvjIAJYyAfeIBC4v5eMzrkRqCjenSCaI1TT59lrQoVED_JF5G41GQqR4R4poAOOaGuIiaR_0fMFRmaoQ\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1783072801000}", "signedDate": 1783072801000000, "environment": "Production", "notificationType": "DID_RENEW", "notificationUUID": "8072987f-4606-4f40-a3ab-b22a13fbb87b", "originalTransactionID": "1001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1b"}	notification:8072987f-4606-4f40-a3ab-b22a13fbb87b	2026-07-03 10:00:01+00	2026-11-23 15:44:57.33535+00	\\xb83935606f9e879e18802062b0c209341944d83c6eb5a9140874c47533c335d7	\\xd40e79a7132e4535d9c7b0ad28602195fd8dff95a1b10f73a06dff67a678b569
app_6ba8bbaf4f46ffa691f9c8d2	5	752	otx:1001	5	subscription.renewed	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1783072800000000, "storefront": "USA", "environment": "Production", "expiresDate": 1785751200000000, "familyShared": false, "purchaseDate": 1783072800000000, "transactionID": "10011", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000001", "webOrderLineItemID": "200000010011", "subscriptionGroupID": "main", "originalTransactionID": "1001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1b"}	tx:10011	2026-07-03 10:00:01+00	2026-11-23 15:44:57.336361+00	\\xd40e79a7132e4535d9c7b0ad28602195fd8dff95a1b10f73a06dff67a678b569	\\xf7494e70727a54d6431a50a1ebb142bbb2171574ffe852b66621abcfcade995d
app_6ba8bbaf4f46ffa691f9c8d2	6	752	otx:1001	6	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1783072800000000, "appUserID": "00000000-0000-4000-8000-000000000001", "originalTransactionIDs": ["1001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1b"}	link:00000000-0000-4000-8000-000000000001:1001:1783072800000000	2026-07-03 10:00:01+00	2026-11-23 15:44:57.336451+00	\\xf7494e70727a54d6431a50a1ebb142bbb2171574ffe852b66621abcfcade995d	\\x200d0b9b9462190ee74bb94f1f39d639fe05b63a98194806bf62cab7b2926efc
app_6ba8bbaf4f46ffa691f9c8d2	7	757	otx:1001	7	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"DID_RENEW\\",\\"notificationUUID\\":\\"5717b629-e8f2-44ef-ac71-ca25efb816d7\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMTIiLCJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAxIiwid2ViT3JkZXJMaW5lSXRlbUlkIjoiMjAwMDAwMDEwMDEyIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc4NTc1MTIwMDAwMCwiZXhwaXJlc0RhdGUiOjE3ODg0Mjk2MDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4NTc1MTIwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.KZEQUQl_p_4cvomo7kTtF6GiMHt-0AO9VPH_PSp-AfMGHw77x7-yd-bxNQtkAlicwHarvw7vQnkoDzTKZXpCag\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1785751201000}", "signedDate": 1785751201000000, "environment": "Production", "notificationType": "DID_RENEW", "notificationUUID": "5717b629-e8f2-44ef-ac71-ca25efb816d7", "originalTransactionID": "1001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1c"}	notification:5717b629-e8f2-44ef-ac71-ca25efb816d7	2026-08-03 10:00:01+00	2026-11-23 15:44:57.355233+00	\\x200d0b9b9462190ee74bb94f1f39d639fe05b63a98194806bf62cab7b2926efc	\\x7a3369ccf2d2a8385e7667f1eee8cac1d4019ffde8be2320158423eb33691e0e
app_6ba8bbaf4f46ffa691f9c8d2	8	757	otx:1001	8	subscription.renewed	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1785751200000000, "storefront": "USA", "environment": "Production", "expiresDate": 1788429600000000, "familyShared": false, "purchaseDate": 1785751200000000, "transactionID": "10012", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000001", "webOrderLineItemID": "200000010012", "subscriptionGroupID": "main", "originalTransactionID": "1001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1c"}	tx:10012	2026-08-03 10:00:01+00	2026-11-23 15:44:57.35604+00	\\x7a3369ccf2d2a8385e7667f1eee8cac1d4019ffde8be2320158423eb33691e0e	\\xb340f176e02be610af876dfafa88e02c3f793a0c5d9b5f3263c21b022597d0e1
app_6ba8bbaf4f46ffa691f9c8d2	9	757	otx:1001	9	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1785751200000000, "appUserID": "00000000-0000-4000-8000-000000000001", "originalTransactionIDs": ["1001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1c"}	link:00000000-0000-4000-8000-000000000001:1001:1785751200000000	2026-08-03 10:00:01+00	2026-11-23 15:44:57.356155+00	\\xb340f176e02be610af876dfafa88e02c3f793a0c5d9b5f3263c21b022597d0e1	\\x5ea596c81840a47702dc249344e13e853f5b34e92828bb9877bcea01c894a758
app_6ba8bbaf4f46ffa691f9c8d2	10	762	otx:1001	10	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"DID_RENEW\\",\\"notificationUUID\\":\\"63befa61-ce43-4801-8739-069d509dd382\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMTMiLCJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAxIiwid2ViT3JkZXJMaW5lSXRlbUlkIjoiMjAwMDAwMDEwMDEzIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc4ODQyOTYwMDAwMCwiZXhwaXJlc0RhdGUiOjE3OTEwMjE2MDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4ODQyOTYwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.rzJUr9DPhpyYPqZdIhiQ8ZWOXQlip3EGblZ9tO2DUjVPhZl3QpF08KbFFSkg85ZrcL9_k7D7T5rm7DNh34g9Fw\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1788429601000}", "signedDate": 1788429601000000, "environment": "Production", "notificationType": "DID_RENEW", "notificationUUID": "63befa61-ce43-4801-8739-069d509dd382", "originalTransactionID": "1001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1d"}	notification:63befa61-ce43-4801-8739-069d509dd382	2026-09-03 10:00:01+00	2026-11-23 15:44:57.380016+00	\\x5ea596c81840a47702dc249344e13e853f5b34e92828bb9877bcea01c894a758	\\xd9328d69998221b084f2b445885bd48eb36844a96a9437951bff8d67e532b6ad
app_6ba8bbaf4f46ffa691f9c8d2	11	762	otx:1001	11	subscription.renewed	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1788429600000000, "storefront": "USA", "environment": "Production", "expiresDate": 1791021600000000, "familyShared": false, "purchaseDate": 1788429600000000, "transactionID": "10013", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000001", "webOrderLineItemID": "200000010013", "subscriptionGroupID": "main", "originalTransactionID": "1001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1d"}	tx:10013	2026-09-03 10:00:01+00	2026-11-23 15:44:57.381073+00	\\xd9328d69998221b084f2b445885bd48eb36844a96a9437951bff8d67e532b6ad	\\x12f0bacdc6f3fb8c80517d0dc30a933f9cf41240d1ee96705576bd70b3172a07
app_6ba8bbaf4f46ffa691f9c8d2	12	762	otx:1001	12	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1788429600000000, "appUserID": "00000000-0000-4000-8000-000000000001", "originalTransactionIDs": ["1001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1d"}	link:00000000-0000-4000-8000-000000000001:1001:1788429600000000	2026-09-03 10:00:01+00	2026-11-23 15:44:57.3812+00	\\x12f0bacdc6f3fb8c80517d0dc30a933f9cf41240d1ee96705576bd70b3172a07	\\xd711ab081092a16b1b5bdd285c4e3ec9721cddbdc747ab66f79814da811439c8
app_6ba8bbaf4f46ffa691f9c8d2	13	767	otx:1001	13	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"DID_CHANGE_RENEWAL_STATUS\\",\\"subtype\\":\\"AUTO_RENEW_DISABLED\\",\\"notificationUUID\\":\\"f68a7713-fe69-4c2c-893c-b51d4ab8fc76\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMTMiLCJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAxIiwid2ViT3JkZXJMaW5lSXRlbUlkIjoiMjAwMDAwMDEwMDEzIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc4ODQyOTYwMDAwMCwiZXhwaXJlc0RhdGUiOjE3OTEwMjE2MDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4OTg5MTIwMDAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.1S-sDwGyR6dqiTMlpCdj15kjgBIW69Vm6OsbTn8e4EIfo9O-8LzBVQQIIu7odcJ6-1TFaR6ZDPg9AyYHfjkYBg\\",\\"signedRenewalInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAxIiwiYXV0b1JlbmV3UHJvZHVjdElkIjoibW9udGhseSIsInByb2R1Y3RJZCI6Im1vbnRobHkiLCJhdXRvUmVuZXdTdGF0dXMiOjAsInJlbmV3YWxQcmljZSI6OTk5MCwiY3VycmVuY3kiOiJVU0QiLCJzaWduZWREYXRlIjoxNzg5ODkxMjAwMDAwLCJlbnZpcm9ubWVudCI6IlByb2R1Y3Rpb24iLCJyZWNlbnRTdWJzY3JpcHRpb25TdGFydERhdGUiOjE3NjcyMjU2MDAwMDAsInJlbmV3YWxEYXRlIjoxNzY5OTA0MDAwMDAwfQ.6Ca1j8MAcTJNfiC9B1hyxk23zC6SgivHwKpBebK6sCBp6IZgIN2Hi73ueEsHcnof6V-1ei85PLrkCzMGP7mDlA\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789891200000}", "subtype": "AUTO_RENEW_DISABLED", "signedDate": 1789891200000000, "environment": "Production", "notificationType": "DID_CHANGE_RENEWAL_STATUS", "notificationUUID": "f68a7713-fe69-4c2c-893c-b51d4ab8fc76", "originalTransactionID": "1001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1e"}	notification:f68a7713-fe69-4c2c-893c-b51d4ab8fc76	2026-09-20 08:00:00+00	2026-11-23 15:44:57.411956+00	\\xd711ab081092a16b1b5bdd285c4e3ec9721cddbdc747ab66f79814da811439c8	\\xfa2a7459dff2854fd891b212c4a8c9e50670ff53d16d2459abd3a18f70b23615
app_6ba8bbaf4f46ffa691f9c8d2	15	772	otx:1001	15	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"EXPIRED\\",\\"subtype\\":\\"VOLUNTARY\\",\\"notificationUUID\\":\\"08a451b9-e4a5-466d-ad4b-4d420820e8be\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMTMiLCJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAxIiwid2ViT3JkZXJMaW5lSXRlbUlkIjoiMjAwMDAwMDEwMDEzIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc4ODQyOTYwMDAwMCwiZXhwaXJlc0RhdGUiOjE3OTEwMjE2MDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAxIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc5MTAyNTIwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.0zkxY8stSKSUY0UPLSkVmdpuX8x6IiLoPNYr5m4MxLUcDlDZMhoGiUdMoYef5kVbmIwuDAupjoaJ1tEuqJHAIg\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1791025201000}", "subtype": "VOLUNTARY", "signedDate": 1791025201000000, "environment": "Production", "notificationType": "EXPIRED", "notificationUUID": "08a451b9-e4a5-466d-ad4b-4d420820e8be", "originalTransactionID": "1001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1f"}	notification:08a451b9-e4a5-466d-ad4b-4d420820e8be	2026-10-03 11:00:01+00	2026-11-23 15:44:57.438962+00	\\xb159ba8970cd5655f6be935e2135834ccf385cd35fb99d6393048b157521fe62	\\xe392abbad3bec43f2b034f7b1dcced49d18c41b7b7d6710d11deac88d93e79ff
app_6ba8bbaf4f46ffa691f9c8d2	14	767	otx:1001	14	subscription.auto_renew_changed	1	{"enabled": false, "subscription": {"appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1789891200000000, "environment": "Production", "subscriptionGroupID": "main", "originalTransactionID": "1001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1e"}	subscription.auto_renew_changed:1001:off:1789891200000000	2026-09-20 08:00:00+00	2026-11-23 15:44:57.416249+00	\\xfa2a7459dff2854fd891b212c4a8c9e50670ff53d16d2459abd3a18f70b23615	\\xb159ba8970cd5655f6be935e2135834ccf385cd35fb99d6393048b157521fe62
app_6ba8bbaf4f46ffa691f9c8d2	31	802	otx:4001	4	purchase.consumed	1	{"appUserID": "00000000-0000-4000-8000-000000000004", "productID": "coins", "consumedAt": 1795448697587597, "transactionID": "4001", "originalTransactionID": "4001"}	{"actor": "key_049337e96126d652451aa5e6", "source": "consume", "request_id": "c8a320f80cbedf9cbc97577609cae25"}	consume:4001	2026-11-23 15:44:57.587597+00	2026-11-23 15:44:57.589366+00	\\xf1564d342ec8eccf3744404ff2d159aff6d7dbbc41208174274baae98725b8c7	\\xfa08c5ef7c98994e6a9a784cfa0eaf004b3efba57e18b9798bb589826c003c67
app_6ba8bbaf4f46ffa691f9c8d2	36	817	otx:pay_7001	1	purchase.external	1	{"price": {"currency": "EUR", "milliunits": 19990}, "provider": "bluesnap", "appUserID": "00000000-0000-4000-8000-000000000007", "paymentID": "pay_7001", "productID": "web_pro", "environment": "Production", "productType": "nonConsumable", "purchasedAt": 1789466400000000}	{"actor": "key_049337e96126d652451aa5e6", "source": "external_purchase", "request_id": "c8a320f80cbedf9cbc97577609cae28"}	external:bluesnap:pay_7001	2026-09-15 10:00:00+00	2026-11-23 15:44:57.634495+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\xb6c944470e31857e3ff8bd2fe3dcdd8600203cabdd971c1a26b8ed083823cada
app_6ba8bbaf4f46ffa691f9c8d2	16	772	otx:1001	16	subscription.expired	1	{"reason": "voluntary", "expiresDate": 1791021600000000, "subscription": {"appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1791025201000000, "environment": "Production", "subscriptionGroupID": "main", "originalTransactionID": "1001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae1f"}	subscription.expired:1001:voluntary:1791025201000000	2026-10-03 11:00:01+00	2026-11-23 15:44:57.439464+00	\\xe392abbad3bec43f2b034f7b1dcced49d18c41b7b7d6710d11deac88d93e79ff	\\x6dd5723fbd624fc8f0cc032034af87af9006b5e1b58b03e416d32a2cc6cc3bf0
app_6ba8bbaf4f46ffa691f9c8d2	17	777	otx:2001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"SUBSCRIBED\\",\\"subtype\\":\\"INITIAL_BUY\\",\\"notificationUUID\\":\\"508dca36-5710-4e3b-9ecb-a0595c7a0538\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMjAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjIwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMjAwMSIsImJ1bmRsZUlkIjoiY29tLmV4YW1wbGUuYXBwIiwicHJvZHVjdElkIjoieWVhcmx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc4OTA0MTYwMDAwMCwiZXhwaXJlc0RhdGUiOjQwOTI3MjQ4MDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAyIiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4OTA0MTYwMTAwMCwib2ZmZXJUeXBlIjoxLCJvZmZlckRpc2NvdW50VHlwZSI6IkZSRUVfVFJJQUwiLCJvZmZlclBlcmlvZCI6IlAxVyIsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIiwiYXBwVHJhbnNhY3Rpb25JZCI6IjcwNDI4OTU3MjMxMTUxMzg3MSJ9.eDiObR_zKuaMt0rM1VtInq1XRnOCEPfNs67NuMzYHyGKzEFyvwfFJ8edGGRFPe7HrjRYGl3Ne_8lJuBhEvebow\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789041601000}", "subtype": "INITIAL_BUY", "signedDate": 1789041601000000, "environment": "Production", "notificationType": "SUBSCRIBED", "notificationUUID": "508dca36-5710-4e3b-9ecb-a0595c7a0538", "originalTransactionID": "2001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae20"}	notification:508dca36-5710-4e3b-9ecb-a0595c7a0538	2026-09-10 12:00:01+00	2026-11-23 15:44:57.455843+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\xaf153fc68b1dde162d3d8eee73935400aa389d0510e72b154eef79bcdd06947c
app_6ba8bbaf4f46ffa691f9c8d2	18	777	otx:2001	2	subscription.started	1	{"transaction": {"offer": {"type": "introductory", "period": "P1W", "paymentMode": "FREE_TRIAL"}, "price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000002", "productID": "yearly", "signedDate": 1789041600000000, "storefront": "USA", "environment": "Production", "expiresDate": 4092724800000000, "familyShared": false, "purchaseDate": 1789041600000000, "transactionID": "2001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000002", "webOrderLineItemID": "20000002001", "subscriptionGroupID": "main", "originalTransactionID": "2001"}, "isResubscribe": false}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae20"}	tx:2001	2026-09-10 12:00:01+00	2026-11-23 15:44:57.456288+00	\\xaf153fc68b1dde162d3d8eee73935400aa389d0510e72b154eef79bcdd06947c	\\xcee647f86ae1dd44e970f448d8fbe5bb57a51dc3a54fe0647b9d41344210dad3
app_6ba8bbaf4f46ffa691f9c8d2	19	777	otx:2001	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1789041600000000, "appUserID": "00000000-0000-4000-8000-000000000002", "originalTransactionIDs": ["2001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae20"}	link:00000000-0000-4000-8000-000000000002:2001:1789041600000000	2026-09-10 12:00:01+00	2026-11-23 15:44:57.456422+00	\\xcee647f86ae1dd44e970f448d8fbe5bb57a51dc3a54fe0647b9d41344210dad3	\\xb9070a6129d33f138503f98183114d6c2f4e9e88f83592d9cf3f01f57bb71532
app_6ba8bbaf4f46ffa691f9c8d2	20	782	otx:3001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"SUBSCRIBED\\",\\"subtype\\":\\"INITIAL_BUY\\",\\"notificationUUID\\":\\"1fdd7dd9-2ae4-4be6-a4c4-3066bda0af17\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMzAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjMwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMzAwMSIsImJ1bmRsZUlkIjoiY29tLmV4YW1wbGUuYXBwIiwicHJvZHVjdElkIjoibW9udGhseSIsInN1YnNjcmlwdGlvbkdyb3VwSWRlbnRpZmllciI6Im1haW4iLCJwdXJjaGFzZURhdGUiOjE3ODg1OTg4MDAwMDAsImV4cGlyZXNEYXRlIjoxNzkxMTkwODAwMDAwLCJxdWFudGl0eSI6MSwidHlwZSI6IkF1dG8tUmVuZXdhYmxlIFN1YnNjcmlwdGlvbiIsImFwcEFjY291bnRUb2tlbiI6IjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMyIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3ODg1OTg4MDEwMDAsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIiwiYXBwVHJhbnNhY3Rpb25JZCI6IjcwNDI4OTU3MjMxMTUxMzg3MSJ9.fLXfTeDGdvgnq4OtaQaTn5NmpDgK-IDFcQr0Q7RBIVR7vCA3VBN4he1ksIXsXds2BcIcxkO-J_6mXAtxYgmJXg\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1788598801000}", "subtype": "INITIAL_BUY", "signedDate": 1788598801000000, "environment": "Production", "notificationType": "SUBSCRIBED", "notificationUUID": "1fdd7dd9-2ae4-4be6-a4c4-3066bda0af17", "originalTransactionID": "3001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae21"}	notification:1fdd7dd9-2ae4-4be6-a4c4-3066bda0af17	2026-09-05 09:00:01+00	2026-11-23 15:44:57.49319+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\x9d720e61bdf79615df551ea73f2f506fcd2a4ad5f2580a5e070320df7a4b5416
app_6ba8bbaf4f46ffa691f9c8d2	21	782	otx:3001	2	subscription.started	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000003", "productID": "monthly", "signedDate": 1788598800000000, "storefront": "USA", "environment": "Production", "expiresDate": 1791190800000000, "familyShared": false, "purchaseDate": 1788598800000000, "transactionID": "3001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000003", "webOrderLineItemID": "20000003001", "subscriptionGroupID": "main", "originalTransactionID": "3001"}, "isResubscribe": false}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae21"}	tx:3001	2026-09-05 09:00:01+00	2026-11-23 15:44:57.493553+00	\\x9d720e61bdf79615df551ea73f2f506fcd2a4ad5f2580a5e070320df7a4b5416	\\x2b7e88ba75e9881cf846526ed2f4ce214214416332b6baa37639b3616bc15dd1
app_6ba8bbaf4f46ffa691f9c8d2	22	782	otx:3001	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1788598800000000, "appUserID": "00000000-0000-4000-8000-000000000003", "originalTransactionIDs": ["3001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae21"}	link:00000000-0000-4000-8000-000000000003:3001:1788598800000000	2026-09-05 09:00:01+00	2026-11-23 15:44:57.493618+00	\\x2b7e88ba75e9881cf846526ed2f4ce214214416332b6baa37639b3616bc15dd1	\\x16b655911d7125d417871e5297ae13ce918bfb739bd677bdd84669ff7343095d
app_6ba8bbaf4f46ffa691f9c8d2	23	787	otx:3001	4	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"REFUND\\",\\"notificationUUID\\":\\"3680cdd8-e93e-44e5-8109-2e8fb3f98234\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMzAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjMwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMzAwMSIsImJ1bmRsZUlkIjoiY29tLmV4YW1wbGUuYXBwIiwicHJvZHVjdElkIjoibW9udGhseSIsInN1YnNjcmlwdGlvbkdyb3VwSWRlbnRpZmllciI6Im1haW4iLCJwdXJjaGFzZURhdGUiOjE3ODg1OTg4MDAwMDAsImV4cGlyZXNEYXRlIjoxNzkxMTkwODAwMDAwLCJxdWFudGl0eSI6MSwidHlwZSI6IkF1dG8tUmVuZXdhYmxlIFN1YnNjcmlwdGlvbiIsImFwcEFjY291bnRUb2tlbiI6IjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMyIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3ODkyMDM2MDEwMDAsInJldm9jYXRpb25EYXRlIjoxNzg5MjAzNjAwMDAwLCJyZXZvY2F0aW9uUmVhc29uIjowLCJlbnZpcm9ubWVudCI6IlByb2R1Y3Rpb24iLCJ0cmFuc2FjdGlvblJlYXNvbiI6IlBVUkNIQVNFIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.MzaUJsgJLJ3rZm01mvBO1Am9X7tmRXcPvVbQthBe169adM4lJBa_hHJ73T8_axoZ8iZBHj5phdeb_mtOL6NubA\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789203601000}", "signedDate": 1789203601000000, "environment": "Production", "notificationType": "REFUND", "notificationUUID": "3680cdd8-e93e-44e5-8109-2e8fb3f98234", "originalTransactionID": "3001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae22"}	notification:3680cdd8-e93e-44e5-8109-2e8fb3f98234	2026-09-12 09:00:01+00	2026-11-23 15:44:57.519684+00	\\x16b655911d7125d417871e5297ae13ce918bfb739bd677bdd84669ff7343095d	\\xc7ff1af7d932a4c4a183ea19d7aede62a3fb2da7927ab5562a9ecac9b43eb222
app_6ba8bbaf4f46ffa691f9c8d2	24	787	otx:3001	5	transaction.refunded	1	{"reason": "0", "refundDate": 1789203600000000, "subscription": {"appUserID": "00000000-0000-4000-8000-000000000003", "productID": "monthly", "signedDate": 1789203601000000, "environment": "Production", "subscriptionGroupID": "main", "originalTransactionID": "3001"}, "transactionID": "3001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae22"}	transaction.refunded:3001:3001:1789203601000000	2026-09-12 09:00:01+00	2026-11-23 15:44:57.519987+00	\\xc7ff1af7d932a4c4a183ea19d7aede62a3fb2da7927ab5562a9ecac9b43eb222	\\x466f47805123f644aa3c9296de54fcf7241a4eea26faf4ade767e2d4e0df7b3b
app_6ba8bbaf4f46ffa691f9c8d2	25	792	otx:4001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"ONE_TIME_CHARGE\\",\\"notificationUUID\\":\\"37514afc-985e-41e5-b48e-e001a41f4b40\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiNDAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjQwMDEiLCJidW5kbGVJZCI6ImNvbS5leGFtcGxlLmFwcCIsInByb2R1Y3RJZCI6ImNvaW5zIiwicHVyY2hhc2VEYXRlIjoxNzg5MjI1MjAwMDAwLCJvcmlnaW5hbFB1cmNoYXNlRGF0ZSI6MTc4OTIyNTIwMDAwMCwicXVhbnRpdHkiOjEsInR5cGUiOiJDb25zdW1hYmxlIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDA0IiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4OTIyNTIwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJQVVJDSEFTRSIsInN0b3JlZnJvbnQiOiJVU0EiLCJzdG9yZWZyb250SWQiOiIxNDM0NDEiLCJwcmljZSI6OTk5MCwiY3VycmVuY3kiOiJVU0QiLCJhcHBUcmFuc2FjdGlvbklkIjoiNzA0Mjg5NTcyMzExNTEzODcxIn0.2_RBTFL259pThV_55JAfnF-xOzNIbnZw5OTu-5LohoX-glura12brvO0o0K4kr7YE8PrPhL-k-KFtR2oMRix2Q\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789225201000}", "signedDate": 1789225201000000, "environment": "Production", "notificationType": "ONE_TIME_CHARGE", "notificationUUID": "37514afc-985e-41e5-b48e-e001a41f4b40", "originalTransactionID": "4001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae23"}	notification:37514afc-985e-41e5-b48e-e001a41f4b40	2026-09-12 15:00:01+00	2026-11-23 15:44:57.552545+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\x21cfe8d3baf6d77c4a5cd45bff32ef050912ff1b260e3c041633059e41a4c9af
app_6ba8bbaf4f46ffa691f9c8d2	26	792	otx:4001	2	purchase.consumable	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000004", "productID": "coins", "signedDate": 1789225200000000, "storefront": "USA", "environment": "Production", "familyShared": false, "purchaseDate": 1789225200000000, "transactionID": "4001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000004", "originalPurchaseDate": 1789225200000000, "originalTransactionID": "4001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae23"}	tx:4001	2026-09-12 15:00:01+00	2026-11-23 15:44:57.552875+00	\\x21cfe8d3baf6d77c4a5cd45bff32ef050912ff1b260e3c041633059e41a4c9af	\\xc17ded633a92043ee67742a03ac6e781b7eb7a352450577cd8414c73a864efe1
app_6ba8bbaf4f46ffa691f9c8d2	27	792	otx:4001	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1789225200000000, "appUserID": "00000000-0000-4000-8000-000000000004", "originalTransactionIDs": ["4001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae23"}	link:00000000-0000-4000-8000-000000000004:4001:1789225200000000	2026-09-12 15:00:01+00	2026-11-23 15:44:57.552938+00	\\xc17ded633a92043ee67742a03ac6e781b7eb7a352450577cd8414c73a864efe1	\\xf1564d342ec8eccf3744404ff2d159aff6d7dbbc41208174274baae98725b8c7
app_6ba8bbaf4f46ffa691f9c8d2	38	827	otx:8001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"SUBSCRIBED\\",\\"subtype\\":\\"INITIAL_BUY\\",\\"notificationUUID\\":\\"96a52c27-7442-4837-8362-b66a05393c93\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiODAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjgwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwODAwMSIsImJ1bmRsZUlkIjoiY29tLmV4YW1wbGUuYXBwIiwicHJvZHVjdElkIjoibW9udGhseSIsInN1YnNjcmlwdGlvbkdyb3VwSWRlbnRpZmllciI6Im1haW4iLCJwdXJjaGFzZURhdGUiOjE3ODk5NzQwMDAwMDAsImV4cGlyZXNEYXRlIjo0MDkzNjU3MjAwMDAwLCJxdWFudGl0eSI6MSwidHlwZSI6IkF1dG8tUmVuZXdhYmxlIFN1YnNjcmlwdGlvbiIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3ODk5NzQwMDEwMDAsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIiwiYXBwVHJhbnNhY3Rpb25JZCI6IjcwNDI4OTU3MjMxMTUxMzg3MSJ9._D2bCY-74ynr-fsMNzIWe0yZcqGYOoelWB77VukSTFKC_tRj1KukbKAg-c7h09hPSO8DrYXCeXGzj1cWvC2D5w\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789974001000}", "subtype": "INITIAL_BUY", "signedDate": 1789974001000000, "environment": "Production", "notificationType": "SUBSCRIBED", "notificationUUID": "96a52c27-7442-4837-8362-b66a05393c93", "originalTransactionID": "8001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2a"}	notification:96a52c27-7442-4837-8362-b66a05393c93	2026-09-21 07:00:01+00	2026-11-23 15:44:57.680833+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\xf180a2c9b9e37ec54db4ac9ccbec339ebb351e35edb985a1069debb7d549273d
app_6ba8bbaf4f46ffa691f9c8d2	28	797	otx:4002	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"ONE_TIME_CHARGE\\",\\"notificationUUID\\":\\"20c3583e-e320-4b8f-a557-b86973346a8f\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiNDAwMiIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjQwMDIiLCJidW5kbGVJZCI6ImNvbS5leGFtcGxlLmFwcCIsInByb2R1Y3RJZCI6ImNvaW5zIiwicHVyY2hhc2VEYXRlIjoxNzg5Mzk4MDAwMDAwLCJvcmlnaW5hbFB1cmNoYXNlRGF0ZSI6MTc4OTM5ODAwMDAwMCwicXVhbnRpdHkiOjEsInR5cGUiOiJDb25zdW1hYmxlIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDA0IiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc4OTM5ODAwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJQVVJDSEFTRSIsInN0b3JlZnJvbnQiOiJVU0EiLCJzdG9yZWZyb250SWQiOiIxNDM0NDEiLCJwcmljZSI6OTk5MCwiY3VycmVuY3kiOiJVU0QiLCJhcHBUcmFuc2FjdGlvbklkIjoiNzA0Mjg5NTcyMzExNTEzODcxIn0.If8LxeaasCa1qJ6jq2FcXzw7k8wQNytv3_gM3V4m04wAm0uNGw7xcuhW6Vt4bzoNHU_sslm7iZLO_Rj7dc85tA\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789398001000}", "signedDate": 1789398001000000, "environment": "Production", "notificationType": "ONE_TIME_CHARGE", "notificationUUID": "20c3583e-e320-4b8f-a557-b86973346a8f", "originalTransactionID": "4002"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae24"}	notification:20c3583e-e320-4b8f-a557-b86973346a8f	2026-09-14 15:00:01+00	2026-11-23 15:44:57.577278+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\xd22de2c8f77a1d713edc1177210acf8223170374ecfed360e1199f8436961836
app_6ba8bbaf4f46ffa691f9c8d2	29	797	otx:4002	2	purchase.consumable	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000004", "productID": "coins", "signedDate": 1789398000000000, "storefront": "USA", "environment": "Production", "familyShared": false, "purchaseDate": 1789398000000000, "transactionID": "4002", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000004", "originalPurchaseDate": 1789398000000000, "originalTransactionID": "4002"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae24"}	tx:4002	2026-09-14 15:00:01+00	2026-11-23 15:44:57.57771+00	\\xd22de2c8f77a1d713edc1177210acf8223170374ecfed360e1199f8436961836	\\xf56838444723d082c93004e826fb424dc972d621f66b1b81763e22f0afbb8fd9
app_6ba8bbaf4f46ffa691f9c8d2	30	797	otx:4002	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1789398000000000, "appUserID": "00000000-0000-4000-8000-000000000004", "originalTransactionIDs": ["4002"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae24"}	link:00000000-0000-4000-8000-000000000004:4002:1789398000000000	2026-09-14 15:00:01+00	2026-11-23 15:44:57.577811+00	\\xf56838444723d082c93004e826fb424dc972d621f66b1b81763e22f0afbb8fd9	\\x400db14df12f35a2454ef2bc952278de6ad5f5e2373745e89a50d526896f4764
app_6ba8bbaf4f46ffa691f9c8d2	32	807	otx:5001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"ONE_TIME_CHARGE\\",\\"notificationUUID\\":\\"2cf0ba8b-d258-4c73-aee7-63c36dc1dfff\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiNTAwMSIsIm9yaWdpbmFsVHJhbnNhY3Rpb25JZCI6IjUwMDEiLCJidW5kbGVJZCI6ImNvbS5leGFtcGxlLmFwcCIsInByb2R1Y3RJZCI6ImxpZmV0aW1lIiwicHVyY2hhc2VEYXRlIjoxNzg5OTI3MjAwMDAwLCJvcmlnaW5hbFB1cmNoYXNlRGF0ZSI6MTc4OTkyNzIwMDAwMCwicXVhbnRpdHkiOjEsInR5cGUiOiJOb24tQ29uc3VtYWJsZSIsImFwcEFjY291bnRUb2tlbiI6IjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwNSIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3ODk5MjcyMDEwMDAsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIiwiYXBwVHJhbnNhY3Rpb25JZCI6IjcwNDI4OTU3MjMxMTUxMzg3MSJ9.jH1as85nK33ji47fDQ0LgjrZAgqtXvTdBaFKnFNIvk8bJJcnfOQiQSZA4LuX3U_r16dHVWKeZZGPlzU7qjY7sg\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1789927201000}", "signedDate": 1789927201000000, "environment": "Production", "notificationType": "ONE_TIME_CHARGE", "notificationUUID": "2cf0ba8b-d258-4c73-aee7-63c36dc1dfff", "originalTransactionID": "5001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae26"}	notification:2cf0ba8b-d258-4c73-aee7-63c36dc1dfff	2026-09-20 18:00:01+00	2026-11-23 15:44:57.610528+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\xb6b878c667296ae0ec21c361acdbaf4cf0d51ff3bf01debeec35b6581fe2d0bc
app_6ba8bbaf4f46ffa691f9c8d2	33	807	otx:5001	2	purchase.non_consumable	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000005", "productID": "lifetime", "signedDate": 1789927200000000, "storefront": "USA", "environment": "Production", "familyShared": false, "purchaseDate": 1789927200000000, "transactionID": "5001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000005", "originalPurchaseDate": 1789927200000000, "originalTransactionID": "5001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae26"}	tx:5001	2026-09-20 18:00:01+00	2026-11-23 15:44:57.610886+00	\\xb6b878c667296ae0ec21c361acdbaf4cf0d51ff3bf01debeec35b6581fe2d0bc	\\x6bc89b2c8aff4228f92ab204df17044d32e0cc1b7602671143a1760760c8140c
app_6ba8bbaf4f46ffa691f9c8d2	34	807	otx:5001	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1789927200000000, "appUserID": "00000000-0000-4000-8000-000000000005", "originalTransactionIDs": ["5001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae26"}	link:00000000-0000-4000-8000-000000000005:5001:1789927200000000	2026-09-20 18:00:01+00	2026-11-23 15:44:57.611+00	\\x6bc89b2c8aff4228f92ab204df17044d32e0cc1b7602671143a1760760c8140c	\\xec069fbe7423e646796ef25d2d84a0666e4cbad79f354502539e8536e92a3501
app_6ba8bbaf4f46ffa691f9c8d2	37	822	otx:pay_7002	1	purchase.external	1	{"price": {"currency": "EUR", "milliunits": 19990}, "provider": "bluesnap", "appUserID": "00000000-0000-4000-8000-000000000007", "paymentID": "pay_7002", "productID": "web_pro", "environment": "Test", "productType": "nonConsumable", "purchasedAt": 1789466400000000}	{"actor": "key_049337e96126d652451aa5e6", "source": "external_purchase", "request_id": "c8a320f80cbedf9cbc97577609cae29"}	external:bluesnap:pay_7002	2026-09-15 10:00:00+00	2026-11-23 15:44:57.646417+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\x817839070a3e6618984ceedceb469f4b1d1b5f0073941f8ff6b1dad16c8499d2
app_6ba8bbaf4f46ffa691f9c8d2	47	848	otx:10001	7	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"EXPIRED\\",\\"subtype\\":\\"VOLUNTARY\\",\\"notificationUUID\\":\\"e0e8d92f-6c5c-47fa-b0ae-c6890b9003e5\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMDExIiwib3JpZ2luYWxUcmFuc2FjdGlvbklkIjoiMTAwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMTAwMDExIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc5MzE4MTYwMDAwMCwiZXhwaXJlc0RhdGUiOjE3OTU4NjAwMDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDA5IiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc5MzYxMzYwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.xY_LQn5cRmEP6TG3QnMWtgupOkmInlCYDTZMwvcmDGty7kTOj2AEwJnofYRWl0n9ge9OKZA31m8LRkmhmi2lfA\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1793613601000}", "subtype": "VOLUNTARY", "signedDate": 1793613601000000, "environment": "Production", "notificationType": "EXPIRED", "notificationUUID": "e0e8d92f-6c5c-47fa-b0ae-c6890b9003e5", "originalTransactionID": "10001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2f"}	notification:e0e8d92f-6c5c-47fa-b0ae-c6890b9003e5	2026-11-02 10:00:01+00	2026-11-23 15:44:57.825931+00	\\xff3bbbbbc653f9ec3d344a7ce20dd41d07470d94b5e95517ada2ae87091c0879	\\x5b05ea8dc501ed877d289381fe26c4300d943219d3430e2cc138f6347b0f0da6
app_6ba8bbaf4f46ffa691f9c8d2	48	848	otx:10001	8	subscription.expired	1	{"reason": "voluntary", "expiresDate": 1795860000000000, "subscription": {"appUserID": "00000000-0000-4000-8000-000000000009", "productID": "monthly", "signedDate": 1793613601000000, "environment": "Production", "subscriptionGroupID": "main", "originalTransactionID": "10001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2f"}	subscription.expired:10001:voluntary:1793613601000000	2026-11-02 10:00:01+00	2026-11-23 15:44:57.826267+00	\\x5b05ea8dc501ed877d289381fe26c4300d943219d3430e2cc138f6347b0f0da6	\\x6ae522453d167beeda14fb230ba6cb2c0c766e65d460bfbf0053b9098e0d0101
app_6ba8bbaf4f46ffa691f9c8d2	35	812	otx:5001	4	identity.transferred	2	{"policy": "transfer", "toUserID": "00000000-0000-4000-8000-000000000006", "fromUserID": "00000000-0000-4000-8000-000000000005", "transferredAt": 1795448697621944, "originalTransactionIDs": ["5001"]}	{"actor": "key_049337e96126d652451aa5e6", "source": "restore", "request_id": "c8a320f80cbedf9cbc97577609cae27"}	transfer:00000000-0000-4000-8000-000000000005:00000000-0000-4000-8000-000000000006:5001:1795448697621944	2026-11-23 15:44:57.621944+00	2026-11-23 15:44:57.623751+00	\\xec069fbe7423e646796ef25d2d84a0666e4cbad79f354502539e8536e92a3501	\\x6855202c352d21bbc27c636b837bee59180676ed3ac303192fed596fbb7972ee
app_6ba8bbaf4f46ffa691f9c8d2	41	838	otx:10001	1	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"SUBSCRIBED\\",\\"subtype\\":\\"INITIAL_BUY\\",\\"notificationUUID\\":\\"ab85ef42-67b9-4229-b5cd-6166934827ff\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMDEiLCJvcmlnaW5hbFRyYW5zYWN0aW9uSWQiOiIxMDAwMSIsIndlYk9yZGVyTGluZUl0ZW1JZCI6IjIwMDAwMDAxMDAwMSIsImJ1bmRsZUlkIjoiY29tLmV4YW1wbGUuYXBwIiwicHJvZHVjdElkIjoibW9udGhseSIsInN1YnNjcmlwdGlvbkdyb3VwSWRlbnRpZmllciI6Im1haW4iLCJwdXJjaGFzZURhdGUiOjE3OTA1ODk2MDAwMDAsImV4cGlyZXNEYXRlIjoxNzkzMTgxNjAwMDAwLCJxdWFudGl0eSI6MSwidHlwZSI6IkF1dG8tUmVuZXdhYmxlIFN1YnNjcmlwdGlvbiIsImFwcEFjY291bnRUb2tlbiI6IjAwMDAwMDAwLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwOSIsImluQXBwT3duZXJzaGlwVHlwZSI6IlBVUkNIQVNFRCIsInNpZ25lZERhdGUiOjE3OTA1ODk2MDEwMDAsImVudmlyb25tZW50IjoiUHJvZHVjdGlvbiIsInRyYW5zYWN0aW9uUmVhc29uIjoiUFVSQ0hBU0UiLCJzdG9yZWZyb250IjoiVVNBIiwic3RvcmVmcm9udElkIjoiMTQzNDQxIiwicHJpY2UiOjk5OTAsImN1cnJlbmN5IjoiVVNEIiwiYXBwVHJhbnNhY3Rpb25JZCI6IjcwNDI4OTU3MjMxMTUxMzg3MSJ9.Lan031TFjgxowQ5tRfKB6169HKICLoDkTKdYfE3U9Kz4SDrB9aSWspNHQ46J-3NqA-LKNBSH4Z5DQMG-xpuImw\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1790589601000}", "subtype": "INITIAL_BUY", "signedDate": 1790589601000000, "environment": "Production", "notificationType": "SUBSCRIBED", "notificationUUID": "ab85ef42-67b9-4229-b5cd-6166934827ff", "originalTransactionID": "10001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2d"}	notification:ab85ef42-67b9-4229-b5cd-6166934827ff	2026-09-28 10:00:01+00	2026-11-23 15:44:57.78918+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\x22c6a9d85878a7f2110574c6679ae0153ff0bae98337648274ceb59304a18a67
app_6ba8bbaf4f46ffa691f9c8d2	42	838	otx:10001	2	subscription.started	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000009", "productID": "monthly", "signedDate": 1790589600000000, "storefront": "USA", "environment": "Production", "expiresDate": 1793181600000000, "familyShared": false, "purchaseDate": 1790589600000000, "transactionID": "10001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000009", "webOrderLineItemID": "200000010001", "subscriptionGroupID": "main", "originalTransactionID": "10001"}, "isResubscribe": false}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2d"}	tx:10001	2026-09-28 10:00:01+00	2026-11-23 15:44:57.789678+00	\\x22c6a9d85878a7f2110574c6679ae0153ff0bae98337648274ceb59304a18a67	\\x84f1fa89f8d3c0373ca24d49ae2997f10d5a1606b48f271a05d669d9bd6aca79
app_6ba8bbaf4f46ffa691f9c8d2	43	838	otx:10001	3	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1790589600000000, "appUserID": "00000000-0000-4000-8000-000000000009", "originalTransactionIDs": ["10001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2d"}	link:00000000-0000-4000-8000-000000000009:10001:1790589600000000	2026-09-28 10:00:01+00	2026-11-23 15:44:57.789766+00	\\x84f1fa89f8d3c0373ca24d49ae2997f10d5a1606b48f271a05d669d9bd6aca79	\\x78e9114200c2d720646e359f8c8c1afed463b78170a4c4e6031c94dd00f7bd7e
app_6ba8bbaf4f46ffa691f9c8d2	39	827	otx:8001	2	subscription.started	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "productID": "monthly", "signedDate": 1789974000000000, "storefront": "USA", "environment": "Production", "expiresDate": 4093657200000000, "familyShared": false, "purchaseDate": 1789974000000000, "transactionID": "8001", "appTransactionID": "704289572311513871", "webOrderLineItemID": "20000008001", "subscriptionGroupID": "main", "originalTransactionID": "8001"}, "isResubscribe": false}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2a"}	tx:8001	2026-09-21 07:00:01+00	2026-11-23 15:44:57.68115+00	\\xf180a2c9b9e37ec54db4ac9ccbec339ebb351e35edb985a1069debb7d549273d	\\x3c5a48d0ff26436db35c3ce5e823f0baa6ff091131804a2b447636153865d2a8
app_6ba8bbaf4f46ffa691f9c8d2	40	832	otx:9001	1	purchase.non_consumable	1	{"transaction": {"quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000008", "productID": "lifetime", "signedDate": 1790330400000000, "environment": "Production", "familyShared": false, "purchaseDate": 1790330400000000, "transactionID": "9001", "originalPurchaseDate": 1790330400000000, "originalTransactionID": "9001"}}	{"actor": "key_5052adb1d4b9524be1d85093", "source": "upload.receipt", "request_id": "c8a320f80cbedf9cbc97577609cae2b"}	tx:9001	2025-03-01 12:00:00+00	2026-11-23 15:44:57.705723+00	\\x0000000000000000000000000000000000000000000000000000000000000000	\\xa75c7dd727f0d4af0beb5535eb24b12128e38161badbc33c535856da2714b828
app_6ba8bbaf4f46ffa691f9c8d2	44	843	otx:10001	4	appstore.notification	1	{"rawJSON": "{\\"notificationType\\":\\"DID_RENEW\\",\\"notificationUUID\\":\\"2bebe134-16f3-4837-9a99-f236677b9b79\\",\\"data\\":{\\"appAppleId\\":1234,\\"bundleId\\":\\"com.example.app\\",\\"bundleVersion\\":\\"42\\",\\"environment\\":\\"Production\\",\\"signedTransactionInfo\\":\\"eyJhbGciOiJFUzI1NiIsIng1YyI6WyJNSUlCZlRDQ0FTU2dBd0lCQWdJVkFPOEZIN3BmTlZYaEhTbEpTTnVIcVBWR2prUUhNQW9HQ0NxR1NNNDlCQU1DTUM4eEZqQVVCZ05WQkFNTURWUmxjM1FnU2xkVElGZFhSRkl4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QWVGdzB5TURBNU1UTXhNakkyTkRCYUZ3MHpOakEzTVRneE16SXdNREJhTURneEh6QWRCZ05WQkFNTUZsUmxjM1FnU2xkVElGTjBiM0psSUZOcFoyNXBibWN4RlRBVEJnTlZCQW9NREV4bFpHZGxjaUJVWlhOMGN6QlpNQk1HQnlxR1NNNDlBZ0VHQ0NxR1NNNDlBd0VIQTBJQUJFN00rczhpRnI5NUJ6QXlZRXhTQ01MT1dKVlZObGVtS2VKeVU2RWVuUTVqUXg2SzF6TTArUGFWNERRT2ZTckJhcCsydEhlTDJwcFgxT3VZK2R4OWs1cWpGREFTTUJBR0NpcUdTSWIzWTJRR0N3RUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwY0FNRVFDSUhNekFNR3ZkTDNVMGtQV1hGa1p3VEtKVitwdHAwVmd0Q0l4ZXRhUmNzR09BaUFYSFVKNXlLZ2o2YU80T3hzMHc5cngzdGxFL2pXNkhhdW0vSU5XS0pCM0xnPT0iLCJNSUlCbVRDQ0FUK2dBd0lCQWdJVkFLUFFQR0NGMCtHWjhHV0ttRTcwYWFMdTNSV0dNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1DOHhGakFVQmdOVkJBTU1EVlJsYzNRZ1NsZFRJRmRYUkZJeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekJaTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEEwSUFCQXJSRWIzYzFrZ0IxQUNxK1lCbzRNam1yZkhtejg4VjkxMzlsWTJtTXRieE9jOW1MWE53OEF1d01Zd1lXdGRBdEgxUWtOWERWNjgyZndaUStJMWZneGlqTlRBek1BOEdBMVVkRXdFQi93UUZNQU1CQWY4d0RnWURWUjBQQVFIL0JBUURBZ0lFTUJBR0NpcUdTSWIzWTJRR0FnRUVBZ1VBTUFvR0NDcUdTTTQ5QkFNQ0EwZ0FNRVVDSVFDR1ZuQXZHcm5penBYekFPRnIwU3dPeG9pOUFHV2hsNW44b2lrZDhBZk0vQUlnVUdVS29ROTdDQnY3YmRPa3BEeEEzMlZQYTNNTEFyT3ZmTGRncjFhcmkzYz0iLCJNSUlCaVRDQ0FUQ2dBd0lCQWdJVkFKZm9xek8yb3FGVHArbysxYmhTNnp0WnBHbWpNQW9HQ0NxR1NNNDlCQU1DTURJeEdUQVhCZ05WQkFNTUVGUmxjM1FnU2xkVElGSnZiM1FnUTBFeEZUQVRCZ05WQkFvTURFeGxaR2RsY2lCVVpYTjBjekFlRncweU1EQTVNVE14TWpJMk5EQmFGdzB6TmpBM01UZ3hNekl3TURCYU1ESXhHVEFYQmdOVkJBTU1FRlJsYzNRZ1NsZFRJRkp2YjNRZ1EwRXhGVEFUQmdOVkJBb01ERXhsWkdkbGNpQlVaWE4wY3pCWk1CTUdCeXFHU000OUFnRUdDQ3FHU000OUF3RUhBMElBQkRLb09ZUWNHUjhoZFVSalpnRlFLUXM0Q1hlU0FXR2s1eUJqYkt2QlkwTi9VbmdramQ0VGFpWjA0SVd1OTNOQlJLS0o1NUpzY2FVM0RXOUM1aHZhV09hakl6QWhNQThHQTFVZEV3RUIvd1FGTUFNQkFmOHdEZ1lEVlIwUEFRSC9CQVFEQWdJRU1Bb0dDQ3FHU000OUJBTUNBMGNBTUVRQ0lCRkVoTFRTeGpjQnNCalRJUWpjODlPSHB5c2RSU3JYV242VTR1TjNXVHE0QWlCQTgvcWdSQ0xaQ0xwMHVBNm1KMHVtK3IvSWJZQ2E4THhxREZkZmRCMitOdz09Il19.eyJ0cmFuc2FjdGlvbklkIjoiMTAwMDExIiwib3JpZ2luYWxUcmFuc2FjdGlvbklkIjoiMTAwMDEiLCJ3ZWJPcmRlckxpbmVJdGVtSWQiOiIyMDAwMDAwMTAwMDExIiwiYnVuZGxlSWQiOiJjb20uZXhhbXBsZS5hcHAiLCJwcm9kdWN0SWQiOiJtb250aGx5Iiwic3Vic2NyaXB0aW9uR3JvdXBJZGVudGlmaWVyIjoibWFpbiIsInB1cmNoYXNlRGF0ZSI6MTc5MzE4MTYwMDAwMCwiZXhwaXJlc0RhdGUiOjE3OTU4NjAwMDAwMDAsInF1YW50aXR5IjoxLCJ0eXBlIjoiQXV0by1SZW5ld2FibGUgU3Vic2NyaXB0aW9uIiwiYXBwQWNjb3VudFRva2VuIjoiMDAwMDAwMDAtMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDA5IiwiaW5BcHBPd25lcnNoaXBUeXBlIjoiUFVSQ0hBU0VEIiwic2lnbmVkRGF0ZSI6MTc5MzE4MTYwMTAwMCwiZW52aXJvbm1lbnQiOiJQcm9kdWN0aW9uIiwidHJhbnNhY3Rpb25SZWFzb24iOiJSRU5FV0FMIiwic3RvcmVmcm9udCI6IlVTQSIsInN0b3JlZnJvbnRJZCI6IjE0MzQ0MSIsInByaWNlIjo5OTkwLCJjdXJyZW5jeSI6IlVTRCIsImFwcFRyYW5zYWN0aW9uSWQiOiI3MDQyODk1NzIzMTE1MTM4NzEifQ.32nR_4Cgx0fSHhXgt_Yq5J9Y1kFFHL7-Db6FecE5rJ8ZP-CSW0EEpfe5yKsvrt9TG3jS-GZWGwenQ1PQs638ig\\",\\"status\\":1},\\"version\\":\\"2.0\\",\\"signedDate\\":1793181601000}", "signedDate": 1793181601000000, "environment": "Production", "notificationType": "DID_RENEW", "notificationUUID": "2bebe134-16f3-4837-9a99-f236677b9b79", "originalTransactionID": "10001"}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2e"}	notification:2bebe134-16f3-4837-9a99-f236677b9b79	2026-10-28 10:00:01+00	2026-11-23 15:44:57.809407+00	\\x78e9114200c2d720646e359f8c8c1afed463b78170a4c4e6031c94dd00f7bd7e	\\x0f8ecf5ffb6b755568df9c07ca08289bf48e90fd05dc28408382d7ccca07da3d
app_6ba8bbaf4f46ffa691f9c8d2	45	843	otx:10001	5	subscription.renewed	1	{"transaction": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000009", "productID": "monthly", "signedDate": 1793181600000000, "storefront": "USA", "environment": "Production", "expiresDate": 1795860000000000, "familyShared": false, "purchaseDate": 1793181600000000, "transactionID": "100011", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000009", "webOrderLineItemID": "2000000100011", "subscriptionGroupID": "main", "originalTransactionID": "10001"}}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2e"}	tx:100011	2026-10-28 10:00:01+00	2026-11-23 15:44:57.809842+00	\\x0f8ecf5ffb6b755568df9c07ca08289bf48e90fd05dc28408382d7ccca07da3d	\\x5a80b0431447bf21241c17780f4f6e3a33a47f8a4f769ec08decc7a84bd9f106
app_6ba8bbaf4f46ffa691f9c8d2	46	843	otx:10001	6	identity.linked	1	{"source": "appAccountToken", "linkedAt": 1793181600000000, "appUserID": "00000000-0000-4000-8000-000000000009", "originalTransactionIDs": ["10001"]}	{"source": "appstore.notification", "request_id": "c8a320f80cbedf9cbc97577609cae2e"}	link:00000000-0000-4000-8000-000000000009:10001:1793181600000000	2026-10-28 10:00:01+00	2026-11-23 15:44:57.809915+00	\\x5a80b0431447bf21241c17780f4f6e3a33a47f8a4f769ec08decc7a84bd9f106	\\xff3bbbbbc653f9ec3d344a7ce20dd41d07470d94b5e95517ada2ae87091c0879
\.


--
-- Data for Name: invoice_numbers; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.invoice_numbers (year, last) FROM stdin;
2026	1
\.


--
-- Data for Name: invoices; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.invoices (id, account_id, month, year, number, status, content, content_hash, total_minor, currency, snapshot, finalized_at, replaces, voided_at, void_reason, replaced_by) FROM stdin;
inv_10f44006aeae8d64ccc34a49	acct_0551a37d80729908931c33d3	2026-09	2026	1	finalized	{"accountID":"acct_0551a37d80729908931c33d3","adjustments":[],"adjustmentsMinor":0,"apps":[{"appID":"app_6ba8bbaf4f46ffa691f9c8d2","payingUsers":8}],"bands":[{"amountMinor":0,"flatFeeMinor":0,"from":1,"to":3,"unitPriceMinor":0,"users":3},{"amountMinor":750,"flatFeeMinor":0,"from":4,"unitPriceMinor":150,"users":5}],"currency":"USD","month":"2026-09","payingUsers":8,"planID":"upgrade-test","subtotalMinor":750,"totalMinor":750}	\\x3df9f0c7e34ed3c4742e2602da1a0f3bdc1d59857dbbd7dce81fb731cb7f5c23	750	USD	837:837:	2026-11-23 15:44:57.769863+00	\N	\N	\N	\N
\.


--
-- Data for Name: price_plans; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.price_plans (id, currency, tiers, created_at) FROM stdin;
standard	USD	[{"to": 100, "from": 1, "flatFeeMinor": 0, "unitPriceMinor": 0}, {"to": 1000, "from": 101, "flatFeeMinor": 0, "unitPriceMinor": 1}, {"to": 10000, "from": 1001, "flatFeeMinor": 0, "unitPriceMinor": 2}, {"from": 10001, "flatFeeMinor": 0, "unitPriceMinor": 3}]	2026-11-23 15:44:57.166166+00
upgrade-test	USD	[{"to": 3, "from": 1, "flatFeeMinor": 0, "unitPriceMinor": 0}, {"from": 4, "flatFeeMinor": 0, "unitPriceMinor": 150}]	2026-11-23 15:44:57.266633+00
\.


--
-- Data for Name: products; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.products (app_id, product_id, product_type, subscription_group, entitlements, updated_at) FROM stdin;
app_6ba8bbaf4f46ffa691f9c8d2	monthly	auto_renewable	main	{pro}	2026-11-23 15:44:57.244159+00
app_6ba8bbaf4f46ffa691f9c8d2	lifetime	non_consumable	\N	{pro}	2026-11-23 15:44:57.247877+00
app_6ba8bbaf4f46ffa691f9c8d2	coins	consumable	\N	{}	2026-11-23 15:44:57.252138+00
app_6ba8bbaf4f46ffa691f9c8d2	yearly	auto_renewable	main	{pro}	2026-11-23 15:44:57.260482+00
app_6ba8bbaf4f46ffa691f9c8d2	web_pro	non_consumable	\N	{pro}	2026-11-23 15:44:57.263909+00
\.


--
-- Data for Name: projection_checkpoints; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.projection_checkpoints (projection, transaction_id, "position", updated_at) FROM stdin;
monthly_paying_users	848	48	2026-11-23 15:44:57.827122+00
purchases	848	48	2026-11-23 15:44:57.828785+00
subscription_status	848	48	2026-11-23 15:44:57.829523+00
\.


--
-- Data for Name: projection_state; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.projection_state (app_id, projection, key, state, last_position) FROM stdin;
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-06|1001	{"month": "2026-06", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000001", "firstTransactionID": "1001", "originalTransactionID": "1001"}	2
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-07|1001	{"month": "2026-07", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000001", "firstTransactionID": "10011", "originalTransactionID": "1001"}	5
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-08|1001	{"month": "2026-08", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000001", "firstTransactionID": "10012", "originalTransactionID": "1001"}	8
app_6ba8bbaf4f46ffa691f9c8d2	purchases	1001	{"owner": {"stamp": {"at": 1788429600000000, "tie": "00000000-0000-4000-8000-000000000001", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000001"}, "originalTransactionID": "1001"}	12
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|1001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000001", "firstTransactionID": "10013", "originalTransactionID": "1001"}	11
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	1001	{"owner": {"stamp": {"at": 1788429600000000, "tie": "00000000-0000-4000-8000-000000000001", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000001"}, "autoRenew": {"stamp": {"at": 1789891200000000, "tie": "off", "rank": 1}, "value": false}, "lifecycle": {"stamp": {"at": 1791025201000000, "tie": "voluntary", "rank": 3}, "value": {"state": "expired:voluntary", "periodEndsAt": 1791021600000000}}, "standings": {}, "activatedAt": 1780480800000000, "nextProduct": {"stamp": {"at": 1788429600000000, "tie": "10013", "rank": 0}, "value": null}, "latestTransaction": {"stamp": {"at": 1788429600000000, "tie": "10013|+00001788429600000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000001", "productID": "monthly", "signedDate": 1788429600000000, "storefront": "USA", "environment": "Production", "expiresDate": 1791021600000000, "familyShared": false, "purchaseDate": 1788429600000000, "transactionID": "10013", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000001", "webOrderLineItemID": "200000010013", "subscriptionGroupID": "main", "originalTransactionID": "1001"}}, "originalTransactionID": "1001", "productsEverPurchased": ["monthly"], "usedIntroductoryOffer": false}	16
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|2001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000002", "firstTransactionID": "2001", "originalTransactionID": "2001"}	18
app_6ba8bbaf4f46ffa691f9c8d2	purchases	2001	{"owner": {"stamp": {"at": 1789041600000000, "tie": "00000000-0000-4000-8000-000000000002", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000002"}, "originalTransactionID": "2001"}	19
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	2001	{"owner": {"stamp": {"at": 1789041600000000, "tie": "00000000-0000-4000-8000-000000000002", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000002"}, "autoRenew": {"stamp": {"at": 1789041600000000, "tie": "2001", "rank": 0}, "value": true}, "lifecycle": {"stamp": {"at": 1789041600000000, "tie": "2001", "rank": 0}, "value": {"state": "active"}}, "standings": {}, "activatedAt": 1789041600000000, "nextProduct": {"stamp": {"at": 1789041600000000, "tie": "2001", "rank": 0}, "value": null}, "latestTransaction": {"stamp": {"at": 1789041600000000, "tie": "2001|+00001789041600000000", "rank": 0}, "value": {"offer": {"type": "introductory", "period": "P1W", "paymentMode": "FREE_TRIAL"}, "price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000002", "productID": "yearly", "signedDate": 1789041600000000, "storefront": "USA", "environment": "Production", "expiresDate": 4092724800000000, "familyShared": false, "purchaseDate": 1789041600000000, "transactionID": "2001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000002", "webOrderLineItemID": "20000002001", "subscriptionGroupID": "main", "originalTransactionID": "2001"}}, "originalTransactionID": "2001", "productsEverPurchased": ["yearly"], "usedIntroductoryOffer": true}	19
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|3001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000003", "firstTransactionID": "3001", "originalTransactionID": "3001"}	21
app_6ba8bbaf4f46ffa691f9c8d2	purchases	3001	{"owner": {"stamp": {"at": 1788598800000000, "tie": "00000000-0000-4000-8000-000000000003", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000003"}, "standing": {"stamp": {"at": 1789203601000000, "tie": "refunded", "rank": 1}, "value": "refunded"}, "originalTransactionID": "3001"}	24
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	4001	{"owner": {"stamp": {"at": 1789225200000000, "tie": "00000000-0000-4000-8000-000000000004", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000004"}, "standings": {}, "originalTransactionID": "4001", "productsEverPurchased": [], "usedIntroductoryOffer": false}	27
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|4001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000004", "firstTransactionID": "4001", "originalTransactionID": "4001"}	26
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	4002	{"owner": {"stamp": {"at": 1789398000000000, "tie": "00000000-0000-4000-8000-000000000004", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000004"}, "standings": {}, "originalTransactionID": "4002", "productsEverPurchased": [], "usedIntroductoryOffer": false}	30
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|4002	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000004", "firstTransactionID": "4002", "originalTransactionID": "4002"}	29
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|5001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000005", "firstTransactionID": "5001", "originalTransactionID": "5001"}	33
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|9001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000008", "firstTransactionID": "9001", "originalTransactionID": "9001"}	40
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	3001	{"owner": {"stamp": {"at": 1788598800000000, "tie": "00000000-0000-4000-8000-000000000003", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000003"}, "autoRenew": {"stamp": {"at": 1788598800000000, "tie": "3001", "rank": 0}, "value": true}, "lifecycle": {"stamp": {"at": 1788598800000000, "tie": "3001", "rank": 0}, "value": {"state": "active"}}, "standings": {"3001": {"stamp": {"at": 1789203601000000, "tie": "refunded", "rank": 1}, "value": "refunded"}}, "activatedAt": 1788598800000000, "nextProduct": {"stamp": {"at": 1788598800000000, "tie": "3001", "rank": 0}, "value": null}, "latestTransaction": {"stamp": {"at": 1788598800000000, "tie": "3001|+00001788598800000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000003", "productID": "monthly", "signedDate": 1788598800000000, "storefront": "USA", "environment": "Production", "expiresDate": 1791190800000000, "familyShared": false, "purchaseDate": 1788598800000000, "transactionID": "3001", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000003", "webOrderLineItemID": "20000003001", "subscriptionGroupID": "main", "originalTransactionID": "3001"}}, "originalTransactionID": "3001", "productsEverPurchased": ["monthly"], "usedIntroductoryOffer": false}	24
app_6ba8bbaf4f46ffa691f9c8d2	purchases	4002	{"owner": {"stamp": {"at": 1789398000000000, "tie": "00000000-0000-4000-8000-000000000004", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000004"}, "purchase": {"stamp": {"at": 1789398000000000, "tie": "4002|+00001789398000000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "source": {"appStore": {}}, "quantity": 1, "productID": "coins", "environment": "Production", "productType": "consumable", "purchasedAt": 1789398000000000, "familyShared": false, "transactionID": "4002", "developerPayload": "00000000-0000-4000-8000-000000000004"}}, "originalTransactionID": "4002"}	30
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	5001	{"owner": {"stamp": {"at": 1795448697621944, "tie": "00000000-0000-4000-8000-000000000006", "rank": 2}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000006"}, "standings": {}, "originalTransactionID": "5001", "productsEverPurchased": [], "usedIntroductoryOffer": false}	35
app_6ba8bbaf4f46ffa691f9c8d2	purchases	5001	{"owner": {"stamp": {"at": 1795448697621944, "tie": "00000000-0000-4000-8000-000000000006", "rank": 2}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000006"}, "purchase": {"stamp": {"at": 1789927200000000, "tie": "5001|+00001789927200000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "source": {"appStore": {}}, "quantity": 1, "productID": "lifetime", "environment": "Production", "productType": "nonConsumable", "purchasedAt": 1789927200000000, "familyShared": false, "transactionID": "5001", "developerPayload": "00000000-0000-4000-8000-000000000005"}}, "originalTransactionID": "5001"}	35
app_6ba8bbaf4f46ffa691f9c8d2	purchases	pay_7001	{"owner": {"stamp": {"at": 1789466400000000, "tie": "00000000-0000-4000-8000-000000000007", "rank": 0}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000007"}, "purchase": {"stamp": {"at": 1789466400000000, "tie": "pay_7001", "rank": 0}, "value": {"price": {"currency": "EUR", "milliunits": 19990}, "source": {"external": {"provider": "bluesnap"}}, "quantity": 1, "productID": "web_pro", "environment": "Production", "productType": "nonConsumable", "purchasedAt": 1789466400000000, "familyShared": false, "transactionID": "pay_7001"}}, "originalTransactionID": "pay_7001"}	36
app_6ba8bbaf4f46ffa691f9c8d2	purchases	pay_7002	{"owner": {"stamp": {"at": 1789466400000000, "tie": "00000000-0000-4000-8000-000000000007", "rank": 0}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000007"}, "purchase": {"stamp": {"at": 1789466400000000, "tie": "pay_7002", "rank": 0}, "value": {"price": {"currency": "EUR", "milliunits": 19990}, "source": {"external": {"provider": "bluesnap"}}, "quantity": 1, "productID": "web_pro", "environment": "Test", "productType": "nonConsumable", "purchasedAt": 1789466400000000, "familyShared": false, "transactionID": "pay_7002"}}, "originalTransactionID": "pay_7002"}	37
app_6ba8bbaf4f46ffa691f9c8d2	purchases	10001	{"owner": {"stamp": {"at": 1793181600000000, "tie": "00000000-0000-4000-8000-000000000009", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000009"}, "originalTransactionID": "10001"}	46
app_6ba8bbaf4f46ffa691f9c8d2	purchases	4001	{"owner": {"stamp": {"at": 1789225200000000, "tie": "00000000-0000-4000-8000-000000000004", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000004"}, "purchase": {"stamp": {"at": 1789225200000000, "tie": "4001|+00001789225200000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "source": {"appStore": {}}, "quantity": 1, "productID": "coins", "environment": "Production", "productType": "consumable", "purchasedAt": 1789225200000000, "familyShared": false, "transactionID": "4001", "developerPayload": "00000000-0000-4000-8000-000000000004"}}, "consumedAt": 1795448697587597, "originalTransactionID": "4001"}	31
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|pay_7001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000007", "firstTransactionID": "pay_7001", "originalTransactionID": "pay_7001"}	36
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|8001	{"month": "2026-09", "paying": true, "firstTransactionID": "8001", "originalTransactionID": "8001"}	39
app_6ba8bbaf4f46ffa691f9c8d2	purchases	9001	{"owner": {"stamp": {"at": 1790330400000000, "tie": "00000000-0000-4000-8000-000000000008", "rank": 0}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000008"}, "purchase": {"stamp": {"at": 1790330400000000, "tie": "9001|+00001790330400000000", "rank": 0}, "value": {"source": {"appStore": {}}, "quantity": 1, "productID": "lifetime", "environment": "Production", "productType": "nonConsumable", "purchasedAt": 1790330400000000, "familyShared": false, "transactionID": "9001"}}, "originalTransactionID": "9001"}	40
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	10001	{"owner": {"stamp": {"at": 1793181600000000, "tie": "00000000-0000-4000-8000-000000000009", "rank": 1}, "strong": true, "appUserID": "00000000-0000-4000-8000-000000000009"}, "autoRenew": {"stamp": {"at": 1793181600000000, "tie": "100011", "rank": 0}, "value": true}, "lifecycle": {"stamp": {"at": 1793613601000000, "tie": "voluntary", "rank": 3}, "value": {"state": "expired:voluntary", "periodEndsAt": 1795860000000000}}, "standings": {}, "activatedAt": 1790589600000000, "nextProduct": {"stamp": {"at": 1793181600000000, "tie": "100011", "rank": 0}, "value": null}, "latestTransaction": {"stamp": {"at": 1793181600000000, "tie": "100011|+00001793181600000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "appUserID": "00000000-0000-4000-8000-000000000009", "productID": "monthly", "signedDate": 1793181600000000, "storefront": "USA", "environment": "Production", "expiresDate": 1795860000000000, "familyShared": false, "purchaseDate": 1793181600000000, "transactionID": "100011", "appTransactionID": "704289572311513871", "developerPayload": "00000000-0000-4000-8000-000000000009", "webOrderLineItemID": "2000000100011", "subscriptionGroupID": "main", "originalTransactionID": "10001"}}, "originalTransactionID": "10001", "productsEverPurchased": ["monthly"], "usedIntroductoryOffer": false}	48
app_6ba8bbaf4f46ffa691f9c8d2	subscription_status	8001	{"autoRenew": {"stamp": {"at": 1789974000000000, "tie": "8001", "rank": 0}, "value": true}, "lifecycle": {"stamp": {"at": 1789974000000000, "tie": "8001", "rank": 0}, "value": {"state": "active"}}, "standings": {}, "activatedAt": 1789974000000000, "nextProduct": {"stamp": {"at": 1789974000000000, "tie": "8001", "rank": 0}, "value": null}, "latestTransaction": {"stamp": {"at": 1789974000000000, "tie": "8001|+00001789974000000000", "rank": 0}, "value": {"price": {"currency": "USD", "milliunits": 9990}, "quantity": 1, "productID": "monthly", "signedDate": 1789974000000000, "storefront": "USA", "environment": "Production", "expiresDate": 4093657200000000, "familyShared": false, "purchaseDate": 1789974000000000, "transactionID": "8001", "appTransactionID": "704289572311513871", "webOrderLineItemID": "20000008001", "subscriptionGroupID": "main", "originalTransactionID": "8001"}}, "originalTransactionID": "8001", "productsEverPurchased": ["monthly"], "usedIntroductoryOffer": false}	39
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-09|10001	{"month": "2026-09", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000009", "firstTransactionID": "10001", "originalTransactionID": "10001"}	42
app_6ba8bbaf4f46ffa691f9c8d2	monthly_paying_users	2026-10|10001	{"month": "2026-10", "paying": true, "appUserID": "00000000-0000-4000-8000-000000000009", "firstTransactionID": "100011", "originalTransactionID": "10001"}	45
\.


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.schema_migrations (version, name, checksum, applied_at) FROM stdin;
1	001_event_log	811080de0331ccfa00a2441305185c58600baeee55687f240b206a696530845c	2026-11-23 15:44:57.12619+00
2	002_chain_digests	d7d1a087721967441f55a84b865ba59f8a2096e74e0bcbb71012ead6dd45f3ec	2026-11-23 15:44:57.143992+00
3	003_projections	dac83e91453e80821ba70c5220e7f0a2ff129272b52be9a29c3a66caf3577719	2026-11-23 15:44:57.150257+00
4	004_tenancy	8778fd0b3ff87e7922da690594b54c7451ab08ba8ccc3938e84d216a69bd101c	2026-11-23 15:44:57.157014+00
5	005_invoices	0cecb08d519c97832a153263b9113a9cddc14ab38304216db8ac8e0bd20bd058	2026-11-23 15:44:57.166166+00
6	006_append_function	95d28d1cb0b8df351921394ec79ff2ab11328296d134c4fbfc49b93c246055b2	2026-11-23 15:44:57.172516+00
\.


--
-- Data for Name: server_secrets; Type: TABLE DATA; Schema: ledger; Owner: -
--

COPY ledger.server_secrets (name, secret, created_at) FROM stdin;
uid_cookie	\\xc6df727d4e008ee6a8b3c14d599b57b125e2627fc2bc3c0542996221cb6ada4b	2026-11-23 15:44:57.186415+00
\.


--
-- Name: chain_digests_digest_id_seq; Type: SEQUENCE SET; Schema: ledger; Owner: -
--

SELECT pg_catalog.setval('ledger.chain_digests_digest_id_seq', 1, false);


--
-- Name: events_position_seq; Type: SEQUENCE SET; Schema: ledger; Owner: -
--

SELECT pg_catalog.setval('ledger.events_position_seq', 48, true);


--
-- Name: account_plans account_plans_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.account_plans
    ADD CONSTRAINT account_plans_pkey PRIMARY KEY (account_id, from_month);


--
-- Name: accounts accounts_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.accounts
    ADD CONSTRAINT accounts_pkey PRIMARY KEY (id);


--
-- Name: api_keys api_keys_key_hash_key; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (id);


--
-- Name: apps apps_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.apps
    ADD CONSTRAINT apps_pkey PRIMARY KEY (id);


--
-- Name: chain_digests chain_digests_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.chain_digests
    ADD CONSTRAINT chain_digests_pkey PRIMARY KEY (app_id, digest_id);


--
-- Name: events events_idempotency_key; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.events
    ADD CONSTRAINT events_idempotency_key UNIQUE (app_id, idempotency_key);


--
-- Name: events events_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.events
    ADD CONSTRAINT events_pkey PRIMARY KEY (app_id, "position");


--
-- Name: events events_stream_version_key; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.events
    ADD CONSTRAINT events_stream_version_key UNIQUE (app_id, stream_id, stream_version);


--
-- Name: invoice_numbers invoice_numbers_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.invoice_numbers
    ADD CONSTRAINT invoice_numbers_pkey PRIMARY KEY (year);


--
-- Name: invoices invoices_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.invoices
    ADD CONSTRAINT invoices_pkey PRIMARY KEY (id);


--
-- Name: invoices invoices_year_number_key; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.invoices
    ADD CONSTRAINT invoices_year_number_key UNIQUE (year, number);


--
-- Name: price_plans price_plans_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.price_plans
    ADD CONSTRAINT price_plans_pkey PRIMARY KEY (id);


--
-- Name: products products_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.products
    ADD CONSTRAINT products_pkey PRIMARY KEY (app_id, product_id);


--
-- Name: projection_checkpoints projection_checkpoints_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.projection_checkpoints
    ADD CONSTRAINT projection_checkpoints_pkey PRIMARY KEY (projection);


--
-- Name: projection_state projection_state_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.projection_state
    ADD CONSTRAINT projection_state_pkey PRIMARY KEY (app_id, projection, key);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: server_secrets server_secrets_pkey; Type: CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.server_secrets
    ADD CONSTRAINT server_secrets_pkey PRIMARY KEY (name);


--
-- Name: api_keys_app; Type: INDEX; Schema: ledger; Owner: -
--

CREATE INDEX api_keys_app ON ledger.api_keys USING btree (app_id);


--
-- Name: apps_account; Type: INDEX; Schema: ledger; Owner: -
--

CREATE INDEX apps_account ON ledger.apps USING btree (account_id);


--
-- Name: events_app_transaction_order; Type: INDEX; Schema: ledger; Owner: -
--

CREATE INDEX events_app_transaction_order ON ledger.events USING btree (app_id, transaction_id, "position");


--
-- Name: events_position; Type: INDEX; Schema: ledger; Owner: -
--

CREATE INDEX events_position ON ledger.events USING btree ("position");


--
-- Name: events_transaction_order; Type: INDEX; Schema: ledger; Owner: -
--

CREATE INDEX events_transaction_order ON ledger.events USING btree (transaction_id, "position");


--
-- Name: invoices_one_finalized; Type: INDEX; Schema: ledger; Owner: -
--

CREATE UNIQUE INDEX invoices_one_finalized ON ledger.invoices USING btree (account_id, month) WHERE (status = 'finalized'::text);


--
-- Name: projection_state_owner; Type: INDEX; Schema: ledger; Owner: -
--

CREATE INDEX projection_state_owner ON ledger.projection_state USING btree (app_id, projection, ((state #>> '{owner,appUserID}'::text[])));


--
-- Name: chain_digests chain_digests_refuse_truncate; Type: TRIGGER; Schema: ledger; Owner: -
--

CREATE TRIGGER chain_digests_refuse_truncate BEFORE TRUNCATE ON ledger.chain_digests FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();


--
-- Name: chain_digests chain_digests_refuse_update_delete; Type: TRIGGER; Schema: ledger; Owner: -
--

CREATE TRIGGER chain_digests_refuse_update_delete BEFORE DELETE OR UPDATE ON ledger.chain_digests FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();


--
-- Name: events events_chain; Type: TRIGGER; Schema: ledger; Owner: -
--

CREATE TRIGGER events_chain BEFORE INSERT ON ledger.events FOR EACH ROW EXECUTE FUNCTION ledger.chain_event();


--
-- Name: events events_refuse_truncate; Type: TRIGGER; Schema: ledger; Owner: -
--

CREATE TRIGGER events_refuse_truncate BEFORE TRUNCATE ON ledger.events FOR EACH STATEMENT EXECUTE FUNCTION ledger.refuse_event_change();


--
-- Name: events events_refuse_update_delete; Type: TRIGGER; Schema: ledger; Owner: -
--

CREATE TRIGGER events_refuse_update_delete BEFORE DELETE OR UPDATE ON ledger.events FOR EACH ROW EXECUTE FUNCTION ledger.refuse_event_change();


--
-- Name: invoices invoices_immutable; Type: TRIGGER; Schema: ledger; Owner: -
--

CREATE TRIGGER invoices_immutable BEFORE DELETE OR UPDATE ON ledger.invoices FOR EACH ROW EXECUTE FUNCTION ledger.refuse_invoice_change();


--
-- Name: account_plans account_plans_account_id_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.account_plans
    ADD CONSTRAINT account_plans_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger.accounts(id);


--
-- Name: account_plans account_plans_plan_id_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.account_plans
    ADD CONSTRAINT account_plans_plan_id_fkey FOREIGN KEY (plan_id) REFERENCES ledger.price_plans(id);


--
-- Name: api_keys api_keys_app_id_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.api_keys
    ADD CONSTRAINT api_keys_app_id_fkey FOREIGN KEY (app_id) REFERENCES ledger.apps(id);


--
-- Name: apps apps_account_id_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.apps
    ADD CONSTRAINT apps_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger.accounts(id);


--
-- Name: invoices invoices_account_id_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.invoices
    ADD CONSTRAINT invoices_account_id_fkey FOREIGN KEY (account_id) REFERENCES ledger.accounts(id);


--
-- Name: invoices invoices_replaced_by_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.invoices
    ADD CONSTRAINT invoices_replaced_by_fkey FOREIGN KEY (replaced_by) REFERENCES ledger.invoices(id) DEFERRABLE INITIALLY DEFERRED;


--
-- Name: invoices invoices_replaces_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.invoices
    ADD CONSTRAINT invoices_replaces_fkey FOREIGN KEY (replaces) REFERENCES ledger.invoices(id);


--
-- Name: products products_app_id_fkey; Type: FK CONSTRAINT; Schema: ledger; Owner: -
--

ALTER TABLE ONLY ledger.products
    ADD CONSTRAINT products_app_id_fkey FOREIGN KEY (app_id) REFERENCES ledger.apps(id);


--
-- Name: SCHEMA ledger; Type: ACL; Schema: -; Owner: -
--

GRANT USAGE ON SCHEMA ledger TO ledger_service;


--
-- Name: TABLE account_plans; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE ledger.account_plans TO ledger_service;


--
-- Name: TABLE accounts; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT ON TABLE ledger.accounts TO ledger_service;


--
-- Name: TABLE api_keys; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE ledger.api_keys TO ledger_service;


--
-- Name: TABLE apps; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT ON TABLE ledger.apps TO ledger_service;


--
-- Name: TABLE chain_digests; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT ON TABLE ledger.chain_digests TO ledger_service;


--
-- Name: TABLE events; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT ON TABLE ledger.events TO ledger_service;


--
-- Name: TABLE invoice_numbers; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE ledger.invoice_numbers TO ledger_service;


--
-- Name: TABLE invoices; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE ledger.invoices TO ledger_service;


--
-- Name: TABLE price_plans; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT ON TABLE ledger.price_plans TO ledger_service;


--
-- Name: TABLE products; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,UPDATE ON TABLE ledger.products TO ledger_service;


--
-- Name: TABLE projection_checkpoints; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE ledger.projection_checkpoints TO ledger_service;


--
-- Name: TABLE projection_state; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT,DELETE,UPDATE ON TABLE ledger.projection_state TO ledger_service;


--
-- Name: TABLE schema_migrations; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT ON TABLE ledger.schema_migrations TO ledger_service;


--
-- Name: TABLE server_secrets; Type: ACL; Schema: ledger; Owner: -
--

GRANT SELECT,INSERT ON TABLE ledger.server_secrets TO ledger_service;


--
-- PostgreSQL database dump complete
--


