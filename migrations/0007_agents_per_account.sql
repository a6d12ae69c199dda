-- Agents belong to accounts (issue 12). File agents name their owner with `account:`;
-- agents made in the console live here, every save an immutable version.

CREATE TABLE console_agents (
  account_id uuid NOT NULL REFERENCES accounts (id),
  agent_id text NOT NULL CHECK (agent_id ~ '^[a-zA-Z0-9_-]{1,64}$'),
  -- The version that serves; a rollback points it at an older one.
  latest_version integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, agent_id)
);

CREATE TABLE console_agent_versions (
  account_id uuid NOT NULL,
  agent_id text NOT NULL,
  version integer NOT NULL CHECK (version > 0),
  -- The agent file's fields (snake_case), validated with the same schema as files.
  definition jsonb NOT NULL,
  change_note text,
  created_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_by_email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, agent_id, version),
  FOREIGN KEY (account_id, agent_id) REFERENCES console_agents (account_id, agent_id) ON DELETE CASCADE
);

-- Which agent version produced a call (file agents: a content hash; console agents: vN).
ALTER TABLE usage_log ADD COLUMN agent_version text;
