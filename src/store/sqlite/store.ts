/**
 * The embedded store: one SQLite file through better-sqlite3 (WAL). Used when no DATABASE_URL is
 * set. Reads run on this thread's connection (a few microseconds, never blocked by a writer in WAL
 * mode); every write goes through a WriteChannel: for a file, to a writer thread that owns the
 * only writing connection and batches writes into group commits (write-channel.ts).
 *
 * This class opens, migrates and closes it and composes its aggregates (ComposedStore forwards the
 * Store's methods to them), each a file of this folder
 * on the same connections (connection.ts): accounts and keys (accounts.ts), the ledger's holds and
 * reads (ledger.ts), the billing commit (commit.ts), search sessions (sessions.ts), people and
 * OAuth (people.ts). Each also holds its writes, which the writer thread applies (writer.ts).
 */
import { ComposedStore } from "../composed-store.ts";
import { KeyCache } from "../key-cache.ts";
import type {
  Store,
} from "../types.ts";
import { SqliteAccounts } from "./accounts.ts";
import { SqliteCommit } from "./commit.ts";
import { type ConnectionOptions, SqliteConnection } from "./connection.ts";
import { SqliteLedger } from "./ledger.ts";
import { applyMigrations } from "./migrations.ts";
import { SqlitePeople } from "./people.ts";
import { SqliteSessions } from "./sessions.ts";

export interface SqliteOpenOptions extends ConnectionOptions {
  /** Lifetime of cached key lookups (key-cache.ts); 0 turns the cache off. */
  keyCacheTtlMs?: number;
}

const SQL = {
  getSetting: "SELECT value FROM settings WHERE name = ?",
} as const;

export class SqliteStore extends ComposedStore implements Store {
  readonly kind = "sqlite" as const;

  private constructor(
    /** The reading connection, the write channel, the instance lock and the holds in memory (connection.ts). */
    private readonly conn: SqliteConnection,
    keyCache: KeyCache,
  ) {
    const accounts = new SqliteAccounts(conn, keyCache);
    super({
      accounts,
      ledger: new SqliteLedger(conn, accounts),
      billing: new SqliteCommit(conn, keyCache),
      sessions: new SqliteSessions(conn),
      people: new SqlitePeople(conn),
    });
  }

  /** Open (creating if needed) the database file; `":memory:"` gives a private in-memory database. */
  static open(file: string, options: SqliteOpenOptions = {}): SqliteStore {
    return new SqliteStore(SqliteConnection.open(file, options), new KeyCache(options.keyCacheTtlMs));
  }

  async migrate(): Promise<void> {
    await this.conn.guard(() => applyMigrations(this.conn.db));
    await this.conn.startWriter();
  }

  ping(): Promise<void> {
    return this.conn.ping();
  }

  /** Fault injection for tests: the writer thread ends as if it crashed. */
  crashWriterForTests(): Promise<void> {
    return this.conn.crashWriterForTests();
  }

  close(): Promise<void> {
    return this.conn.close();
  }

  async setting(name: string, initial: string): Promise<string> {
    // Read first: a setting made already needs no write (and a read-only file still answers it).
    const stored = await this.conn.guard(() => this.conn.row(SQL.getSetting, name)?.value);
    if (typeof stored === "string") return stored;
    return this.conn.write({ t: "people", op: { t: "setting", name, initial } });
  }
}
