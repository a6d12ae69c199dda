-- The response cache (src/pipeline/response-cache.ts): a successful, complete answer of a
-- model call that opted in, kept per account under the hash of its canonical request, and
-- answered again without asking the provider until it expires. Never shared across
-- accounts: the account is half of the key.
CREATE TABLE response_cache (
  account_id uuid NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  -- SHA-256 (hex) of the canonical request: the served model ids, messages, tools,
  -- sampling parameters and response format, keys in a stable order.
  request_hash text NOT NULL,
  -- The catalog id of the model that answered.
  model text NOT NULL,
  -- The canonical answer as JSON text: a whole response, or the events of a stream.
  entry text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (account_id, request_hash)
);
-- The sweep deletes expired rows oldest first.
CREATE INDEX response_cache_expiry ON response_cache (expires_at);

-- A key may opt every call it makes into the cache, for this many seconds.
ALTER TABLE api_keys ADD COLUMN cache_ttl_seconds integer CHECK (cache_ttl_seconds IS NULL OR cache_ttl_seconds > 0);

-- Provider prompt caching: tokens written to the provider's cache (priced at their own
-- rate, like cached_input_tokens), and whether the gateway answered from its own cache.
ALTER TABLE usage_log ADD COLUMN cache_write_tokens integer NOT NULL DEFAULT 0;
ALTER TABLE usage_log ADD COLUMN cache_hit boolean NOT NULL DEFAULT false;

-- The settlement batch's row type follows usage_log's new columns, in USAGE_COLUMNS' order.
ALTER TYPE usage_row ADD ATTRIBUTE cache_write_tokens integer, ADD ATTRIBUTE cache_hit boolean;
