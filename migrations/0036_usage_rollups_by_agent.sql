-- The daily rollups (0021) split by agent and counting tokens, so the Usage page's group-by
-- by key, model, agent or UTC day reads a month as a few hundred rollup rows instead of
-- every row of the log (src/billing/usage-groups.ts). Every earlier reader sums over the
-- new agent split, so its answers do not change.
--
-- Same lock discipline as 0021: usage_log first, in the mode writers wait for, then the
-- rollups, in the order a writer's trigger takes them; no row is written between the
-- function's replacement and the backfill's read, so each row is counted once.
LOCK TABLE usage_log IN SHARE ROW EXCLUSIVE MODE;

ALTER TABLE usage_daily_rollups
  ADD COLUMN agent_id text,
  ADD COLUMN input_tokens bigint NOT NULL DEFAULT 0,
  ADD COLUMN output_tokens bigint NOT NULL DEFAULT 0;

DROP INDEX usage_daily_rollups_identity;

-- The trigger of 0021 (re-created by 0032) calls this function by name: it now adds each
-- statement's rows per agent too, with their tokens.
CREATE OR REPLACE FUNCTION usage_log_roll_up() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO usage_daily_rollups AS r (account_id, day, model, key_id, agent_id, requests, errors, spend_micros, input_tokens, output_tokens)
  SELECT account_id, (created_at AT TIME ZONE 'UTC')::date, COALESCE(model, requested_model, 'unknown'), key_id, agent_id,
    count(*), count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')), sum(cost_micros), sum(input_tokens), sum(output_tokens)
  FROM usage_log_new_rows
  GROUP BY 1, 2, 3, 4, 5
  -- One lock order for every batch: two batches of one account never wait on each other in a cycle.
  ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (account_id, day, model, key_id, agent_id) DO UPDATE SET
    requests = r.requests + EXCLUDED.requests,
    errors = r.errors + EXCLUDED.errors,
    spend_micros = r.spend_micros + EXCLUDED.spend_micros,
    input_tokens = r.input_tokens + EXCLUDED.input_tokens,
    output_tokens = r.output_tokens + EXCLUDED.output_tokens;
  RETURN NULL;
END
$$;

-- The log grouped as the rollups now group it, read once.
CREATE TEMPORARY TABLE usage_rollups_from_log ON COMMIT DROP AS
SELECT account_id, (created_at AT TIME ZONE 'UTC')::date AS day, COALESCE(model, requested_model, 'unknown') AS model, key_id, agent_id,
  count(*) AS requests, count(*) FILTER (WHERE status NOT IN ('success', 'deferred_billing')) AS errors, sum(cost_micros) AS spend_micros,
  sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
FROM usage_log
GROUP BY 1, 2, 3, 4, 5;

-- An account's day is recomputed where the log still holds every row the rollups counted
-- (the log keeps a subset of them, so equal counts mean the same rows). A day a retention
-- dropped, whole or in part, keeps its rollups as they are: under "no agent", without
-- tokens, and the group-by reads such days from the log (src/billing/usage-groups.ts).
CREATE TEMPORARY TABLE usage_rollups_whole_days ON COMMIT DROP AS
SELECT logged.account_id, logged.day
FROM (SELECT account_id, day, sum(requests) AS requests FROM usage_rollups_from_log GROUP BY 1, 2) logged
LEFT JOIN (SELECT account_id, day, sum(requests) AS requests FROM usage_daily_rollups GROUP BY 1, 2) rolled USING (account_id, day)
WHERE logged.requests >= COALESCE(rolled.requests, 0);

DELETE FROM usage_daily_rollups r USING usage_rollups_whole_days w WHERE r.account_id = w.account_id AND r.day = w.day;

INSERT INTO usage_daily_rollups (account_id, day, model, key_id, agent_id, requests, errors, spend_micros, input_tokens, output_tokens)
SELECT l.account_id, l.day, l.model, l.key_id, l.agent_id, l.requests, l.errors, l.spend_micros, l.input_tokens, l.output_tokens
FROM usage_rollups_from_log l JOIN usage_rollups_whole_days w USING (account_id, day);

CREATE UNIQUE INDEX usage_daily_rollups_identity ON usage_daily_rollups (account_id, day, model, key_id, agent_id) NULLS NOT DISTINCT;
