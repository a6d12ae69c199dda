-- Retention of runs and conversations: the sweeps delete the oldest rows first, a bounded
-- batch at a time, so each needs its age in an index.

-- Finished runs (their streamed events go with them); a run paused for an approval is kept.
CREATE INDEX agent_runs_finished_age ON agent_runs (updated_at)
  WHERE status IN ('completed', 'incomplete', 'failed', 'cancelled', 'superseded');
-- Conversations by last activity (a turn touches updated_at).
CREATE INDEX conversations_age ON conversations (updated_at);
-- Responses that never reached a conversation (those in one go with it).
CREATE INDEX responses_unattached_age ON responses (created_at) WHERE conversation_id IS NULL;
