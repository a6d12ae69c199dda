-- Invitations (issue 63, item 7): adding a person to an account no longer creates a user
-- or a membership; it creates an invitation of that account only, whose link (a token
-- stored as its hash) is single-use, revocable and expires after 7 days.

CREATE TABLE invitations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  account_id uuid NOT NULL REFERENCES accounts (id),
  -- Lowercased: compared with the signed-in user's email on acceptance.
  email text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
  token_hash bytea NOT NULL UNIQUE,
  invited_by uuid REFERENCES users (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  accepted_by uuid REFERENCES users (id) ON DELETE SET NULL,
  revoked_at timestamptz,
  CHECK (accepted_at IS NULL OR revoked_at IS NULL)
);
-- One open invitation per person and account: inviting again replaces it.
CREATE UNIQUE INDEX invitations_open_email ON invitations (account_id, lower(email)) WHERE accepted_at IS NULL AND revoked_at IS NULL;
CREATE INDEX invitations_account ON invitations (account_id, created_at);

-- Set-password links issued before invitations carried no account: bind each to the one
-- account it can only have come from (a passwordless user with one membership and one
-- such link ever), and retire the rest, which another account may have asked for.
ALTER TABLE one_time_tokens ADD COLUMN account_id uuid REFERENCES accounts (id);
UPDATE one_time_tokens t SET account_id = m.account_id
FROM memberships m, users u
WHERE t.purpose = 'set_password' AND t.used_at IS NULL
  AND m.user_id = t.user_id AND u.id = t.user_id AND u.password_hash IS NULL
  AND (SELECT count(*) FROM memberships o WHERE o.user_id = t.user_id) = 1
  AND (SELECT count(*) FROM one_time_tokens o WHERE o.user_id = t.user_id AND o.purpose = 'set_password') = 1;
UPDATE one_time_tokens SET used_at = now() WHERE purpose = 'set_password' AND used_at IS NULL AND account_id IS NULL;

-- Playground identity (issue 63, item 8): the agent key a person's playground runs are
-- stored under is bound to (account, user) here, never found by its name. Keys found by
-- name before are not bound: their runs stay under them, and a fresh key is made.
CREATE TABLE playground_keys (
  account_id uuid NOT NULL REFERENCES accounts (id),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_id uuid NOT NULL UNIQUE REFERENCES api_keys (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id)
);
