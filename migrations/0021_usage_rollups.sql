-- Daily totals of the usage log per account, UTC day, model and key, kept exact with the
-- log: the console's Overview reads these few rows instead of grouping the whole log.
--
-- A statement-level trigger adds every statement's inserted rows (its transition table)
-- in that statement, whoever writes them (a settlement batch, a reclaimed call): a row the
-- log skipped (ON CONFLICT DO NOTHING on a replay) is not in the transition table and adds
-- nothing. It runs after the statement's own updates, so rollup rows are always locked
-- after the key and account rows a batch updates, in one order across batches.
CREATE TABLE usage_daily_rollups (
  account_id uuid NOT NULL,
  day date NOT NULL,
  -- COALESCE(model, requested_model, 'unknown'), as the Overview names a row's model.
  model text NOT NULL,
  key_id uuid,
  requests bigint NOT NULL,
  -- Rows whose status is neither 'success' nor 'deferred_billing'.
  errors bigint NOT NULL,
  spend_micros bigint NOT NULL
);
CREATE UNIQUE INDEX usage_daily_rollups_identity ON usage_daily_rollups (account_id, day, model, key_id) NULLS NOT DISTINCT;

CREATE FUNCTION usage_log_roll_up() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily_rollups AS r (account_id, day, model, key_id, requests, errors, spend_micros)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, COALESCE(model, requested_model, 'unknown'), key_id,
    count(*), count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')), sum(cost_micros)
  FROM usage_log_new_rows
  GROUP BY 1, 2, 3, 4
  -- One lock order for every batch: two batches of one account never wait on each other in a cycle.
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (account_id, day, model, key_id) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    spend_micros = r.spend_micros + EXCLUDED.spend_micros;
  RETURN NULL;
END
$$;

-- No row is written between the trigger's creation and the backfill's read: both happen
-- under a lock that writers wait for, so each row is counted once, by one or the other.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER usage_log_roll_up AFTER INSERT ON usage_log
  REFERENCING NEW TABLE AS usage_log_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_log_roll_up();

INSERT INTO usage_daily_rollups (account_id, day, model, key_id, requests, errors, spend_micros)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, COALESCE(model, requested_model, 'unknown'), key_id,
  count(*), count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')), sum(cost_micros)
FROM usage_log
GROUP BY 1, 2, 3, 4;
