/**
 * Picks and opens the store for this deployment: PostgreSQL when a database URL is configured,
 * else the embedded SQLite file in the data directory. Migrations run before the store is returned.
 */
import { join } from "node:path";
import { type LostCallReport, PostgresStore } from "./postgres/store.ts";
import { SqliteStore } from "./sqlite/store.ts";
import type { Store } from "./types.ts";

export interface OpenStoreOptions {
  databaseUrl?: string;
  dataDir: string;
  /** PostgreSQL schema to use (created if missing); tests isolate themselves with it. */
  pgSchema?: string;
  /** Lifetime of cached key lookups (KEY_CACHE_TTL_MS; default 1 s, 0 = off). */
  keyCacheTtlMs?: number;
  /** The server opens the embedded store exclusively (instance lock, holds in memory); tools do not. */
  exclusive?: boolean;
  /**
   * PostgreSQL: told what became of each call answered 503 with its outcome unknown (the server logs
   * it). Given, the store also keeps such calls in `<dataDir>/in-doubt/` and settles those left there.
   */
  onLostCall?: (report: LostCallReport) => void;
}

/** Where the server keeps calls answered 503 with their outcome unknown (PostgreSQL, in-doubt.ts). */
export function inDoubtDir(dataDir: string): string {
  return join(dataDir, "in-doubt");
}

/** The embedded store's database file in a data directory. */
export function embeddedDatabaseFile(dataDir: string): string {
  return join(dataDir, "quarry.db");
}

export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const store: Store = options.databaseUrl
    ? await PostgresStore.open(options.databaseUrl, {
        ...(options.pgSchema === undefined ? {} : { schema: options.pgSchema }),
        ...(options.keyCacheTtlMs === undefined ? {} : { keyCacheTtlMs: options.keyCacheTtlMs }),
        // The server: calls answered 503 with their outcome unknown outlive its process in the data
        // directory (in-doubt.ts), and it settles and logs those an earlier one left. Tools (the CLI)
        // pass no onLostCall: they leave the journal alone rather than settle calls unlogged.
        ...(options.onLostCall === undefined
          ? {}
          : { onLostCall: options.onLostCall, inDoubtDir: inDoubtDir(options.dataDir) }),
      })
    : SqliteStore.open(embeddedDatabaseFile(options.dataDir), {
        ...(options.keyCacheTtlMs === undefined ? {} : { keyCacheTtlMs: options.keyCacheTtlMs }),
        ...(options.exclusive === undefined ? {} : { exclusive: options.exclusive }),
      });
  try {
    await store.migrate();
  } catch (error) {
    // Do not leak a pool or file handle when the caller never gets the store.
    await store.close().catch(() => {});
    throw error;
  }
  return store;
}
