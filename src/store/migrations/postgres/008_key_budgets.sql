-- Budgets per key: a key's own credit limit per billing period; see the SQLite migration 008 of the
-- same name. Columns on api_keys rather than a table of their own: every call already reads its key's
-- row (the key lookup, cached), so the limit comes with it and a key without one costs no query; a
-- key has at most one budget, and its counters lock the key's row, which nothing on the hot path holds.
--   credit_limit: credits the key may spend per period; NULL: no limit (only the account's cap applies).
--   credits_used: what the key spent in the period that ended at used_period_end (counted while it
--     has a limit); the use of an earlier period counts as 0, so a new period resets it without a write.
--   credits_reserved: held by its calls in flight (reservations with its key_id).
--   used_period_end: the account's period_end when credits_used was last written (NULL on a plan
--     granted once, whose grant never resets).
ALTER TABLE api_keys
  ADD COLUMN credit_limit BIGINT CHECK (credit_limit >= 0),
  ADD COLUMN credits_used BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN credits_reserved BIGINT NOT NULL DEFAULT 0 CHECK (credits_reserved >= 0),
  ADD COLUMN used_period_end BIGINT;

-- The key a hold also counts against (its limit); NULL when the key had none, or for an OAuth grant.
-- No foreign key: keys are revoked, never deleted, and a hold without a key writes nothing more.
ALTER TABLE reservations ADD COLUMN key_id TEXT;
