-- Totals of the usage log per account, UTC day, and model, key or agent, by half hour: the
-- console's Overview sums these for the days of any time zone instead of grouping the log.
-- A zone whose offset is a whole number of half hours has days made of whole half hours;
-- in the few a quarter hour off, the half hour each day boundary cuts is read from the log.
--
-- One row per account, UTC day, dimension and name:
--   dimension 'model': name = COALESCE(model, requested_model, 'unknown'), as the Overview names it;
--   dimension 'key':   name = the key's id, or '' for rows without a key;
--   dimension 'agent': name = the agent's id (rows without an agent have no 'agent' row).
-- Each total is an array of 49 running sums: element i + 1 holds the day's rows before half
-- hour i (element 1 is 0, element 49 the whole day), so the rows of half hours a to b - 1 are
-- element b + 1 minus element a + 1: a local day costs two reads per row, not one per half hour.
-- Kept exact with the log as 0021's are: a statement-level trigger adds each statement's
-- inserted rows in that statement, in one lock order for every batch.
CREATE TABLE usage_half_hour_rollups (
  account_id uuid NOT NULL,
  day date NOT NULL,
  dimension text NOT NULL CHECK (dimension IN ('model', 'key', 'agent')),
  name text NOT NULL,
  requests bigint[] NOT NULL,
  -- Rows whose status is neither 'success' nor 'deferred_billing'.
  errors bigint[] NOT NULL,
  spend_micros bigint[] NOT NULL,
  PRIMARY KEY (account_id, day, dimension, name)
);
-- The retention sweep deletes the oldest days (the Overview reads 34 days at most).
CREATE INDEX usage_half_hour_rollups_age ON usage_half_hour_rollups (day);

-- Two arrays of running sums added element by element.
CREATE FUNCTION usage_running_sums_add(a bigint[], b bigint[]) RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
  SELECT array_agg(x + y ORDER BY n) FROM unnest(a, b) WITH ORDINALITY AS t(x, y, n)
$$;

-- The running sums of one half hour's value: 0 up to it, the value from its end on.
CREATE FUNCTION usage_running_sums_step(sums bigint[], half_hour int, value bigint) RETURNS bigint[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN sums IS NULL THEN step ELSE usage_running_sums_add(sums, step) END
  FROM (SELECT array_fill(0::bigint, ARRAY[half_hour + 1]) || array_fill(value, ARRAY[48 - half_hour]) AS step) s
$$;

-- The running sums of a group's half hours (half_hour, value), one array per group.
CREATE AGGREGATE usage_running_sums(int, bigint) (SFUNC = usage_running_sums_step, STYPE = bigint[]);

CREATE FUNCTION usage_log_roll_up_half_hours() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_half_hour_rollups AS r (account_id, day, dimension, name, requests, errors, spend_micros)
  SELECT account_id, day, dimension, name, usage_running_sums(half_hour, requests), usage_running_sums(half_hour, errors), usage_running_sums(half_hour, spend)
  FROM (
    -- Each half hour's totals per dimension and name.
    SELECT account_id, day, half_hour, d.dimension, d.name, sum(requests)::bigint AS requests, sum(errors)::bigint AS errors, sum(spend)::bigint AS spend
    FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, (floor(extract(epoch FROM created_at) / 1800)::bigint % 48)::int AS half_hour,
        COALESCE(model, requested_model, 'unknown') AS model, COALESCE(key_id::text, '') AS key_name, agent_id, count(*) AS requests,
        count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, COALESCE(sum(cost_micros), 0) AS spend
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
    spend_micros = usage_running_sums_add(r.spend_micros, EXCLUDED.spend_micros);
  RETURN NULL;
END
$$;

-- As in 0021: no row is written between the trigger's creation and the backfill's read.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

CREATE TRIGGER usage_log_roll_up_half_hours AFTER INSERT ON usage_log
  REFERENCING NEW TABLE AS usage_log_new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION usage_log_roll_up_half_hours();

-- The last 62 whole UTC days of an existing log and today (what the retention sweep keeps).
INSERT INTO usage_half_hour_rollups (account_id, day, dimension, name, requests, errors, spend_micros)
SELECT account_id, day, dimension, name, usage_running_sums(half_hour, requests), usage_running_sums(half_hour, errors), usage_running_sums(half_hour, spend)
FROM (
  -- Each half hour's totals per dimension and name.
  SELECT account_id, day, half_hour, d.dimension, d.name, sum(requests)::bigint AS requests, sum(errors)::bigint AS errors, sum(spend)::bigint AS spend
  FROM (
    SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, (floor(extract(epoch FROM created_at) / 1800)::bigint % 48)::int AS half_hour,
      COALESCE(model, requested_model, 'unknown') AS model, COALESCE(key_id::text, '') AS key_name, agent_id, count(*) AS requests,
      count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, COALESCE(sum(cost_micros), 0) AS spend
    FROM usage_log WHERE created_at >= ((now() AT TIME ZONE 'UTC')::date - 62)::timestamp AT TIME ZONE 'UTC' GROUP BY 1, 2, 3, 4, 5, 6
  ) grouped
  CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
  WHERE d.name IS NOT NULL
  GROUP BY 1, 2, 3, 4, 5
) per_half_hour
GROUP BY 1, 2, 3, 4;
