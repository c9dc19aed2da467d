-- Credits of the one-time grant used before the account left its plan granted once for a paid
-- plan, put back as credits_used if it returns (SPEC §1: the free plan's credits are granted once;
-- accounts.ts setPlan). Accounts migrated while on a paid plan start at 0: how much of the grant
-- they used before this column existed was not recorded.
ALTER TABLE accounts ADD COLUMN grant_used INTEGER NOT NULL DEFAULT 0;
