/**
 * The PostgreSQL store's pool: its connection settings (fail-fast timeouts, the limit on an idle
 * transaction, the schema as search_path) and what every aggregate runs on it (PgAccess, access.ts):
 * `guard` (errors mapped by errors.ts), transactions on one client (a COMMIT whose reply was lost
 * handed to the caller), the row helpers, and ending the pool within a grace.
 */
import pg from "pg";
import type { Raw } from "../sql-common.ts";
import type { PgAccess, Queryable } from "./access.ts";
import { isClientTimeout, mapPgError } from "./errors.ts";

/** How long the server lets a transaction sit idle before ending it (and releasing its locks). */
export const IDLE_IN_TRANSACTION_MS = 5000;
/** How long close() waits for connections still in use before closing them (end). */
export const POOL_END_GRACE_MS = 5000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PoolOptions {
  /** Schema for every table (the connections' search_path). */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
}

export class PgPool implements PgAccess {
  private constructor(readonly pool: pg.Pool) {}

  static create(url: string, options: PoolOptions = {}): PgPool {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) {
      // The name goes into a connection parameter and DDL unquoted; accept plain identifiers only.
      throw new Error(`Invalid PostgreSQL schema name: ${schema}`);
    }
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      application_name: "quarry",
      // Fail fast instead of hanging past a request deadline when the server is gone or slow.
      connectionTimeoutMillis: 3000,
      statement_timeout: 10000,
      query_timeout: 10000,
      // A transaction here never waits on anything but its own statements, so one idle for 5 s has
      // lost its client (a process gone, or a link black-holed). It holds the account's row lock:
      // every other instance's billed calls on that account wait on it until the server ends it.
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      ...(schema === undefined ? {} : { options: `-c search_path=${schema}` }),
    });
    // An idle client losing its connection emits on the pool; unhandled, that would crash the
    // process. pg drops the client itself and the next query opens a fresh one.
    pool.on("error", () => {});
    return new PgPool(pool);
  }

  async guard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw mapPgError(error);
    }
  }

  async rows(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<Raw[]> {
    return (await on.query(sql, params)).rows as Raw[];
  }

  async row(sql: string, params: unknown[] = [], on: Queryable = this.pool): Promise<Raw | undefined> {
    return (await this.rows(sql, params, on))[0];
  }

  /**
   * BEGIN ... COMMIT on one client; ROLLBACK on any error. A broken connection is not reused.
   * A COMMIT that gets no reply (a connection error, not an error the server sent) may or may not
   * have committed: with `onLostCommit`, that is asked once the client is released, with what
   * `work` returned; without it, it is an error like any other.
   */
  async transaction<T>(
    work: (client: pg.PoolClient) => Promise<T>,
    onLostCommit?: (result: T, cause: unknown) => Promise<T>,
  ): Promise<T> {
    return this.guard(async () => {
      const client = await this.pool.connect();
      let broken: Error | undefined;
      // A checked-out client whose connection dies emits "error" besides failing its query; the
      // pool listens only while the client is idle, so without this the error would be uncaught
      // and take the whole process down when the database goes away mid-transaction.
      const onError = (error: Error) => {
        broken = error;
      };
      client.on("error", onError);
      let resolveLost: (() => Promise<T>) | undefined;
      try {
        await client.query("BEGIN");
        const result = await work(client);
        try {
          await client.query("COMMIT");
          return result;
        } catch (error) {
          // An error the server sent in reply to COMMIT (serialization failure, deferred
          // constraint) means it rolled back: ROLLBACK and rethrow like any other.
          if (onLostCommit === undefined || error instanceof pg.DatabaseError) throw error;
          broken = error instanceof Error ? error : new Error(String(error));
          resolveLost = () => onLostCommit(result, error);
        }
      } catch (error) {
        // A statement that timed out on this side leaves the connection in an unknown state (a
        // reply may still come, or never): a ROLLBACK on it would wait out another query timeout.
        // Dropping the connection ends the transaction on the server just the same (or, should
        // the link be black-holed, IDLE_IN_TRANSACTION_MS later).
        if (broken === undefined && isClientTimeout(error)) broken = error as Error;
        if (broken === undefined) {
          await client.query("ROLLBACK").catch((rollbackError: unknown) => {
            broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
          });
        }
        throw error;
      } finally {
        client.off("error", onError);
        client.release(broken);
      }
      // Only a lost reply to COMMIT gets here; every other path returned or threw above.
      return resolveLost!();
    });
  }

  get ended(): boolean {
    return this.pool.ended;
  }

  /**
   * End the pool, within POOL_END_GRACE_MS. `pool.end()` waits for every connection in use to be
   * released; one whose query never answers would hold it (and a stop, or a test file) for ever. Past
   * the grace, such connections are closed from this side: their queries fail, their holders release
   * them, and the pool ends.
   */
  async end(): Promise<void> {
    if (this.pool.ended) return;
    const ended = this.pool.end();
    const late = (ms: number) =>
      new Promise<"late">((resolve) => {
        setTimeout(() => resolve("late"), ms).unref();
      });
    if ((await Promise.race([ended.then(() => "ended" as const), late(POOL_END_GRACE_MS)])) === "ended") return;
    // pg-pool keeps its connections, in use or idle, in `_clients` (no public list of them).
    const clients = (this.pool as unknown as { _clients?: { connection?: { stream?: { destroy(): void } } }[] })._clients ?? [];
    process.emitWarning(`PostgreSQL store: ${clients.length} connection(s) still in use ${POOL_END_GRACE_MS} ms after close; closing them.`);
    for (const client of clients) client.connection?.stream?.destroy();
    await Promise.race([ended.catch(() => undefined), late(POOL_END_GRACE_MS)]);
  }
}
