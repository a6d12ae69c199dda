-- The console (issue 11): people who sign in, the accounts they belong to, their
-- server-side sessions, and one-time links (first-owner setup, set-password invites).
-- Passwords and tokens are stored only as hashes.

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  -- scrypt$N$r$p$salt$hash (base64url); NULL until the person sets one through an invite link.
  password_hash text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

CREATE TABLE memberships (
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, account_id)
);
CREATE INDEX memberships_account ON memberships (account_id);

CREATE TABLE console_sessions (
  -- SHA-256 of the cookie's token: a database leak does not leak live sessions.
  token_hash bytea PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  account_id uuid NOT NULL REFERENCES accounts (id),
  csrf_token text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);

CREATE TABLE one_time_tokens (
  token_hash bytea PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('setup', 'set_password')),
  user_id uuid REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
