-- The chain trigger finds the previous event by its version (Benchmarks/README.md, "The chain's previous hash").
--
-- 009 read "the latest version below the new one" backwards from the stream's index, then checked that it was the
-- version just below. A B-tree scan reads every entry of the page it lands on that meets its conditions before it
-- returns the first, and every earlier version of the stream meets "below the new one": an append to a stream of a
-- few hundred events compared a page of index entries per event (a fifth of a 500-event append's time). The rule is
-- the same and now bounds the scan: the version just below, or none; the backward scan stops at the first entry below
-- it, so one or two entries are read. The lookup keeps 009's form (the latest version below the new one, in
-- descending order, first row), which only the stream's index answers without a sort: an equality on the version
-- alone, planned on an empty log, was answered by another index that starts with the app (AppendPlanTests).
CREATE OR REPLACE FUNCTION ledger.chain_event() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.stream_version = 1 THEN
        NEW.previous_hash := '\x0000000000000000000000000000000000000000000000000000000000000000'::bytea;
    ELSE
        SELECT hash INTO NEW.previous_hash FROM ledger.events
        WHERE app_id = NEW.app_id AND stream_id = NEW.stream_id
          AND stream_version < NEW.stream_version AND stream_version >= NEW.stream_version - 1
        ORDER BY stream_version DESC LIMIT 1;
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
