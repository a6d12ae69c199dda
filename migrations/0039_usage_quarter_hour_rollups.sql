-- Totals of the usage log per account, UTC day, quarter hour, key, model and agent together.
-- Every time zone's midnight falls on a quarter hour, so any local day is whole quarter hours:
--   - the Usage page's group-by by local day under filters of two or three kinds (a key and an
--     agent, say) sums them in any zone. The half-hour running sums of 0035 keep key, model
--     and agent apart and cannot answer those; the daily rollups hold whole UTC days only, and
--     a zone hours from UTC read the rest of each day from the log;
--   - in zones a quarter hour off (Nepal, Chatham) the half hour each midnight cuts is two of
--     them, for the Overview and the group-by alike, instead of the log's rows.
--
-- One row per account, UTC day, quarter hour (0 to 95) and the names 0035 gives: key_name is
-- the key's id or '', model is COALESCE(model, requested_model, 'unknown'), agent_name the
-- agent's id or ''. Plain sums, one row per quarter hour that has rows: an account writing a
-- few rows a day has a few rows here, a busy one at most 96 per key, model and agent a day.
-- Kept for the same days as 0035's (the same retention sweep), exact with the log the same
-- way: the trigger of 0035 adds each statement's rows here first, in one lock order.
CREATE TABLE usage_quarter_hour_rollups (
  account_id uuid NOT NULL,
  day date NOT NULL,
  quarter_hour smallint NOT NULL CHECK (quarter_hour BETWEEN 0 AND 95),
  key_name text NOT NULL,
  model text NOT NULL,
  agent_name text NOT NULL,
  requests bigint NOT NULL,
  -- Rows whose status is neither 'success' nor 'deferred_billing'.
  errors bigint NOT NULL,
  spend_micros bigint NOT NULL,
  input_tokens bigint NOT NULL,
  output_tokens bigint NOT NULL,
  -- A day's quarter hours are one index range, for the Overview's and any filter's reads.
  PRIMARY KEY (account_id, day, quarter_hour, key_name, model, agent_name)
);
-- The retention sweep deletes the oldest days.
CREATE INDEX usage_quarter_hour_rollups_age ON usage_quarter_hour_rollups (day);

-- As in 0035: no row is written between the function's replacement and the backfill's read.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

-- The trigger of 0035 calls this function by name: it now adds each statement's rows to the
-- quarter hours, then to 0035's running sums as 0037 did. Every batch takes the quarter hours
-- before the running sums, each table in its key order, so two batches never wait in a cycle.
CREATE OR REPLACE FUNCTION usage_log_roll_up_half_hours() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_quarter_hour_rollups AS r (account_id, day, quarter_hour, key_name, model, agent_name, requests, errors, spend_micros, input_tokens, output_tokens)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, (floor(extract(epoch FROM created_at) / 900)::bigint % 96)::smallint,
    COALESCE(key_id::text, ''), COALESCE(model, requested_model, 'unknown'), COALESCE(agent_id, ''),
    count(*), count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')), COALESCE(sum(cost_micros), 0), COALESCE(sum(input_tokens), 0), COALESCE(sum(output_tokens), 0)
  FROM usage_log_new_rows
  GROUP BY 1, 2, 3, 4, 5, 6
  ORDER BY 1, 2, 3, 4, 5, 6
  ON CONFLICT (account_id, day, quarter_hour, key_name, model, agent_name) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    spend_micros = r.spend_micros + EXCLUDED.spend_micros,
    input_tokens = r.input_tokens + EXCLUDED.input_tokens,
    output_tokens = r.output_tokens + EXCLUDED.output_tokens;

  INSERT INTO usage_half_hour_rollups AS r (account_id, day, dimension, name, requests, errors, spend_micros, input_tokens, output_tokens)
  SELECT account_id, day, dimension, name, usage_running_sums(half_hour, requests), usage_running_sums(half_hour, errors), usage_running_sums(half_hour, spend),
    usage_running_sums(half_hour, input_tokens), usage_running_sums(half_hour, output_tokens)
  FROM (
    -- Each half hour's totals per dimension and name.
    SELECT account_id, day, half_hour, d.dimension, d.name, sum(requests)::bigint AS requests, sum(errors)::bigint AS errors, sum(spend)::bigint AS spend,
      sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens
    FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, (floor(extract(epoch FROM created_at) / 1800)::bigint % 48)::int AS half_hour,
        COALESCE(model, requested_model, 'unknown') AS model, COALESCE(key_id::text, '') AS key_name, agent_id, count(*) AS requests,
        count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, COALESCE(sum(cost_micros), 0) AS spend,
        sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
      FROM usage_log_new_rows GROUP BY 1, 2, 3, 4, 5, 6
    ) grouped
    CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
    WHERE d.name IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5
  ) per_half_hour
  GROUP BY 1, 2, 3, 4
  -- One lock order for every batch, as 0021's.
  ORDER BY 1, 2, 3, 4
  ON CONFLICT (account_id, day, dimension, name) DO UPDATE SET
    requests = usage_running_sums_add(r.requests, EXCLUDED.requests),
    errors = usage_running_sums_add(r.errors, EXCLUDED.errors),
    spend_micros = usage_running_sums_add(r.spend_micros, EXCLUDED.spend_micros),
    input_tokens = usage_running_sums_add(r.input_tokens, EXCLUDED.input_tokens),
    output_tokens = usage_running_sums_add(r.output_tokens, EXCLUDED.output_tokens);
  RETURN NULL;
END
$$;

-- The days the half-hour rollups hold, from the log. A day a retention cut from the log
-- gets only the rows left in it; the group-by reads such days from the log anyway.
INSERT INTO usage_quarter_hour_rollups (account_id, day, quarter_hour, key_name, model, agent_name, requests, errors, spend_micros, input_tokens, output_tokens)
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, (floor(extract(epoch FROM created_at) / 900)::bigint % 96)::smallint,
  COALESCE(key_id::text, ''), COALESCE(model, requested_model, 'unknown'), COALESCE(agent_id, ''),
  count(*), count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')), COALESCE(sum(cost_micros), 0), COALESCE(sum(input_tokens), 0), COALESCE(sum(output_tokens), 0)
FROM usage_log
WHERE created_at >= (SELECT min(day) FROM usage_half_hour_rollups)::timestamp AT TIME ZONE 'UTC'
GROUP BY 1, 2, 3, 4, 5, 6;

-- Filters of two or three kinds always hold a key or an agent: a month of one key's or one
-- agent's quarter hours is then one index range, not every row of the account's month.
-- Built after the backfill, as one pass each.
CREATE INDEX usage_quarter_hour_rollups_key ON usage_quarter_hour_rollups (account_id, key_name, day, quarter_hour);
CREATE INDEX usage_quarter_hour_rollups_agent ON usage_quarter_hour_rollups (account_id, agent_name, day, quarter_hour);
