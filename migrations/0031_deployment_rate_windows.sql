-- Requests-per-minute and tokens-per-minute windows of deployments (junction.yaml `rpm`,
-- `tpm`) on PostgreSQL without Redis, shared by every process and host on the database, so
-- a provider's quota is never multiplied by the number of processes. Processes take slots
-- (requests or tokens) as key_rate_windows hands them out: one atomic upsert per take,
-- what the call needs and at most 1/64 of what remains beyond it. Unlogged: a window lives
-- a minute, and a commit that writes no WAL waits for no flush.

CREATE UNLOGGED TABLE deployment_rate_windows (
  -- The deployment's model id and label (its adapter key): the same in every process on one config.
  deployment text NOT NULL,
  measure text NOT NULL CHECK (measure IN ('requests', 'tokens')),
  -- A changed limit counts in a window of its own.
  per_minute integer NOT NULL,
  ends_at timestamptz NOT NULL,
  -- Slots handed out in this window (never above per_minute).
  used integer NOT NULL,
  -- Slots the last upsert handed out: what the process that ran it may use.
  granted integer NOT NULL,
  PRIMARY KEY (deployment, measure, per_minute)
);
