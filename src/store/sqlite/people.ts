/**
 * The embedded store's people aggregate (PeopleStore, migration 007): logins, dashboard sessions,
 * OAuth clients, codes, grants and tokens. The reads run on the event loop's connection
 * (SqlitePeople); the writes are ops of the writer (applyPeopleWrite, `t: "people"`), so they run
 * on the writer thread in its batches like every other write; a key's last use (accounts.ts) and
 * the settings (store.ts) ride the same ops. No op throws for an expected outcome (an email taken,
 * a code replayed): they answer it, so a batch never rolls back for them.
 */
import {
  TOKEN_JOIN_COLUMNS,
  toLogin,
  toOAuthClient,
  toOAuthCode,
  toOAuthGrant,
  toOAuthToken,
  toWebSession,
} from "../people-sql.ts";
import { decodeJsonText, jsonText, type Raw, toAccount } from "../sql-common.ts";
import type {
  AccountRow,
  LoginRow,
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  WebSessionRow,
} from "../types.ts";
import type { SqliteAccess } from "./access.ts";
import { withHolds } from "./memory-holds.ts";
import type { PeopleWrite } from "./write-ops.ts";

const READS = {
  findLoginByEmail: "SELECT * FROM logins WHERE email = ?",
  getLogin: "SELECT * FROM logins WHERE id = ?",
  listLogins: "SELECT * FROM logins WHERE account_id = ? ORDER BY created_at, id",
  getWebSession: "SELECT * FROM web_sessions WHERE id_hash = ?",
  getOAuthClient: "SELECT * FROM oauth_clients WHERE id = ?",
  findOAuthToken:
    `SELECT ${TOKEN_JOIN_COLUMNS} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id` +
    " JOIN accounts a ON a.id = g.account_id WHERE t.token_hash = ?",
  listOAuthGrants: "SELECT * FROM oauth_grants WHERE account_id = ? ORDER BY created_at, id",
} as const;

const SQL = {
  insertLogin:
    "INSERT INTO logins (id, account_id, email, password_hash, created_at, last_sign_in_at) VALUES (?, ?, ?, ?, ?, ?)" +
    " ON CONFLICT (email) DO NOTHING RETURNING id",
  deleteSessionsOfLogin: "DELETE FROM web_sessions WHERE login_id = ?",
  deleteLogin: "DELETE FROM logins WHERE id = ? RETURNING id",
  setLoginPassword: "UPDATE logins SET password_hash = ? WHERE id = ? RETURNING id",
  noteSignIn: "UPDATE logins SET last_sign_in_at = ? WHERE id = ?",
  touchKey: "UPDATE api_keys SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?",
  setWebSession:
    "INSERT INTO web_sessions (id_hash, account_id, login_id, data, expires_at) VALUES (?, ?, ?, ?, ?)" +
    " ON CONFLICT (id_hash) DO UPDATE SET account_id = excluded.account_id, login_id = excluded.login_id," +
    " data = excluded.data, expires_at = excluded.expires_at",
  deleteWebSession: "DELETE FROM web_sessions WHERE id_hash = ?",
  insertSetting: "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
  getSetting: "SELECT value FROM settings WHERE name = ?",
  insertClient: "INSERT INTO oauth_clients (id, secret_hash, metadata, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET metadata = excluded.metadata",
  insertCode:
    "INSERT INTO oauth_codes (code_hash, client_id, account_id, grant_id, redirect_uri, code_challenge, scope, resource," +
    " expires_at, created_at, used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  getCode: "SELECT * FROM oauth_codes WHERE code_hash = ?",
  useCode: "UPDATE oauth_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL",
  insertGrant:
    "INSERT INTO oauth_grants (id, account_id, client_id, client_name, scope, resource, created_at, last_used_at, revoked_at)" +
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  insertToken:
    "INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, created_at, used_at) VALUES (?, ?, ?, ?, ?, ?)",
  refreshState:
    "SELECT t.kind, t.expires_at, t.used_at, g.revoked_at FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id" +
    " WHERE t.token_hash = ?",
  useToken: "UPDATE oauth_tokens SET used_at = ? WHERE token_hash = ?",
  revokeGrant: "UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING revoked_at",
  touchGrant: "UPDATE oauth_grants SET last_used_at = MAX(COALESCE(last_used_at, 0), ?) WHERE id = ?",
  sweepSessions: "DELETE FROM web_sessions WHERE rowid IN (SELECT rowid FROM web_sessions WHERE expires_at < ? LIMIT ?)",
  sweepCodes: "DELETE FROM oauth_codes WHERE rowid IN (SELECT rowid FROM oauth_codes WHERE expires_at < ? LIMIT ?)",
  sweepTokens: "DELETE FROM oauth_tokens WHERE rowid IN (SELECT rowid FROM oauth_tokens WHERE expires_at < ? LIMIT ?)",
} as const;

export class SqlitePeople {
  constructor(private readonly db: SqliteAccess) {}

  private write<T>(op: PeopleWrite): Promise<T> {
    return this.db.write<T>({ t: "people", op });
  }

  createLogin(login: LoginRow): Promise<boolean> {
    return this.write({ t: "createLogin", login });
  }

  findLoginByEmail(email: string): Promise<LoginRow | null> {
    return this.db.guard(() => {
      const row = this.db.row(READS.findLoginByEmail, email);
      return row ? toLogin(row) : null;
    });
  }

  getLogin(id: string): Promise<LoginRow | null> {
    return this.db.guard(() => {
      const row = this.db.row(READS.getLogin, id);
      return row ? toLogin(row) : null;
    });
  }

  listLogins(accountId: string): Promise<LoginRow[]> {
    return this.db.guard(() => this.db.rows(READS.listLogins, accountId).map(toLogin));
  }

  deleteLogin(id: string): Promise<boolean> {
    return this.write({ t: "deleteLogin", id });
  }

  setLoginPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.write({ t: "setLoginPassword", id, passwordHash });
  }

  async noteSignIn(loginId: string, at: number): Promise<void> {
    await this.write({ t: "noteSignIn", id: loginId, at });
  }

  getWebSession(idHash: string): Promise<WebSessionRow | null> {
    return this.db.guard(() => {
      const row = this.db.row(READS.getWebSession, idHash);
      return row ? toWebSession(row, decodeJsonText) : null;
    });
  }

  async setWebSession(session: WebSessionRow): Promise<void> {
    await this.write({ t: "setWebSession", session });
  }

  async deleteWebSession(idHash: string): Promise<void> {
    await this.write({ t: "deleteWebSession", idHash });
  }

  async createOAuthClient(client: OAuthClientRow): Promise<void> {
    await this.write({ t: "createOAuthClient", client });
  }

  getOAuthClient(id: string): Promise<OAuthClientRow | null> {
    return this.db.guard(() => {
      const row = this.db.row(READS.getOAuthClient, id);
      return row ? toOAuthClient(row, decodeJsonText) : null;
    });
  }

  async createOAuthCode(code: OAuthCodeRow): Promise<void> {
    await this.write({ t: "createOAuthCode", code });
  }

  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null> {
    return this.write({ t: "useOAuthCode", hash, at });
  }

  async createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void> {
    await this.write({ t: "createOAuthGrant", grant, tokens });
  }

  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null> {
    return this.db.guard(() => {
      const row = this.db.row(READS.findOAuthToken, hash);
      return row ? { token: toOAuthToken(row, "t_"), grant: toOAuthGrant(row, "g_"), account: withHolds(this.db.holds, toAccount(row)) } : null;
    });
  }

  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid"> {
    return this.write({ t: "rotateOAuthRefresh", hash, at, tokens });
  }

  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]> {
    return this.db.guard(() => this.db.rows(READS.listOAuthGrants, accountId).map((r) => toOAuthGrant(r)));
  }

  revokeOAuthGrant(grantId: string, at: number): Promise<number | null> {
    return this.write({ t: "revokeOAuthGrant", id: grantId, at });
  }

  async touchOAuthGrant(grantId: string, at: number): Promise<void> {
    await this.write({ t: "touchOAuthGrant", id: grantId, at });
  }

  sweepPeople(before: number, limit: number): Promise<number> {
    return this.write({ t: "sweepPeople", before, limit });
  }
}

/** What the writer lends the people ops: its prepared-statement cache. */
export interface StatementRunner {
  row(sql: string, ...params: unknown[]): Raw | undefined;
  run(sql: string, ...params: unknown[]): { changes: number };
}

function insertTokens(st: StatementRunner, tokens: readonly OAuthTokenRow[]): void {
  for (const t of tokens) st.run(SQL.insertToken, t.hash, t.grantId, t.kind, t.expiresAt, t.createdAt, t.usedAt);
}

export function applyPeopleWrite(st: StatementRunner, op: PeopleWrite): unknown {
  switch (op.t) {
    case "createLogin": {
      const l = op.login;
      return st.row(SQL.insertLogin, l.id, l.accountId, l.email, l.passwordHash, l.createdAt, l.lastSignInAt) !== undefined;
    }
    case "deleteLogin":
      st.run(SQL.deleteSessionsOfLogin, op.id);
      return st.row(SQL.deleteLogin, op.id) !== undefined;
    case "setLoginPassword": {
      const found = st.row(SQL.setLoginPassword, op.passwordHash, op.id) !== undefined;
      if (found) st.run(SQL.deleteSessionsOfLogin, op.id);
      return found;
    }
    case "noteSignIn":
      st.run(SQL.noteSignIn, op.at, op.id);
      return null;
    case "touchKey":
      st.run(SQL.touchKey, op.at, op.keyId);
      return null;
    case "setWebSession": {
      const s = op.session;
      st.run(SQL.setWebSession, s.idHash, s.accountId, s.loginId, JSON.stringify(s.data), s.expiresAt);
      return null;
    }
    case "deleteWebSession":
      st.run(SQL.deleteWebSession, op.idHash);
      return null;
    case "setting":
      st.run(SQL.insertSetting, op.name, op.initial);
      return String(st.row(SQL.getSetting, op.name)!.value);
    case "createOAuthClient": {
      const c = op.client;
      st.run(SQL.insertClient, c.id, c.secretHash, jsonText(c.metadata), c.createdAt);
      return null;
    }
    case "createOAuthCode": {
      const c = op.code;
      st.run(
        SQL.insertCode,
        c.hash,
        c.clientId,
        c.accountId,
        c.grantId,
        c.redirectUri,
        c.codeChallenge,
        c.scope,
        c.resource,
        c.expiresAt,
        c.createdAt,
        c.usedAt,
      );
      return null;
    }
    case "useOAuthCode": {
      // Read then mark, inside the writer's transaction: nothing else writes in between.
      const row = st.row(SQL.getCode, op.hash);
      if (!row) return null;
      const code = toOAuthCode(row);
      if (code.usedAt !== null) return { code, firstUse: false };
      st.run(SQL.useCode, op.at, op.hash);
      return { code: { ...code, usedAt: op.at }, firstUse: true };
    }
    case "createOAuthGrant": {
      const g = op.grant;
      st.run(SQL.insertGrant, g.id, g.accountId, g.clientId, g.clientName, g.scope, g.resource, g.createdAt, g.lastUsedAt, g.revokedAt);
      insertTokens(st, op.tokens);
      return null;
    }
    case "rotateOAuthRefresh": {
      const row = st.row(SQL.refreshState, op.hash);
      if (row?.kind !== "refresh" || row.revoked_at !== null || Number(row.expires_at) <= op.at) return "invalid";
      if (row.used_at !== null) return "reused";
      st.run(SQL.useToken, op.at, op.hash);
      insertTokens(st, op.tokens);
      return "rotated";
    }
    case "revokeOAuthGrant": {
      // Its tokens stay until they expire (the sweeper), so a call with one is told it was revoked.
      const row = st.row(SQL.revokeGrant, op.at, op.id);
      return row ? Number(row.revoked_at) : null;
    }
    case "touchOAuthGrant":
      st.run(SQL.touchGrant, op.at, op.id);
      return null;
    case "sweepPeople": {
      if (op.limit <= 0) return 0;
      const limit = Math.floor(op.limit);
      return (
        st.run(SQL.sweepSessions, op.before, limit).changes +
        st.run(SQL.sweepCodes, op.before, limit).changes +
        st.run(SQL.sweepTokens, op.before, limit).changes
      );
    }
  }
}
