-- Accounts for people (docs/dashboard.md): dashboard logins and sessions, OAuth clients, codes,
-- grants and tokens, settings kept by the store (the generated session secret), and when each API
-- key was last used. Secrets are never stored: passwords as scrypt hashes, session ids, codes,
-- tokens and client secrets as SHA-256.

ALTER TABLE api_keys ADD COLUMN last_used_at INTEGER;

CREATE TABLE logins (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  email TEXT NOT NULL UNIQUE,
  password_hash TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_sign_in_at INTEGER
) STRICT;

CREATE INDEX logins_account ON logins (account_id, created_at);

CREATE TABLE web_sessions (
  id_hash TEXT PRIMARY KEY,
  account_id TEXT REFERENCES accounts (id) ON DELETE CASCADE,
  login_id TEXT REFERENCES logins (id) ON DELETE CASCADE,
  data TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;

CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
CREATE INDEX web_sessions_login ON web_sessions (login_id);

CREATE TABLE settings (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE oauth_clients (
  id TEXT PRIMARY KEY,
  secret_hash TEXT,
  metadata TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE oauth_codes (
  code_hash TEXT PRIMARY KEY,
  client_id TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  grant_id TEXT NOT NULL,
  redirect_uri TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  scope TEXT NOT NULL,
  resource TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;

CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);

CREATE TABLE oauth_grants (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  client_id TEXT NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  client_name TEXT NOT NULL,
  scope TEXT NOT NULL,
  resource TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER,
  revoked_at INTEGER
) STRICT;

CREATE INDEX oauth_grants_account ON oauth_grants (account_id, created_at);

CREATE TABLE oauth_tokens (
  token_hash TEXT PRIMARY KEY,
  grant_id TEXT NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  used_at INTEGER
) STRICT;

CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);
