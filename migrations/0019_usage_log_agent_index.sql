-- The usage log read by agent, as the console's Usage page filters it: one agent's rows
-- are an index range, read newest first by a backward scan, instead of a scan of the
-- account's whole log. Ascending like the log's other read indexes, so new rows land at
-- the right edge. Only rows of an agent are indexed; gateway calls carry none.
CREATE INDEX usage_log_account_agent_time ON usage_log (account_id, agent_id, created_at, id) WHERE agent_id IS NOT NULL;
