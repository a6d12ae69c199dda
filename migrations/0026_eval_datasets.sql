-- Datasets of evaluation cases: each case is an input (one user message, or a conversation
-- so far), an optional reference answer, optional expectations and tags, taken from
-- production runs, from JSONL files or written by hand. Datasets belong to one account and
-- are addressed by name within it (the CLI and the API), so the name is unique per account.

CREATE TABLE eval_datasets (
  id text PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, name)
);

CREATE TABLE eval_cases (
  id text PRIMARY KEY,
  dataset_id text NOT NULL REFERENCES eval_datasets (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- Insertion order for stable paging and for an export that reads back as it was imported.
  position bigint GENERATED ALWAYS AS IDENTITY,
  -- A string (one user message) or an array of {role, content} messages.
  input jsonb NOT NULL,
  reference text,
  -- Expectations (src/evaluation/case-expectations.ts): tool calls, citations, texts, a regex, a JSON schema.
  expect jsonb,
  tags text[] NOT NULL DEFAULT '{}',
  -- Where the case came from: {"response_id"}, {"run_id"}, {"conversation_id","item_id"} or {"file"}.
  source jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX eval_cases_dataset ON eval_cases (dataset_id, position);
