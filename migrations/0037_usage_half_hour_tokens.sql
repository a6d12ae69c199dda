-- The half-hour rollups (0035) count tokens too, so the Usage page's group-by by local day
-- reads them in every time zone (src/billing/usage-day-groups.ts): a zone hours away from
-- UTC no longer reads the log's rows of the hours its days take from other UTC days.
-- Same running sums as the other totals: element i + 1 holds the day's tokens before half hour i.
--
-- Same lock discipline as 0035: no row is written between the function's replacement and
-- the backfill's read, so each row is counted once.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE usage_half_hour_rollups
  ADD COLUMN input_tokens bigint[] NOT NULL DEFAULT array_fill(0::bigint, ARRAY[49]),
  ADD COLUMN output_tokens bigint[] NOT NULL DEFAULT array_fill(0::bigint, ARRAY[49]);

-- The trigger of 0035 calls this function by name: it now adds each statement's tokens too.
CREATE OR REPLACE FUNCTION usage_log_roll_up_half_hours() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
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

-- The tokens of the days the rollups hold, from the log. A day a retention cut from the log
-- gets only the tokens left in it; the group-by reads such days from the log anyway.
UPDATE usage_half_hour_rollups r SET input_tokens = t.input_tokens, output_tokens = t.output_tokens
FROM (
  SELECT account_id, day, dimension, name, usage_running_sums(half_hour, input_tokens) AS input_tokens, usage_running_sums(half_hour, output_tokens) AS output_tokens
  FROM (
    SELECT account_id, day, half_hour, d.dimension, d.name, sum(input_tokens)::bigint AS input_tokens, sum(output_tokens)::bigint AS output_tokens
    FROM (
      SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, (floor(extract(epoch FROM created_at) / 1800)::bigint % 48)::int AS half_hour,
        COALESCE(model, requested_model, 'unknown') AS model, COALESCE(key_id::text, '') AS key_name, agent_id,
        sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
      FROM usage_log WHERE created_at >= (SELECT min(day) FROM usage_half_hour_rollups)::timestamp AT TIME ZONE 'UTC' GROUP BY 1, 2, 3, 4, 5, 6
    ) grouped
    CROSS JOIN LATERAL (VALUES ('model', grouped.model), ('key', grouped.key_name), ('agent', grouped.agent_id)) AS d(dimension, name)
    WHERE d.name IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5
  ) per_half_hour
  GROUP BY 1, 2, 3, 4
) t
WHERE r.account_id = t.account_id AND r.day = t.day AND r.dimension = t.dimension AND r.name = t.name;
