-- The console's sign-in and link-password attempt windows, shared by every process on
-- the database, so a guesser spread over several workers or hosts gets no more tries
-- than on one. The subject (an email and an address, or an address) is stored only as
-- its SHA-256.

CREATE TABLE sign_in_attempt_windows (
  scope text NOT NULL,
  subject_hash bytea NOT NULL,
  ends_at timestamptz NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (scope, subject_hash)
);
-- Ended windows are swept by their end.
CREATE INDEX sign_in_attempt_windows_ends_at ON sign_in_attempt_windows (ends_at);
