-- Evaluations: one agent version run over a dataset, each case a real run through the
-- runtime (billed and logged as evaluation traffic), scored by the evaluation's scorers;
-- and experiments, which compare two evaluations of one dataset case by case.

CREATE TABLE evaluation_runs (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  agent_id text NOT NULL,
  -- The version as asked ('draft', 'published', '5') and as resolved ('v5', a file's content hash).
  version_selector text NOT NULL,
  agent_version text,
  dataset_id text NOT NULL REFERENCES eval_datasets (id) ON DELETE CASCADE,
  dataset_name text NOT NULL,
  -- The scorer declarations the cases were scored with (src/agents/scorer-declarations.ts).
  scorers jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('running', 'completed', 'stopped', 'failed')),
  concurrency integer NOT NULL CHECK (concurrency BETWEEN 1 AND 32),
  max_cost_micros bigint,
  cost_micros bigint NOT NULL DEFAULT 0,
  case_count integer NOT NULL DEFAULT 0,
  cases_done integer NOT NULL DEFAULT 0,
  -- Why it ended before every case ran ('max_cost_usd'), or what failed.
  stop_reason text,
  error text,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE INDEX evaluation_runs_account ON evaluation_runs (account_id, created_at DESC);

CREATE TABLE evaluation_results (
  evaluation_id text NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  -- The case as it was run: a case edited or deleted later leaves the result as it was.
  case_id text NOT NULL,
  account_id uuid NOT NULL REFERENCES accounts (id),
  position bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('completed', 'failed', 'skipped')),
  input jsonb NOT NULL,
  reference text,
  answer text,
  -- The agent run (its run page and its usage rows).
  run_id text,
  scores jsonb NOT NULL DEFAULT '[]',
  score double precision,
  cost_micros bigint NOT NULL DEFAULT 0,
  latency_ms integer,
  error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (evaluation_id, case_id)
);

CREATE TABLE experiments (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  agent_id text NOT NULL,
  dataset_id text NOT NULL REFERENCES eval_datasets (id) ON DELETE CASCADE,
  baseline_evaluation_id text NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  candidate_evaluation_id text NOT NULL REFERENCES evaluation_runs (id) ON DELETE CASCADE,
  created_by text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX experiments_account ON experiments (account_id, created_at DESC);
