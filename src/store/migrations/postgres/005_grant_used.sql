-- Credits of the one-time grant used before the account left its plan granted once for a paid
-- plan; see the SQLite migration 006 of the same name.
ALTER TABLE accounts ADD COLUMN grant_used BIGINT NOT NULL DEFAULT 0;
