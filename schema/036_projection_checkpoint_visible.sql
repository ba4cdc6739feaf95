-- A projection's checkpoint may be read only once the rows its batch wrote are visible. On one PostgreSQL they are
-- (one commit). On Citus a batch writes the read models on the workers and the checkpoint on the coordinator, and
-- commits in two phases: the coordinator commits its own part (the checkpoint) first and sends COMMIT PREPARED to the
-- workers after, in its commit callback (Citus' transaction_management.c). In between, a reader of the checkpoint
-- (read-your-writes, the status cache, the live streams, the webhook fan-out) saw a batch whose rows it could not
-- see yet: on Deploy/citus/up.sh's cluster, readers of a checkpoint and then of a row the same transaction wrote
-- found the older row within 236 reads (a read right after an upload answered no purchase in one of the last three CI runs).
--
-- PostgreSQL releases a transaction's locks after its commit callbacks (xact.c: CallXactCallbacks(XACT_EVENT_COMMIT)
-- before ResourceOwnerRelease(RESOURCE_RELEASE_LOCKS)), so a lock held by the writer until its end is held until its
-- commit has reached every worker. The writer takes one named after its own transaction and records that
-- transaction beside the checkpoint; a reader waits for that lock (shared) for each checkpoint it reads. A reader
-- sees a checkpoint only once its writer has committed locally, so it waits at most for the writer's COMMIT
-- PREPARED; no writer waits for a reader (no later writer is the same transaction). With the same reads on the same
-- cluster, 38,064 reads found no older row (ProjectionCheckpointVisibilityTests has the test on Citus).
--
-- The locks are advisory locks of two int4 keys (a space the ledger's other advisory locks, of one bigint key, do
-- not share): 36 and the transaction id's low 32 bits (a transaction id reused after 2^32 others is long finished).
ALTER TABLE ledger.projection_checkpoints ADD COLUMN written_by xid8;

CREATE FUNCTION ledger.projection_checkpoint_lock(p_transaction xid8) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT
AS $$ SELECT ((p_transaction::text::bigint % 4294967296) - 2147483648)::integer $$;

-- Every writer of a checkpoint: a projection's batch, a rebuild's swap.
CREATE FUNCTION ledger.set_projection_checkpoint(p_projection text, p_transaction_id xid8, p_position bigint)
RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(36, ledger.projection_checkpoint_lock(pg_current_xact_id()));
    INSERT INTO ledger.projection_checkpoints AS c (projection, transaction_id, position, updated_at, written_by)
    VALUES (p_projection, p_transaction_id, p_position, now(), pg_current_xact_id())
    ON CONFLICT (projection) DO UPDATE
    SET transaction_id = EXCLUDED.transaction_id, position = EXCLUDED.position, updated_at = EXCLUDED.updated_at,
        written_by = EXCLUDED.written_by;
END
$$;

-- Every reader that goes on to read what the checkpoints promise (nil: every projection's).
CREATE FUNCTION ledger.visible_projection_checkpoints(p_projections text[])
RETURNS TABLE (out_projection text, out_transaction_id xid8, out_position bigint)
LANGUAGE plpgsql
AS $$
DECLARE
    v_written_by xid8;
BEGIN
    FOR out_projection, out_transaction_id, out_position, v_written_by IN
        SELECT c.projection, c.transaction_id, c.position, c.written_by FROM ledger.projection_checkpoints c
        WHERE p_projections IS NULL OR c.projection = ANY(p_projections)
    LOOP
        IF v_written_by IS NOT NULL THEN
            PERFORM pg_advisory_xact_lock_shared(36, ledger.projection_checkpoint_lock(v_written_by));
        END IF;
        RETURN NEXT;
    END LOOP;
END
$$;
