-- Quarry initial schema (PostgreSQL). Times are epoch milliseconds (BIGINT); JSON columns are JSONB.
-- No CHECK ties credits_used to credits_cap: a plan downgrade may lower the cap below what was
-- already used. The cap is enforced by the conditional UPDATE that reserves credits.

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  plan_id TEXT NOT NULL,
  status TEXT NOT NULL,
  cadence TEXT,
  credits_used BIGINT NOT NULL DEFAULT 0,
  credits_reserved BIGINT NOT NULL DEFAULT 0 CHECK (credits_reserved >= 0),
  credits_cap BIGINT NOT NULL,
  period_end BIGINT,
  sharpen_stage TEXT,
  created_at BIGINT NOT NULL
);

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_hash TEXT NOT NULL UNIQUE,
  hint TEXT NOT NULL,
  name TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT
);

CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE reservations (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  amount BIGINT NOT NULL CHECK (amount >= 0),
  created_at BIGINT NOT NULL
);

CREATE INDEX reservations_created ON reservations (created_at);

CREATE TABLE ledger (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key_id TEXT,
  capability TEXT NOT NULL,
  operation TEXT NOT NULL,
  credits BIGINT NOT NULL,
  cost_usd DOUBLE PRECISION NOT NULL,
  request_id TEXT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE INDEX ledger_account_created ON ledger (account_id, created_at);

CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  capability TEXT NOT NULL,
  query JSONB NOT NULL,
  state JSONB NOT NULL,
  expires_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL
);

CREATE INDEX sessions_expires ON sessions (expires_at);

-- Records go with their session (sweepExpired deletes sessions only).
CREATE TABLE records (
  id TEXT PRIMARY KEY,
  search_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
  account_id TEXT NOT NULL,
  position BIGINT NOT NULL,
  summary JSONB NOT NULL,
  ref JSONB,
  detail JSONB,
  links JSONB,
  actions JSONB NOT NULL DEFAULT '{}'::jsonb
);

CREATE UNIQUE INDEX records_search_position ON records (search_id, position);
