-- An agent's conversations of one key, newest first, as the console lists them filtered by
-- key and as a member sees their own playground's: an index range, instead of a walk through
-- all of that key's (or that agent's) conversations for the few that are both.
CREATE INDEX conversations_agent_key ON conversations (account_id, agent_id, key_id, position);
