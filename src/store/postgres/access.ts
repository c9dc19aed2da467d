/**
 * What an aggregate of the PostgreSQL store runs on: the store's pool, its error mapping (`guard`:
 * connection faults as 503, and the rest), its transactions (BEGIN … COMMIT on one client, ROLLBACK
 * on error, a broken connection never reused) and its row helpers. store.ts owns them.
 */
import type pg from "pg";
import type { Raw } from "../sql-common.ts";

export type Queryable = pg.Pool | pg.PoolClient;

export interface PgAccess {
  readonly pool: pg.Pool;
  guard<T>(work: () => Promise<T>): Promise<T>;
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  rows(sql: string, params?: unknown[], on?: Queryable): Promise<Raw[]>;
  row(sql: string, params?: unknown[], on?: Queryable): Promise<Raw | undefined>;
}

/**
 * JSON text PostgreSQL's jsonb accepts: it refuses the NUL character and unpaired surrogates, which
 * provider data may carry. Both become U+FFFD (the replacement character) instead of failing the call.
 */
export function jsonb(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === "string" && (v.includes("\u0000") || !v.isWellFormed())
      ? v.replaceAll("\u0000", "\uFFFD").toWellFormed()
      : v,
  );
}

/**
 * A key's use in its account's current period ($2: the account's period_end): what it used in an
 * earlier period counts 0 (a new period resets it without a write).
 */
export const KEY_USED = "CASE WHEN used_period_end IS NOT DISTINCT FROM $2::bigint THEN credits_used ELSE 0 END";

/** Node socket errors: the server is down or the network between us is. */
const NET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
]);

/**
 * SQLSTATEs that mean "the database cannot serve this now", not "this call is wrong":
 * 57P01-57P03 shutdown / cannot connect now, 57014 statement timeout, 55P03 lock timeout,
 * 40001/40P01 serialization failure / deadlock, 25006 read-only (standby).
 */
const PG_CODES = new Set(["57P01", "57P02", "57P03", "57014", "55P03", "40001", "40P01", "25006"]);

/** pg raises these as plain Errors without a code. */
const PG_MESSAGES =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|connection error|Connection refused/i;

export function isUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    // Classes 08 (connection exception) and 53 (insufficient resources: too many connections, disk full).
    if (NET_CODES.has(code) || PG_CODES.has(code) || code.startsWith("08") || code.startsWith("53")) {
      return true;
    }
  }
  if (PG_MESSAGES.test(error.message)) return true;
  // Node's happy-eyeballs connect may reject with an AggregateError of per-address failures.
  if (error instanceof AggregateError) return error.errors.some((e) => isUnavailable(e, depth + 1));
  return error.cause !== undefined && isUnavailable(error.cause, depth + 1);
}
