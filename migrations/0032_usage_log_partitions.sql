-- The usage log partitioned by month of created_at (UTC), so a time range reads only its
-- months and a retention drops whole months (src/billing/usage-partitions.ts keeps them:
-- months created ahead, old ones detached and dropped); the daily rollups stay.
--
-- A partitioned table's unique keys must hold its partition key: the primary key becomes
-- (id, created_at). A call's created_at is fixed when it starts and written the same by
-- every path that may write its row (the settlement, a replayed journal, a reclaimer's
-- `interrupted` row from open_calls.started_at), so (id, created_at) conflicts exactly
-- where id did.
--
-- Partitions are named usage_log_yYYYYmMM (UTC month), as usage-partitions.ts names
-- them; usage_log_default takes a row no month holds, so an insert never fails.
LOCK TABLE usage_log IN ACCESS EXCLUSIVE MODE;

CREATE TABLE usage_log_partitioned (
  id text NOT NULL,
  account_id uuid NOT NULL,
  key_id uuid,
  request_id text NOT NULL,
  endpoint text NOT NULL,
  requested_model text,
  model text,
  provider text,
  upstream_model text,
  status text NOT NULL,
  http_status integer,
  error_code text,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cached_input_tokens integer NOT NULL DEFAULT 0,
  reasoning_tokens integer NOT NULL DEFAULT 0,
  units jsonb,
  cost_micros bigint NOT NULL DEFAULT 0,
  latency_ms integer,
  attempts integer NOT NULL DEFAULT 1,
  streamed boolean NOT NULL DEFAULT false,
  agent_id text,
  agent_run_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  agent_version text,
  cache_write_tokens integer NOT NULL DEFAULT 0,
  cache_hit boolean NOT NULL DEFAULT false,
  CONSTRAINT usage_log_status_check
    CHECK (status IN ('success', 'upstream_error', 'rejected', 'client_closed', 'interrupted', 'deferred_billing', 'error')),
  CONSTRAINT usage_log_cost_micros_check CHECK (cost_micros >= 0)
) PARTITION BY RANGE (created_at);

-- A month for every month the log has rows in, and this month and the next two.
DO $$
DECLARE
  first_day timestamp;
BEGIN
  FOR first_day IN
    SELECT DISTINCT date_trunc('month', created_at AT TIME ZONE 'UTC') FROM usage_log
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + ahead * interval '1 month' FROM generate_series(0, 2) ahead
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF usage_log_partitioned FOR VALUES FROM (%L) TO (%L)',
      'usage_log_y' || to_char(first_day, 'YYYY') || 'm' || to_char(first_day, 'MM'),
      to_char(first_day, 'YYYY-MM-DD') || ' 00:00:00+00',
      to_char(first_day + interval '1 month', 'YYYY-MM-DD') || ' 00:00:00+00');
  END LOOP;
END
$$;
CREATE TABLE usage_log_default PARTITION OF usage_log_partitioned DEFAULT;

-- The rows move without the rollup trigger (it is on the old table): the rollups already count them.
INSERT INTO usage_log_partitioned (id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
  status, http_status, error_code, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, units, cost_micros,
  latency_ms, attempts, streamed, agent_id, agent_run_id, created_at, agent_version, cache_write_tokens, cache_hit)
SELECT id, account_id, key_id, request_id, endpoint, requested_model, model, provider, upstream_model,
  status, http_status, error_code, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, units, cost_micros,
  latency_ms, attempts, streamed, agent_id, agent_run_id, created_at, agent_version, cache_write_tokens, cache_hit
FROM usage_log;

DROP TABLE usage_log;
ALTER TABLE usage_log_partitioned RENAME TO usage_log;

-- Keys and indexes as before (0002, 0019, 0022, 0023), built once over the copied rows.
ALTER TABLE usage_log ADD CONSTRAINT usage_log_pkey PRIMARY KEY (id, created_at);
CREATE INDEX usage_log_agent_run ON usage_log (agent_run_id) WHERE agent_run_id IS NOT NULL;
CREATE INDEX usage_log_account_agent_time ON usage_log (account_id, agent_id, created_at, id) WHERE agent_id IS NOT NULL;
CREATE INDEX usage_log_account_time_id ON usage_log (account_id, created_at, id);
CREATE INDEX usage_log_account_model_time ON usage_log (account_id, model, created_at, id);
CREATE INDEX usage_log_account_status_time ON usage_log (account_id, status, created_at, id) WHERE status <> 'success';
CREATE INDEX usage_log_account_endpoint_time ON usage_log (account_id, endpoint, created_at, id);
CREATE INDEX usage_log_key_time_id ON usage_log (key_id, created_at, id);

-- The rollups count every statement's inserted rows, whichever month they land in (0021).
CREATE TRIGGER usage_log_roll_up AFTER INSERT ON usage_log
  REFERENCING NEW TABLE AS usage_log_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_log_roll_up();
