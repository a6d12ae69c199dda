-- Billing that loses nothing under faults (issue 10).
--
-- 1. Statuses: a stream the client cut is `client_closed` (billed for what was
--    streamed); a call whose process died is `interrupted` (billed from the journal);
--    pass-through families the provider bills later are `deferred_billing`.
ALTER TABLE usage_log DROP CONSTRAINT IF EXISTS usage_log_status_check;
UPDATE usage_log SET status = 'client_closed' WHERE status = 'client_disconnect';
ALTER TABLE usage_log ADD CONSTRAINT usage_log_status_check
  CHECK (status IN ('success', 'upstream_error', 'rejected', 'client_closed', 'interrupted', 'deferred_billing', 'error'));

-- 2. The crash journal: a call that reached a provider and has not settled yet, with
--    what it has cost so far. Written in the same group commits as settlements (never
--    one write per request); deleted when the call settles. Whoever reclaims a dead
--    process's leases settles its rows here as `interrupted`. No foreign key to
--    lease_holders: the reclaim deletes the holder and reads these rows in one statement.
CREATE TABLE open_calls (
  id text PRIMARY KEY, -- the generation id the usage row will carry
  holder_id uuid NOT NULL,
  account_id uuid NOT NULL,
  key_id uuid,
  request_id text NOT NULL,
  endpoint text NOT NULL,
  requested_model text,
  model text,
  provider text,
  upstream_model text,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cost_micros bigint NOT NULL DEFAULT 0 CHECK (cost_micros >= 0),
  streamed boolean NOT NULL DEFAULT false,
  agent_id text,
  agent_run_id text,
  started_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX open_calls_holder ON open_calls (holder_id);
