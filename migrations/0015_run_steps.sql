-- The steps of agent runs as they happened, for the console's run page: retrieval, model
-- calls, tool calls (MCP and sub-agents nested under the call that made them), handoffs
-- and approvals, each with its tokens, cost and time.
--
-- Written off the turn's path in batches (src/runs/run-step-writer.ts); a row is kept
-- JUNCTION_RUN_RETENTION_DAYS days. `content` holds prompts, answers, arguments and
-- results, cut to a bound; it stays NULL for an account that keeps metadata only.
CREATE TABLE run_steps (
  id text PRIMARY KEY,
  account_id uuid NOT NULL,
  run_id text NOT NULL,
  -- The Responses API response the run answered, when it was one.
  response_id text,
  parent_step_id text,
  seq integer NOT NULL,
  kind text NOT NULL CHECK (kind IN ('retrieval', 'model', 'tool', 'mcp', 'agent', 'handoff', 'approval')),
  name text NOT NULL,
  -- The agent that took the step, and the path of agents that called it (sub-agents).
  agent_id text NOT NULL,
  agent_version text,
  agent_path text,
  key_id text,
  started_at timestamptz NOT NULL,
  ended_at timestamptz NOT NULL,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cost_micros bigint NOT NULL DEFAULT 0 CHECK (cost_micros >= 0),
  status text NOT NULL,
  content jsonb
);
CREATE INDEX run_steps_run ON run_steps (account_id, run_id, started_at, seq);
CREATE INDEX run_steps_response ON run_steps (account_id, response_id) WHERE response_id IS NOT NULL;
-- The retention sweep deletes the oldest rows first, a bounded batch at a time.
CREATE INDEX run_steps_age ON run_steps (started_at);

-- Per account: keep each step's content ('content') or its metadata only ('metadata').
ALTER TABLE accounts ADD COLUMN run_step_content text NOT NULL DEFAULT 'content'
  CHECK (run_step_content IN ('content', 'metadata'));
