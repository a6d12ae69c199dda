-- An agent's feedback summed per version, kept as each entry is written or deleted, so the
-- console's summary reads one row per version instead of every entry of the agent.
-- The latest entry of each version is not kept here: it is one step down migration 0038's
-- index, and keeping it would need a search whenever a version's newest entry is deleted.
--
-- Whether an entry counts as "up" is decided here, once: the sums and the rated runs'
-- filter both call agent_feedback_is_up.
CREATE FUNCTION agent_feedback_is_up(score double precision) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN score >= 0.5;

CREATE TABLE agent_feedback_version_totals (
  account_id uuid NOT NULL REFERENCES accounts (id),
  agent_id text NOT NULL,
  -- NULL for answers written by no known version, as in agent_feedback.
  agent_version text,
  entries bigint NOT NULL,
  -- Exact under addition and subtraction, so deletes leave no rounding behind.
  score_sum numeric NOT NULL,
  up bigint NOT NULL,
  down bigint NOT NULL,
  UNIQUE NULLS NOT DISTINCT (account_id, agent_id, agent_version)
);

-- Adds the entries of the transition table named by each pair of arguments, times the pair's
-- sign (1 or -1); an update passes the old rows with -1 and the new with 1. Rows are written
-- in key order, one lock order for every statement.
CREATE FUNCTION agent_feedback_count_versions() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  FOR pair IN 0 .. TG_NARGS / 2 - 1 LOOP
    EXECUTE format(
      $sql$INSERT INTO agent_feedback_version_totals AS t (account_id, agent_id, agent_version, entries, score_sum, up, down)
      SELECT account_id, agent_id, agent_version, %2$s * count(*), %2$s * sum(score::numeric),
        %2$s * count(*) FILTER (WHERE agent_feedback_is_up(score)), %2$s * count(*) FILTER (WHERE NOT agent_feedback_is_up(score))
      FROM %1$I GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
      ON CONFLICT (account_id, agent_id, agent_version) DO UPDATE SET
        entries = t.entries + EXCLUDED.entries, score_sum = t.score_sum + EXCLUDED.score_sum, up = t.up + EXCLUDED.up, down = t.down + EXCLUDED.down$sql$,
      TG_ARGV[pair * 2], TG_ARGV[pair * 2 + 1]::int);
  END LOOP;
  RETURN NULL;
END
$$;

-- Taken by the first trigger anyway; named so the backfill below reads every row written before.
LOCK TABLE agent_feedback IN SHARE ROW EXCLUSIVE MODE;

-- A deleted response or conversation deletes its feedback by cascade, which fires these too:
-- once per statement, with every row its cascades removed, so each statement still takes its
-- locks in key order.
CREATE TRIGGER agent_feedback_version_totals_insert AFTER INSERT ON agent_feedback
  REFERENCING NEW TABLE AS agent_feedback_added FOR EACH STATEMENT
  EXECUTE FUNCTION agent_feedback_count_versions('agent_feedback_added', '1');
CREATE TRIGGER agent_feedback_version_totals_delete AFTER DELETE ON agent_feedback
  REFERENCING OLD TABLE AS agent_feedback_removed FOR EACH STATEMENT
  EXECUTE FUNCTION agent_feedback_count_versions('agent_feedback_removed', '-1');
CREATE TRIGGER agent_feedback_version_totals_update AFTER UPDATE ON agent_feedback
  REFERENCING OLD TABLE AS agent_feedback_removed NEW TABLE AS agent_feedback_added FOR EACH STATEMENT
  EXECUTE FUNCTION agent_feedback_count_versions('agent_feedback_removed', '-1', 'agent_feedback_added', '1');

INSERT INTO agent_feedback_version_totals (account_id, agent_id, agent_version, entries, score_sum, up, down)
SELECT account_id, agent_id, agent_version, count(*), sum(score::numeric),
  count(*) FILTER (WHERE agent_feedback_is_up(score)), count(*) FILTER (WHERE NOT agent_feedback_is_up(score))
FROM agent_feedback GROUP BY 1, 2, 3;
