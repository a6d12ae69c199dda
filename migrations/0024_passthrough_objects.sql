-- Owners of the objects pass-through calls create in the one provider account all
-- tenants share (issue 63): a pass-through path or body naming an id that is not the
-- caller's account's answers 404, and list endpoints are served from these rows.
-- Objects created before this table existed have no row, so no account reaches them.

CREATE TABLE passthrough_objects (
  -- The provider's id (file-…, resp_…, asst_…, thread_…, vs_…, batch_…, run_…, msg_…):
  -- unique within the provider account.
  upstream_id text PRIMARY KEY,
  -- Recording order, for stable list paging (timestamps can tie).
  position bigint GENERATED ALWAYS AS IDENTITY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  created_by_key_id uuid REFERENCES api_keys (id) ON DELETE SET NULL,
  -- The top-level family's kind (file, response, assistant, thread, vector_store, batch)
  -- or the provider's `object` for one created under a parent (thread.run, thread.message, …).
  kind text NOT NULL,
  -- The object as Junction last saw it in an answer: what list endpoints show.
  snapshot jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX passthrough_objects_account_list ON passthrough_objects (account_id, kind, position);
