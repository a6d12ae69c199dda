-- Who granted credit: the console person's email for grants made in the console's Credits
-- page, null for grants the operator's CLI made. An email, not a user id, so the record
-- outlives the person's account on this server.
ALTER TABLE credit_grants ADD COLUMN granted_by text;
