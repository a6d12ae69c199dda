-- Indexes in the order the usage log is read: one account's rows, optionally of one model,
-- status, endpoint or key, newest first by (created_at, id) — the keyset the console's
-- Usage page, its exports and GET /v1/usage page by. A filter that matches nothing is an
-- empty range of its index instead of a scan of the account's whole log.
CREATE INDEX usage_log_account_time_id ON usage_log (account_id, created_at DESC, id DESC);
DROP INDEX usage_log_account_time;
CREATE INDEX usage_log_account_model_time ON usage_log (account_id, model, created_at DESC, id DESC);
-- Nearly every row is a success: that filter reads the account's range; the rare statuses get their own.
CREATE INDEX usage_log_account_status_time ON usage_log (account_id, status, created_at DESC, id DESC) WHERE status <> 'success';
CREATE INDEX usage_log_account_endpoint_time ON usage_log (account_id, endpoint, created_at DESC, id DESC);
-- A key belongs to one account: its rows need no account column in front.
CREATE INDEX usage_log_key_time_id ON usage_log (key_id, created_at DESC, id DESC);
DROP INDEX usage_log_key_time;
