/**
 * Row mapping shared by both SQL stores for what people use (migration 007): logins, dashboard
 * sessions, OAuth clients, codes, grants and tokens, and the ledger rows the dashboard lists.
 */
import type { JsonObject } from "../json.ts";
import { type JsonDecoder, num, numOrNull, type Raw } from "./sql-common.ts";
import type {
  LedgerEntry,
  LoginRow,
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  WebSessionRow,
} from "./types.ts";

const str = (value: unknown): string => String(value);
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

export function toLogin(row: Raw): LoginRow {
  return {
    id: str(row.id),
    accountId: str(row.account_id),
    email: str(row.email),
    passwordHash: str(row.password_hash),
    createdAt: num(row.created_at),
    lastSignInAt: numOrNull(row.last_sign_in_at),
  };
}

export function toWebSession(row: Raw, json: JsonDecoder): WebSessionRow {
  return {
    idHash: str(row.id_hash),
    accountId: strOrNull(row.account_id),
    loginId: strOrNull(row.login_id),
    data: (json(row.data) ?? {}) as JsonObject,
    expiresAt: num(row.expires_at),
  };
}

export function toOAuthClient(row: Raw, json: JsonDecoder): OAuthClientRow {
  return {
    id: str(row.id),
    secretHash: strOrNull(row.secret_hash),
    metadata: (json(row.metadata) ?? {}) as JsonObject,
    createdAt: num(row.created_at),
  };
}

export function toOAuthCode(row: Raw): OAuthCodeRow {
  return {
    hash: str(row.code_hash),
    clientId: str(row.client_id),
    accountId: str(row.account_id),
    grantId: str(row.grant_id),
    redirectUri: str(row.redirect_uri),
    codeChallenge: str(row.code_challenge),
    scope: str(row.scope),
    resource: str(row.resource),
    expiresAt: num(row.expires_at),
    createdAt: num(row.created_at),
    usedAt: numOrNull(row.used_at),
  };
}

/** `prefix` selects aliased columns of a join (e.g. `g_id`). */
export function toOAuthGrant(row: Raw, prefix = ""): OAuthGrantRow {
  return {
    id: str(row[`${prefix}id`]),
    accountId: str(row[`${prefix}account_id`]),
    clientId: str(row[`${prefix}client_id`]),
    clientName: str(row[`${prefix}client_name`]),
    scope: str(row[`${prefix}scope`]),
    resource: str(row[`${prefix}resource`]),
    createdAt: num(row[`${prefix}created_at`]),
    lastUsedAt: numOrNull(row[`${prefix}last_used_at`]),
    revokedAt: numOrNull(row[`${prefix}revoked_at`]),
  };
}

export function toOAuthToken(row: Raw, prefix = ""): OAuthTokenRow {
  return {
    hash: str(row[`${prefix}token_hash`]),
    grantId: str(row[`${prefix}grant_id`]),
    kind: str(row[`${prefix}kind`]) as OAuthTokenRow["kind"],
    expiresAt: num(row[`${prefix}expires_at`]),
    createdAt: num(row[`${prefix}created_at`]),
    usedAt: numOrNull(row[`${prefix}used_at`]),
  };
}

export function toLedger(row: Raw): LedgerEntry {
  return {
    id: str(row.id),
    accountId: str(row.account_id),
    keyId: strOrNull(row.key_id),
    capability: str(row.capability),
    operation: str(row.operation),
    credits: num(row.credits),
    costUsd: num(row.cost_usd),
    requestId: str(row.request_id),
    createdAt: num(row.created_at),
  };
}

/** Columns of a token joined with its grant (aliases t_ and g_), then the account's. */
export const TOKEN_JOIN_COLUMNS =
  "t.token_hash AS t_token_hash, t.grant_id AS t_grant_id, t.kind AS t_kind, t.expires_at AS t_expires_at," +
  " t.created_at AS t_created_at, t.used_at AS t_used_at, g.id AS g_id, g.account_id AS g_account_id," +
  " g.client_id AS g_client_id, g.client_name AS g_client_name, g.scope AS g_scope, g.resource AS g_resource," +
  " g.created_at AS g_created_at, g.last_used_at AS g_last_used_at, g.revoked_at AS g_revoked_at, a.*";

export const DAY_MS = 86_400_000;
