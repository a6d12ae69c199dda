-- Drafts and releases of console agents: a save is a draft; `latest_version` (0007) stays
-- the published version callers get, and a staged version may serve a share of conversations.

ALTER TABLE console_agents
  ADD COLUMN staged_version integer,
  ADD COLUMN staged_share integer CHECK (staged_share BETWEEN 1 AND 99),
  ADD COLUMN staged_at timestamptz,
  ADD CONSTRAINT console_agents_staged_pair CHECK ((staged_version IS NULL) = (staged_share IS NULL));

-- Who saved, published, staged, promoted, aborted, rolled back or deleted what, and when.
-- Kept after the agent is deleted, so a deletion stays on record.
CREATE TABLE console_agent_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  agent_id text NOT NULL,
  action text NOT NULL CHECK (action IN ('created', 'saved', 'published', 'rolled_back', 'staged', 'promoted', 'aborted', 'deleted')),
  version integer,
  -- The published version before the change (publish, rollback, promote).
  previous_version integer,
  share integer,
  actor_id uuid REFERENCES users (id) ON DELETE SET NULL,
  actor_email text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX console_agent_audit_agent ON console_agent_audit (account_id, agent_id, id DESC);
