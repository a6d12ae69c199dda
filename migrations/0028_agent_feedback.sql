-- Feedback on agent answers: a score from 0 to 1 (thumbs up is 1, down is 0), a label and a
-- comment, given by an end user's app through the Agents API or by a person in the console's
-- playground. An answer may collect many entries, each its own row with the key that gave it.
--
-- Each row names the agent and the VERSION that wrote the answer, so feedback adds up per
-- version (a staged release is judged against the published one). The answer is a stored
-- response, or a conversation message (the chat endpoint's message_id); deleting its
-- conversation deletes its feedback with it.
CREATE TABLE agent_feedback (
  id text PRIMARY KEY,
  -- Creation order for stable newest-first paging (timestamps can tie).
  position bigint GENERATED ALWAYS AS IDENTITY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  response_id text REFERENCES responses (id) ON DELETE CASCADE,
  message_id text,
  conversation_id text REFERENCES conversations (id) ON DELETE CASCADE,
  run_id text,
  agent_id text NOT NULL,
  agent_version text,
  -- The key that gave it (a person's playground key in the console); kept when the key goes.
  key_id uuid,
  score double precision NOT NULL CHECK (score >= 0 AND score <= 1),
  thumb text CHECK (thumb IN ('up', 'down')),
  label text CHECK (char_length(label) <= 100),
  comment text CHECK (char_length(comment) <= 2000),
  metadata jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK (response_id IS NOT NULL OR message_id IS NOT NULL)
);
CREATE INDEX agent_feedback_response ON agent_feedback (account_id, response_id) WHERE response_id IS NOT NULL;
CREATE INDEX agent_feedback_message ON agent_feedback (account_id, message_id) WHERE message_id IS NOT NULL;
CREATE INDEX agent_feedback_run ON agent_feedback (account_id, run_id) WHERE run_id IS NOT NULL;
-- The agent page's sums per version, and the runs list filtered by agent.
CREATE INDEX agent_feedback_agent ON agent_feedback (account_id, agent_id, agent_version);
CREATE INDEX agent_feedback_newest ON agent_feedback (account_id, position DESC);
