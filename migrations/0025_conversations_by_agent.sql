-- An agent's conversations, newest first, as the console's Conversations tab lists them: an
-- index range instead of a scan of the account's conversations. A conversation made empty
-- (the playground's, or POST /conversations) takes the agent of its first agent turn, as
-- appends now write it; those already written take it here.
UPDATE conversations c SET agent_id = first.agent_id
FROM (
  SELECT DISTINCT ON (m.conversation_id) m.conversation_id, m.agent_id
  FROM conversation_messages m
  WHERE m.agent_id IS NOT NULL AND m.agent_id <> ''
  ORDER BY m.conversation_id, m.position
) first
WHERE c.id = first.conversation_id AND c.agent_id = '';
CREATE INDEX conversations_agent ON conversations (account_id, agent_id, position);
