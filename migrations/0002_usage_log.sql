-- One row for every model call the gateway or an agent makes: success, upstream
-- error, refusal (limits, plan, rate) and client disconnect alike.
CREATE TABLE usage_log (
  id text PRIMARY KEY, -- generation id, "gen-…", returned to the caller as the response id
  account_id uuid NOT NULL REFERENCES accounts (id),
  key_id uuid REFERENCES api_keys (id),
  request_id text NOT NULL,
  endpoint text NOT NULL,
  requested_model text,
  model text, -- the catalog id that served (differs from requested_model after a fallback)
  provider text,
  upstream_model text,
  status text NOT NULL CHECK (status IN ('success', 'upstream_error', 'rejected', 'client_disconnect', 'error')),
  http_status integer,
  error_code text,
  input_tokens integer NOT NULL DEFAULT 0,
  output_tokens integer NOT NULL DEFAULT 0,
  cached_input_tokens integer NOT NULL DEFAULT 0,
  reasoning_tokens integer NOT NULL DEFAULT 0,
  -- Non-token units: images, characters, audio seconds, tool calls.
  units jsonb,
  cost_micros bigint NOT NULL DEFAULT 0 CHECK (cost_micros >= 0),
  latency_ms integer,
  attempts integer NOT NULL DEFAULT 1,
  streamed boolean NOT NULL DEFAULT false,
  agent_id text,
  agent_run_id text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_log_account_time ON usage_log (account_id, created_at DESC, id);
CREATE INDEX usage_log_key_time ON usage_log (key_id, created_at DESC);
CREATE INDEX usage_log_agent_run ON usage_log (agent_run_id) WHERE agent_run_id IS NOT NULL;
