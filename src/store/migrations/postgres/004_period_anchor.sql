-- The start of an account's current subscription (epoch ms): paid plans' credit periods end on its
-- monthly anniversaries; see the SQLite migration 005 of the same name. Accounts made before this
-- migration had their periods anchored on their creation, so that is their anchor.
ALTER TABLE accounts ADD COLUMN period_anchor BIGINT;
UPDATE accounts SET period_anchor = created_at;
