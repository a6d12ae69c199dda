-- Half-hourly totals of the usage log per account, by model, by key and by agent: the
-- console's Overview sums these for the days of any time zone instead of grouping the log.
-- A zone whose offset is a whole number of half hours has days made of whole half hours;
-- in the few a quarter hour off, the half hour each day boundary cuts is read from the log.
--
-- One row per account, half hour, dimension and name:
--   dimension 'model': name = COALESCE(model, requested_model, 'unknown'), as the Overview names it;
--   dimension 'key':   name = the key's id, or '' for rows without a key;
--   dimension 'agent': name = the agent's id (rows without an agent have no 'agent' row).
-- Kept exact with the log as 0021's are: a statement-level trigger adds each statement's
-- inserted rows in that statement, in one lock order for every batch.
CREATE TABLE usage_half_hour_rollups (
  account_id uuid NOT NULL,
  period_start timestamptz NOT NULL,
  dimension text NOT NULL CHECK (dimension IN ('model', 'key', 'agent')),
  name text NOT NULL,
  requests bigint NOT NULL,
  -- Rows whose status is neither 'success' nor 'deferred_billing'.
  errors bigint NOT NULL,
  spend_micros bigint NOT NULL,
  PRIMARY KEY (account_id, period_start, dimension, name)
);
-- The retention sweep deletes the oldest half hours (the Overview reads 34 days at most).
CREATE INDEX usage_half_hour_rollups_age ON usage_half_hour_rollups (period_start);

CREATE FUNCTION usage_log_roll_up_half_hours() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_half_hour_rollups AS r (account_id, period_start, dimension, name, requests, errors, spend_micros)
  SELECT account_id, period_start, dimension, name, sum(requests), sum(errors), sum(spend)
  FROM (
    SELECT account_id, date_bin('30 minutes', created_at, timestamptz '2000-01-01Z') AS period_start, COALESCE(model, requested_model, 'unknown') AS model,
      COALESCE(key_id::text, '') AS key_name, agent_id, count(*) AS requests,
      count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, sum(cost_micros) AS spend
    FROM usage_log_new_rows GROUP BY 1, 2, 3, 4, 5
  ) grouped
  CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
  WHERE d.name IS NOT NULL
  GROUP BY 1, 2, 3, 4
  -- One lock order for every batch, as 0021's.
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (account_id, period_start, dimension, name) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    spend_micros = r.spend_micros + EXCLUDED.spend_micros;
  RETURN NULL;
END
$$;

-- As in 0021: no row is written between the trigger's creation and the backfill's read.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER usage_log_roll_up_half_hours AFTER INSERT ON usage_log
  REFERENCING NEW TABLE AS usage_log_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_log_roll_up_half_hours();

-- The last 62 days of an existing log (what the retention sweep keeps), from a half hour's start.
INSERT INTO usage_half_hour_rollups (account_id, period_start, dimension, name, requests, errors, spend_micros)
SELECT account_id, period_start, dimension, name, sum(requests), sum(errors), sum(spend)
FROM (
  SELECT account_id, date_bin('30 minutes', created_at, timestamptz '2000-01-01Z') AS period_start, COALESCE(model, requested_model, 'unknown') AS model,
    COALESCE(key_id::text, '') AS key_name, agent_id, count(*) AS requests,
    count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, sum(cost_micros) AS spend
  FROM usage_log WHERE created_at >= date_bin('30 minutes', now() - interval '62 days', timestamptz '2000-01-01Z') GROUP BY 1, 2, 3, 4, 5
) grouped
CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
WHERE d.name IS NOT NULL
GROUP BY 1, 2, 3, 4;
