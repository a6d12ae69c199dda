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
-- way: a trigger of its own adds each statement's rows.
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

-- Each statement's rows, in key order. A usage statement's triggers fire in name order
-- (the daily rollups, the half hours, then these), so every batch takes its locks in one
-- order and two batches never wait in a cycle.
CREATE FUNCTION usage_log_roll_up_quarter_hours() RETURNS trigger LANGUAGE plpgsql AS $$
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
  RETURN NULL;
END
$$;

-- As in 0035: no row is written between the trigger's creation and the backfill's read.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER usage_log_roll_up_quarter_hours AFTER INSERT ON usage_log
  REFERENCING NEW TABLE AS usage_log_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_log_roll_up_quarter_hours();

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
