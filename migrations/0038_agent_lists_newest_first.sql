-- The console's lists of an agent's records, newest first, as index ranges read backward:
-- without these a filter read every row of the agent (or key) and kept the few that match.

-- An agent's conversations of one key, as the Conversations tab filtered by key and a
-- member's view of their own playground's list them.
CREATE INDEX conversations_agent_key ON conversations (account_id, agent_id, key_id, position);

-- The rated runs of an agent, and of one of its versions; the version index, holding the
-- score and time too, also answers the agent page's sums per version from the index alone.
CREATE INDEX agent_feedback_agent_newest ON agent_feedback (account_id, agent_id, position);
CREATE INDEX agent_feedback_agent_version_newest ON agent_feedback (account_id, agent_id, agent_version, position) INCLUDE (score, created_at);
DROP INDEX agent_feedback_agent;
