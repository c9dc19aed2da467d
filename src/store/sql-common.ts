/**
 * Shared by the two SQL stores: loading the versioned migration files and turning driver rows
 * (snake_case columns, JSON as text or parsed, BIGINT as string) into the row types of types.ts.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { JsonObject } from "../json.ts";
import { ApiError } from "../errors.ts";
import type { AccountRow, CachedAction, KeyRow, LedgerEntry, RecordRow, SessionRow } from "./types.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATION_FILE = /^(\d+)_[\w-]+\.sql$/;

/** The migrations of one dialect, in version order, read from `./migrations/<dialect>/NNN_name.sql`. */
export function loadMigrations(dialect: "sqlite" | "postgres"): Migration[] {
  const dir = new URL(`./migrations/${dialect}/`, import.meta.url);
  const out: Migration[] = [];
  for (const name of readdirSync(dir)) {
    const match = MIGRATION_FILE.exec(name);
    if (!match) continue;
    const version = Number(match[1]);
    if (out.some((m) => m.version === version)) {
      // Two files with one number would make the applied set ambiguous; refuse to start.
      throw new Error(`Duplicate migration version ${version} in ${dialect} (${name}).`);
    }
    out.push({ version, name, sql: readFileSync(new URL(name, dir), "utf8") });
  }
  return out.sort((a, b) => a.version - b.version);
}

/**
 * Refuse a database that a newer Quarry has migrated: this version's statements may not work on its
 * schema (PostgreSQL's migration 006 made record content `json`, on which older code's `||` fails).
 * Instances of different versions do not share a database across a migration: stop the older ones
 * before a newer one starts; this makes an older one that starts afterwards say so and exit.
 */
export function refuseNewerSchema(applied: Iterable<number>, migrations: readonly Migration[], store: string): void {
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  let newest = 0;
  for (const version of applied) newest = Math.max(newest, version);
  if (newest <= known) return;
  throw new ApiError(
    "service_unavailable",
    `The ${store} database was migrated by a newer version of Quarry (schema version ${newest}; this version knows up to ${known}).`,
    { hint: "Run that version or a newer one; stop older instances before a newer one migrates a shared database." },
  );
}

/** A raw row as a driver returns it. */
export type Raw = Record<string, unknown>;

/** How a driver hands back a JSON column: SQLite gives text, pg gives the parsed value. */
export type JsonDecoder = (value: unknown) => unknown;

export const decodeJsonText: JsonDecoder = (value) =>
  value === null || value === undefined ? null : JSON.parse(String(value));
export const decodeJsonParsed: JsonDecoder = (value) => (value === undefined ? null : value);

/** JSON text for a SQLite column (SQL NULL for null, so nullable columns stay NULL). */
export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/** Numbers come back as number (SQLite, pg INT/FLOAT) or string (pg BIGINT, COUNT, SUM). */
export function num(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" || typeof value === "bigint") return Number(value);
  if (value === null || value === undefined) return 0;
  throw new TypeError(`Expected a number from the database, got ${typeof value}.`);
}

export function numOrNull(value: unknown): number | null {
  return value === null || value === undefined ? null : num(value);
}

export function strOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value);
}

export function toAccount(row: Raw): AccountRow {
  return {
    id: String(row.id),
    name: String(row.name),
    planId: String(row.plan_id),
    status: String(row.status) as AccountRow["status"],
    cadence: strOrNull(row.cadence) as AccountRow["cadence"],
    creditsUsed: num(row.credits_used),
    creditsReserved: num(row.credits_reserved),
    creditsCap: num(row.credits_cap),
    periodEnd: numOrNull(row.period_end),
    periodAnchor: numOrNull(row.period_anchor),
    grantUsed: num(row.grant_used),
    sharpenStage: strOrNull(row.sharpen_stage),
    createdAt: num(row.created_at),
  };
}

/** `prefix` selects aliased columns of a join (e.g. `k_id`). */
export function toKey(row: Raw, prefix = ""): KeyRow {
  return {
    id: String(row[`${prefix}id`]),
    accountId: String(row[`${prefix}account_id`]),
    hash: String(row[`${prefix}key_hash`]),
    hint: String(row[`${prefix}hint`]),
    name: String(row[`${prefix}name`]),
    createdAt: num(row[`${prefix}created_at`]),
    revokedAt: numOrNull(row[`${prefix}revoked_at`]),
    lastUsedAt: numOrNull(row[`${prefix}last_used_at`]),
    creditLimit: numOrNull(row[`${prefix}credit_limit`]),
    creditsUsed: num(row[`${prefix}credits_used`]),
    creditsReserved: num(row[`${prefix}credits_reserved`]),
    usedPeriodEnd: numOrNull(row[`${prefix}used_period_end`]),
  };
}

/** A key's columns aliased `k_…`, for a join with its account (the key lookup). */
export const KEY_JOIN_COLUMNS =
  "k.id AS k_id, k.account_id AS k_account_id, k.key_hash AS k_key_hash, k.hint AS k_hint, k.name AS k_name," +
  " k.created_at AS k_created_at, k.revoked_at AS k_revoked_at, k.last_used_at AS k_last_used_at," +
  " k.credit_limit AS k_credit_limit, k.credits_used AS k_credits_used, k.credits_reserved AS k_credits_reserved," +
  " k.used_period_end AS k_used_period_end";

export function toSession(row: Raw, json: JsonDecoder, prefix = ""): SessionRow {
  return {
    id: String(row[`${prefix}id`]),
    accountId: String(row[`${prefix}account_id`]),
    capability: String(row[`${prefix}capability`]),
    query: json(row[`${prefix}query`]) as JsonObject,
    state: json(row[`${prefix}state`]) as JsonObject,
    expiresAt: num(row[`${prefix}expires_at`]),
    createdAt: num(row[`${prefix}created_at`]),
  };
}

export function toRecord(row: Raw, json: JsonDecoder): RecordRow {
  return {
    id: String(row.id),
    searchId: String(row.search_id),
    accountId: String(row.account_id),
    position: num(row.position),
    summary: json(row.summary) as JsonObject,
    ref: json(row.ref) as RecordRow["ref"],
    detail: json(row.detail) as RecordRow["detail"],
    links: json(row.links) as RecordRow["links"],
    actions: (json(row.actions) ?? {}) as Record<string, CachedAction>,
    sourceAt: row.source_at === null || row.source_at === undefined ? null : num(row.source_at),
  };
}

/**
 * A record's columns as both stores read them back (table alias `r`): all but its page source,
 * which can be large and which getSource reads alone.
 */
export const RECORD_COLUMNS =
  "r.id, r.search_id, r.account_id, r.position, r.summary, r.ref, r.detail, r.links, r.actions, r.source_at";

/** The ledger's columns, and a ledger row's values in that order (both stores insert with them). */
export const LEDGER_COLUMNS = "id, account_id, key_id, capability, operation, credits, cost_usd, request_id, created_at";

export function ledgerValues(l: LedgerEntry): unknown[] {
  return [l.id, l.accountId, l.keyId, l.capability, l.operation, l.credits, l.costUsd, l.requestId, l.createdAt];
}

/** Clamp a range bound so drivers never see Infinity (pg cannot bind it to BIGINT). */
export function bound(value: number): number {
  if (Number.isNaN(value)) return 0;
  return Math.max(Number.MIN_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, value));
}
