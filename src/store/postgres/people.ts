/**
 * The PostgreSQL store's people aggregate (PeopleStore): logins, dashboard sessions and OAuth
 * clients, codes, grants and tokens. It runs on the store's pool through PgAccess (access.ts):
 * the same error mapping and transactions as every other aggregate.
 */
import type pg from "pg";
import {
  TOKEN_JOIN_COLUMNS,
  toLogin,
  toOAuthClient,
  toOAuthCode,
  toOAuthGrant,
  toOAuthToken,
  toWebSession,
} from "../people-sql.ts";
import {
  decodeJsonParsed,
  num,
  toAccount,
} from "../sql-common.ts";
import type {
  AccountRow,
  LoginRow,
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  WebSessionRow,
} from "../types.ts";
import { jsonb, type PgAccess } from "./access.ts";

export class PostgresPeople {
  constructor(private readonly db: PgAccess) {}


  createLogin(login: LoginRow): Promise<boolean> {
    return this.db.guard(async () => {
      const row = await this.db.row(
        `INSERT INTO logins (id, account_id, email, password_hash, created_at, last_sign_in_at)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (email) DO NOTHING RETURNING id`,
        [login.id, login.accountId, login.email, login.passwordHash, login.createdAt, login.lastSignInAt],
      );
      return row !== undefined;
    });
  }

  findLoginByEmail(email: string): Promise<LoginRow | null> {
    return this.db.guard(async () => {
      const row = await this.db.row("SELECT * FROM logins WHERE email = $1", [email]);
      return row ? toLogin(row) : null;
    });
  }

  getLogin(id: string): Promise<LoginRow | null> {
    return this.db.guard(async () => {
      const row = await this.db.row("SELECT * FROM logins WHERE id = $1", [id]);
      return row ? toLogin(row) : null;
    });
  }

  listLogins(accountId: string): Promise<LoginRow[]> {
    return this.db.guard(async () =>
      (await this.db.rows("SELECT * FROM logins WHERE account_id = $1 ORDER BY created_at, id", [accountId])).map(toLogin),
    );
  }

  deleteLogin(id: string): Promise<boolean> {
    // Its sessions go with it (web_sessions.login_id ON DELETE CASCADE).
    return this.db.guard(async () => (await this.db.row("DELETE FROM logins WHERE id = $1 RETURNING id", [id])) !== undefined);
  }

  setLoginPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const row = await this.db.row("UPDATE logins SET password_hash = $2 WHERE id = $1 RETURNING id", [id, passwordHash], client);
      if (!row) return false;
      await client.query("DELETE FROM web_sessions WHERE login_id = $1", [id]);
      return true;
    });
  }

  noteSignIn(loginId: string, at: number): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("UPDATE logins SET last_sign_in_at = $2 WHERE id = $1", [loginId, at]);
    });
  }


  getWebSession(idHash: string): Promise<WebSessionRow | null> {
    return this.db.guard(async () => {
      const row = await this.db.row("SELECT * FROM web_sessions WHERE id_hash = $1", [idHash]);
      return row ? toWebSession(row, decodeJsonParsed) : null;
    });
  }

  setWebSession(session: WebSessionRow): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query(
        `INSERT INTO web_sessions (id_hash, account_id, login_id, data, expires_at) VALUES ($1, $2, $3, $4::jsonb, $5)
         ON CONFLICT (id_hash) DO UPDATE SET account_id = EXCLUDED.account_id, login_id = EXCLUDED.login_id,
           data = EXCLUDED.data, expires_at = EXCLUDED.expires_at`,
        [session.idHash, session.accountId, session.loginId, jsonb(session.data), session.expiresAt],
      );
    });
  }

  deleteWebSession(idHash: string): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("DELETE FROM web_sessions WHERE id_hash = $1", [idHash]);
    });
  }


  createOAuthClient(client: OAuthClientRow): Promise<void> {
    return this.db.guard(async () => {
      // A client known by its metadata document is saved again when its document changes (same id).
      await this.db.pool.query("INSERT INTO oauth_clients (id, secret_hash, metadata, created_at) VALUES ($1, $2, $3::jsonb, $4) ON CONFLICT (id) DO UPDATE SET metadata = EXCLUDED.metadata", [
        client.id,
        client.secretHash,
        jsonb(client.metadata),
        client.createdAt,
      ]);
    });
  }

  getOAuthClient(id: string): Promise<OAuthClientRow | null> {
    return this.db.guard(async () => {
      const row = await this.db.row("SELECT * FROM oauth_clients WHERE id = $1", [id]);
      return row ? toOAuthClient(row, decodeJsonParsed) : null;
    });
  }

  createOAuthCode(code: OAuthCodeRow): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query(
        `INSERT INTO oauth_codes (code_hash, client_id, account_id, grant_id, redirect_uri, code_challenge, scope, resource,
           expires_at, created_at, used_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          code.hash,
          code.clientId,
          code.accountId,
          code.grantId,
          code.redirectUri,
          code.codeChallenge,
          code.scope,
          code.resource,
          code.expiresAt,
          code.createdAt,
          code.usedAt,
        ],
      );
    });
  }

  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null> {
    return this.db.transaction(async (client) => {
      // The row lock makes two exchanges of one code take turns: the second sees it used.
      const row = await this.db.row("SELECT * FROM oauth_codes WHERE code_hash = $1 FOR UPDATE", [hash], client);
      if (!row) return null;
      const code = toOAuthCode(row);
      if (code.usedAt !== null) return { code, firstUse: false };
      await client.query("UPDATE oauth_codes SET used_at = $2 WHERE code_hash = $1", [hash, at]);
      return { code: { ...code, usedAt: at }, firstUse: true };
    });
  }

  private async insertTokens(tokens: readonly OAuthTokenRow[], client: pg.PoolClient): Promise<void> {
    for (const t of tokens) {
      await client.query(
        "INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at, created_at, used_at) VALUES ($1, $2, $3, $4, $5, $6)",
        [t.hash, t.grantId, t.kind, t.expiresAt, t.createdAt, t.usedAt],
      );
    }
  }

  createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void> {
    return this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO oauth_grants (id, account_id, client_id, client_name, scope, resource, created_at, last_used_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          grant.id,
          grant.accountId,
          grant.clientId,
          grant.clientName,
          grant.scope,
          grant.resource,
          grant.createdAt,
          grant.lastUsedAt,
          grant.revokedAt,
        ],
      );
      await this.insertTokens(tokens, client);
    });
  }

  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null> {
    return this.db.guard(async () => {
      const row = await this.db.row(
        `SELECT ${TOKEN_JOIN_COLUMNS} FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
         JOIN accounts a ON a.id = g.account_id WHERE t.token_hash = $1`,
        [hash],
      );
      return row ? { token: toOAuthToken(row, "t_"), grant: toOAuthGrant(row, "g_"), account: toAccount(row) } : null;
    });
  }

  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid"> {
    return this.db.transaction(async (client) => {
      const row = await this.db.row(
        `SELECT t.kind, t.expires_at, t.used_at, g.revoked_at FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
         WHERE t.token_hash = $1 FOR UPDATE OF t`,
        [hash],
        client,
      );
      if (row?.kind !== "refresh" || row.revoked_at !== null || num(row.expires_at) <= at) return "invalid";
      if (row.used_at !== null) return "reused";
      await client.query("UPDATE oauth_tokens SET used_at = $2 WHERE token_hash = $1", [hash, at]);
      await this.insertTokens(tokens, client);
      return "rotated";
    });
  }

  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]> {
    return this.db.guard(async () =>
      (await this.db.rows("SELECT * FROM oauth_grants WHERE account_id = $1 ORDER BY created_at, id", [accountId])).map((r) =>
        toOAuthGrant(r),
      ),
    );
  }

  revokeOAuthGrant(grantId: string, at: number): Promise<number | null> {
    // Its tokens stay until they expire (the sweeper), so a call with one is told it was revoked.
    return this.db.guard(async () => {
      const row = await this.db.row("UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING revoked_at", [
        grantId,
        at,
      ]);
      return row ? num(row.revoked_at) : null;
    });
  }

  touchOAuthGrant(grantId: string, at: number): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("UPDATE oauth_grants SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $2) WHERE id = $1", [
        grantId,
        at,
      ]);
    });
  }

  sweepPeople(before: number, limit: number): Promise<number> {
    return this.db.guard(async () => {
      if (limit <= 0) return 0;
      let swept = 0;
      for (const [table, key] of [
        ["web_sessions", "id_hash"],
        ["oauth_codes", "code_hash"],
        ["oauth_tokens", "token_hash"],
      ] as const) {
        const result = await this.db.pool.query(
          `DELETE FROM ${table} WHERE ${key} IN (SELECT ${key} FROM ${table} WHERE expires_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
          [before, Math.floor(limit)],
        );
        swept += result.rowCount ?? 0;
      }
      return swept;
    });
  }
}
