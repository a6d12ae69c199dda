-- Durable agent runs: LangGraph checkpoints, background runs with leases, their events.
--
-- Checkpoint tables follow the layout of LangGraph's own PostgreSQL saver: a checkpoint
-- row holds the channel versions only; every channel value is a blob keyed by
-- (channel, version), so a step that changes one channel writes one blob, not the whole
-- state again. Pending writes are the outputs of tasks of a step that has not finished.
-- A run's thread id is the run id; its rows are deleted once the run cannot resume.

CREATE TABLE agent_checkpoints (
  thread_id text NOT NULL,
  checkpoint_ns text NOT NULL DEFAULT '',
  checkpoint_id text NOT NULL,
  parent_checkpoint_id text,
  -- The checkpoint without its channel values (serialised by the saver's serde).
  checkpoint jsonb NOT NULL,
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);

CREATE TABLE agent_checkpoint_blobs (
  thread_id text NOT NULL,
  checkpoint_ns text NOT NULL DEFAULT '',
  channel text NOT NULL,
  version text NOT NULL,
  -- The serde type tag ('json', 'bytes', …) or 'empty' for a channel with no value.
  type text NOT NULL,
  blob bytea,
  PRIMARY KEY (thread_id, checkpoint_ns, channel, version)
);

CREATE TABLE agent_checkpoint_writes (
  thread_id text NOT NULL,
  checkpoint_ns text NOT NULL DEFAULT '',
  checkpoint_id text NOT NULL,
  task_id text NOT NULL,
  idx integer NOT NULL,
  channel text NOT NULL,
  type text NOT NULL,
  blob bytea NOT NULL,
  task_path text NOT NULL DEFAULT '',
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);

-- One row per Responses run that can outlive its request: background runs, and runs
-- paused for an approval. The process running it holds a lease it renews; a run whose
-- lease expired (its process died) is claimed by another live process, which resumes it
-- from its last checkpoint. Finishing is fenced on the holder, so a run finishes once.
CREATE TABLE agent_runs (
  id text PRIMARY KEY,
  response_id text NOT NULL UNIQUE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  key_id uuid NOT NULL REFERENCES api_keys (id),
  agent_id text NOT NULL,
  -- queued | in_progress | completed | incomplete | failed | cancelled
  status text NOT NULL,
  background boolean NOT NULL,
  -- Everything a process needs to rebuild the run: the request body and its continuation.
  request jsonb NOT NULL,
  holder_id uuid,
  lease_expires_at timestamptz,
  cancel_requested boolean NOT NULL DEFAULT false,
  -- The response as it stood at the last checkpoint: output items, totals, event sequence.
  snapshot jsonb,
  -- How many times a process (re)started it: 1 for a run that was never resumed.
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agent_runs_claimable ON agent_runs (lease_expires_at) WHERE status IN ('queued', 'in_progress');

-- The streaming events of a background run, for GET …?stream=true&starting_after=N.
CREATE TABLE agent_run_events (
  run_id text NOT NULL REFERENCES agent_runs (id) ON DELETE CASCADE,
  sequence_number integer NOT NULL,
  event jsonb NOT NULL,
  PRIMARY KEY (run_id, sequence_number)
);
