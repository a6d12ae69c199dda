-- Knowledge for agents: documents from knowledge/<collection>/, split into chunks,
-- embedded and full-text indexed. The folders are deployment-wide files, but every
-- row carries account_id and every query filters on it, so an account only ever
-- searches what was indexed for it.

CREATE TABLE knowledge_collections (
  account_id uuid NOT NULL REFERENCES accounts (id),
  name text NOT NULL,
  -- Model the stored embeddings were made with (NULL: indexed without an embedder).
  -- Search reads it to decide between hybrid and full-text-only retrieval.
  embedding_model text,
  indexed_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, name)
);

CREATE TABLE knowledge_documents (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL,
  collection text NOT NULL,
  path text NOT NULL,
  title text,
  -- Hash over the document's chunk hashes: an unchanged document is skipped whole.
  source_hash text NOT NULL,
  chunk_count integer NOT NULL,
  indexed_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (account_id, collection, path),
  FOREIGN KEY (account_id, collection) REFERENCES knowledge_collections (account_id, name) ON DELETE CASCADE
);

CREATE TABLE knowledge_chunks (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  document_id bigint NOT NULL REFERENCES knowledge_documents (id) ON DELETE CASCADE,
  -- Denormalised from the document so a search reads one table.
  collection text NOT NULL,
  path text NOT NULL,
  chunk_index integer NOT NULL,
  title text,
  heading text,
  content text NOT NULL,
  -- sha256 of the normalised text that is embedded plus the embedding model id:
  -- a re-index reuses the stored embedding of any chunk with the same hash.
  content_hash text NOT NULL,
  embedding_model text,
  -- Models differ in dimensions, so the column is untyped; HNSW indexes below are
  -- partial expression indexes per supported dimension count.
  dims integer,
  embedding vector,
  -- 'english' rather than 'simple': the example knowledge and the questions users ask
  -- agents are English prose, and stemming ("returning" ~ "returns") plus stop-word
  -- removal is what lets a natural-language question match at all without an
  -- embedder. Title and heading weigh more than body text.
  tsv tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(title, '') || ' ' || coalesce(heading, '')), 'A')
    || setweight(to_tsvector('english', content), 'B')
  ) STORED,
  UNIQUE (document_id, chunk_index),
  CHECK ((embedding IS NULL) = (dims IS NULL) AND (embedding IS NULL) = (embedding_model IS NULL)),
  CHECK (dims IS NULL OR vector_dims(embedding) = dims)
);
CREATE INDEX knowledge_chunks_scope ON knowledge_chunks (account_id, collection);
CREATE INDEX knowledge_chunks_hash ON knowledge_chunks (account_id, content_hash) WHERE embedding IS NOT NULL;
CREATE INDEX knowledge_chunks_tsv ON knowledge_chunks USING gin (tsv);

-- One HNSW index per common embedding size. Queries cast with the same typmod and
-- repeat the dims predicate so the planner can pick the matching index. vector's
-- HNSW stops at 2,000 dimensions, so 3,072 (text-embedding-3-large) goes through
-- halfvec. Other sizes still work, by exact scan.
CREATE INDEX knowledge_chunks_hnsw_256 ON knowledge_chunks
  USING hnsw ((embedding::vector(256)) vector_cosine_ops) WHERE dims = 256;
CREATE INDEX knowledge_chunks_hnsw_384 ON knowledge_chunks
  USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE dims = 384;
CREATE INDEX knowledge_chunks_hnsw_512 ON knowledge_chunks
  USING hnsw ((embedding::vector(512)) vector_cosine_ops) WHERE dims = 512;
CREATE INDEX knowledge_chunks_hnsw_768 ON knowledge_chunks
  USING hnsw ((embedding::vector(768)) vector_cosine_ops) WHERE dims = 768;
CREATE INDEX knowledge_chunks_hnsw_1024 ON knowledge_chunks
  USING hnsw ((embedding::vector(1024)) vector_cosine_ops) WHERE dims = 1024;
CREATE INDEX knowledge_chunks_hnsw_1536 ON knowledge_chunks
  USING hnsw ((embedding::vector(1536)) vector_cosine_ops) WHERE dims = 1536;
CREATE INDEX knowledge_chunks_hnsw_3072 ON knowledge_chunks
  USING hnsw ((embedding::halfvec(3072)) halfvec_cosine_ops) WHERE dims = 3072;
