/**
 * What an aggregate of the PostgreSQL store runs on: the store's pool, its error mapping (`guard`:
 * connection faults as 503, and the rest), its transactions (BEGIN … COMMIT on one client, ROLLBACK
 * on error, a broken connection never reused) and its row helpers. pool.ts implements them; also
 * the SQL helpers every aggregate uses (jsonb, KEY_USED).
 */
import type pg from "pg";
import type { Raw } from "../sql-common.ts";

export type Queryable = pg.Pool | pg.PoolClient;

export interface PgAccess {
  readonly pool: pg.Pool;
  guard<T>(work: () => Promise<T>): Promise<T>;
  /**
   * BEGIN ... COMMIT on one client; ROLLBACK on any error. With `onLostCommit`, a COMMIT that got
   * no reply is asked about (the billing commit); without it, that is an error like any other.
   */
  transaction<T>(
    work: (client: pg.PoolClient) => Promise<T>,
    onLostCommit?: (result: T, cause: unknown) => Promise<T>,
  ): Promise<T>;
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
