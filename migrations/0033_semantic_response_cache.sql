-- Semantic matching for the response cache (src/pipeline/response-cache.ts): an entry
-- stored by a call that opted in with `"cache": {"semantic": true}` also keeps the hash of
-- its request without the conversation (the "shape": models, tools, sampling, response
-- format, system prompt, turn roles) and the embedding of the conversation's text. A later
-- call of the same account and shape whose text embeds close enough is answered from it.
--
-- The vector column has no dimension: the embedding model is a setting, and an entry says
-- which model made its vector. There is no approximate index: a lookup is an exact scan of
-- one account's live entries of one shape (bounded in the query), which is small for a
-- cache and needs no per-dimension index.
ALTER TABLE response_cache
  ADD COLUMN shape_hash text,
  ADD COLUMN embedding_model text,
  ADD COLUMN embedding vector;
ALTER TABLE response_cache ADD CONSTRAINT response_cache_semantic_columns
  CHECK ((shape_hash IS NULL) = (embedding IS NULL) AND (embedding IS NULL) = (embedding_model IS NULL));
-- A semantic lookup reads one account's entries of one shape and model.
CREATE INDEX response_cache_shape ON response_cache (account_id, shape_hash, embedding_model, created_at) WHERE embedding IS NOT NULL;
