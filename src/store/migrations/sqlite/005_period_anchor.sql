-- The start of an account's current subscription (epoch ms): paid plans' credit periods end on its
-- monthly anniversaries (SPEC §1, "reset monthly on subscription anniversary"). Set on creation,
-- moved when the account starts a different paid plan, cleared on a plan granted once. Accounts
-- made before this migration had their periods anchored on their creation, so that is their anchor.
ALTER TABLE accounts ADD COLUMN period_anchor INTEGER;
UPDATE accounts SET period_anchor = created_at;
