-- Accounts, API keys, the credit ledger and budget leases.
-- Money is integer micro-USD (bigint) everywhere; grants keep their original
-- currency amount as numeric beside the USD equivalent fixed at grant time.

CREATE TABLE accounts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL,
  plan text NOT NULL DEFAULT 'default',
  is_default boolean NOT NULL DEFAULT false,
  -- Sum of credit grants in micro-USD, kept beside the ledger so a lease can be
  -- taken with one conditional UPDATE of this row.
  granted_micros bigint NOT NULL DEFAULT 0,
  usage_micros bigint NOT NULL DEFAULT 0,
  -- Budget handed to gateway processes and not yet settled or returned.
  leased_micros bigint NOT NULL DEFAULT 0 CHECK (leased_micros >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX accounts_single_default ON accounts (is_default) WHERE is_default;

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  -- Creation order for stable paging (timestamps can tie).
  position bigint GENERATED ALWAYS AS IDENTITY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  kind text NOT NULL CHECK (kind IN ('model', 'provisioning', 'agent')),
  -- Public part of the key, used to find the row; the secret part is only hashed.
  lookup_id text NOT NULL UNIQUE,
  secret_hash bytea NOT NULL,
  label text NOT NULL,
  name text NOT NULL,
  description text,
  daily_limit_micros bigint CHECK (daily_limit_micros >= 0),
  monthly_limit_micros bigint CHECK (monthly_limit_micros >= 0),
  total_limit_micros bigint CHECK (total_limit_micros >= 0),
  expires_at timestamptz,
  allowed_models text[],
  rate_limit_rpm integer CHECK (rate_limit_rpm > 0),
  disabled boolean NOT NULL DEFAULT false,
  deleted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  -- Spend counters per UTC window; a window's counter counts only while its date matches.
  spend_day integer, -- days since 1970-01-01 UTC
  spend_day_micros bigint NOT NULL DEFAULT 0,
  spend_month integer, -- year * 12 + month index (UTC)
  spend_month_micros bigint NOT NULL DEFAULT 0,
  spend_total_micros bigint NOT NULL DEFAULT 0,
  leased_micros bigint NOT NULL DEFAULT 0 CHECK (leased_micros >= 0)
);
CREATE INDEX api_keys_account ON api_keys (account_id, position) WHERE deleted_at IS NULL;

CREATE TABLE credit_grants (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id uuid NOT NULL REFERENCES accounts (id),
  currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount numeric(20, 6) NOT NULL CHECK (amount > 0),
  usd_rate numeric(20, 10) NOT NULL CHECK (usd_rate > 0),
  usd_micros bigint NOT NULL CHECK (usd_micros > 0),
  note text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX credit_grants_account ON credit_grants (account_id);

-- A running gateway process; its leases are reclaimed when its heartbeat goes stale.
CREATE TABLE lease_holders (
  id uuid PRIMARY KEY,
  started_at timestamptz NOT NULL DEFAULT now(),
  heartbeat_at timestamptz NOT NULL DEFAULT now()
);

-- Budget a process holds in memory. Exactly one of key_id / account_id is set.
CREATE TABLE budget_leases (
  holder_id uuid NOT NULL REFERENCES lease_holders (id) ON DELETE CASCADE,
  key_id uuid REFERENCES api_keys (id),
  account_id uuid REFERENCES accounts (id),
  amount_micros bigint NOT NULL CHECK (amount_micros >= 0),
  CHECK ((key_id IS NULL) <> (account_id IS NULL))
);
CREATE UNIQUE INDEX budget_leases_key ON budget_leases (holder_id, key_id) WHERE key_id IS NOT NULL;
CREATE UNIQUE INDEX budget_leases_account ON budget_leases (holder_id, account_id) WHERE account_id IS NOT NULL;
