-- Price plans and monthly invoices (SPEC §6).
--
-- Drafts are computed on demand and never stored. A finalized invoice is stored with its content (canonical JSON),
-- the content's SHA-256, its number, and the snapshot of the log it was computed from (the events of every
-- transaction committed when it was taken, and none other: a set that never changes), so it can be recomputed
-- from the log and compared byte for byte. Its content never
-- changes; it can only be voided, together with a replacement that references it.

CREATE TABLE ledger.price_plans (
    id         text        PRIMARY KEY CHECK (id <> ''),
    currency   text        NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    tiers      jsonb       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- The seed's table: 1-100 free, 101-1,000 $0.01, 1,001-10,000 $0.02, above $0.03 per paying user and month.
INSERT INTO ledger.price_plans (id, currency, tiers) VALUES ('standard', 'USD',
    '[{"from":1,"to":100,"unitPriceMinor":0,"flatFeeMinor":0},{"from":101,"to":1000,"unitPriceMinor":1,"flatFeeMinor":0},{"from":1001,"to":10000,"unitPriceMinor":2,"flatFeeMinor":0},{"from":10001,"unitPriceMinor":3,"flatFeeMinor":0}]');

-- An account is on a plan from a month on (until its next row); without a row, on 'standard'.
CREATE TABLE ledger.account_plans (
    account_id text NOT NULL REFERENCES ledger.accounts (id),
    from_month text NOT NULL CHECK (from_month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    plan_id    text NOT NULL REFERENCES ledger.price_plans (id),
    PRIMARY KEY (account_id, from_month)
);

-- Gapless numbering per year: the row is locked by the finalizing transaction, so numbers are taken in turn and a
-- rolled-back finalization gives its number back.
CREATE TABLE ledger.invoice_numbers (
    year integer PRIMARY KEY,
    last integer NOT NULL
);

CREATE TABLE ledger.invoices (
    id           text        PRIMARY KEY,
    account_id   text        NOT NULL REFERENCES ledger.accounts (id),
    month        text        NOT NULL CHECK (month ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    year         integer     NOT NULL,
    number       integer     NOT NULL,
    status       text        NOT NULL CHECK (status IN ('finalized', 'voided')),
    content      text        NOT NULL,
    content_hash bytea       NOT NULL CHECK (octet_length(content_hash) = 32),
    total_minor  bigint      NOT NULL,
    currency     text        NOT NULL,
    snapshot     pg_snapshot NOT NULL,
    finalized_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    replaces     text        REFERENCES ledger.invoices (id),
    voided_at    timestamptz,
    void_reason  text,
    replaced_by  text        REFERENCES ledger.invoices (id) DEFERRABLE INITIALLY DEFERRED,
    UNIQUE (year, number)
);
-- One live invoice per account and month: a second concurrent finalization fails here and takes the first one.
CREATE UNIQUE INDEX invoices_one_finalized ON ledger.invoices (account_id, month) WHERE status = 'finalized';

-- A finalized invoice's figures never change: only the void fields may be set, once.
CREATE FUNCTION ledger.refuse_invoice_change() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER invoices_immutable BEFORE UPDATE OR DELETE ON ledger.invoices
    FOR EACH ROW EXECUTE FUNCTION ledger.refuse_invoice_change();

DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'ledger_service') THEN
        GRANT SELECT, INSERT ON ledger.price_plans TO ledger_service;
        GRANT SELECT, INSERT, UPDATE ON ledger.account_plans, ledger.invoice_numbers TO ledger_service;
        GRANT SELECT, INSERT, UPDATE ON ledger.invoices TO ledger_service;
    END IF;
END
$$;
