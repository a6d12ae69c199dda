-- Items deleted through OpenAI's Conversations API (DELETE /conversations/{id}/items/{item_id}).
--
-- A conversation is a tree, so a deleted item is hidden, never removed: its node keeps
-- its place and its children keep their parent. One node can show as several items (an
-- assistant's text and each of its tool calls), so the hidden ones are listed by item id;
-- deleted_at is set once every item of the node is hidden. Item lists, item retrieval and
-- the history later turns load all skip what is hidden.

ALTER TABLE conversation_messages ADD COLUMN hidden_items text[] NOT NULL DEFAULT '{}';
ALTER TABLE conversation_messages ADD COLUMN deleted_at timestamptz;
