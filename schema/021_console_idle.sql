-- Console sessions end after a while without a request (idle expiry, besides the absolute one): last_seen_at is the
-- time of the session's latest request (NULL: none since sign-in, so created_at counts).
ALTER TABLE ledger.console_sessions ADD COLUMN last_seen_at timestamptz;
