-- Requests-per-minute windows of rate-limited keys on PostgreSQL without Redis, shared by
-- every process and host on the database: one row per key and limit. A process takes the
-- window's request slots with one atomic upsert, one at a time for limits under 128 a
-- minute and in small slices (at most 1/64 of the limit) above, so no two processes can
-- hold the same slot. Unlogged: a window lives a minute, and a commit that writes no WAL
-- waits for no flush.

CREATE UNLOGGED TABLE key_rate_windows (
  key_id uuid NOT NULL,
  -- A changed limit counts in a window of its own, as the per-process windows do.
  rpm integer NOT NULL,
  ends_at timestamptz NOT NULL,
  -- Slots handed out in this window (never above rpm).
  used integer NOT NULL,
  -- Slots the last upsert handed out: what the process that ran it may use.
  granted integer NOT NULL,
  PRIMARY KEY (key_id, rpm)
);
