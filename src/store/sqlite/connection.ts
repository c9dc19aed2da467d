/**
 * The embedded store's connections. This thread's connection only reads (a few microseconds, never
 * blocked by a writer in WAL mode), through its prepared statements and `guard`: a read a lock
 * blocks is retried until the busy timeout, then answered 503, without blocking the event loop.
 * Every write goes through a WriteChannel (write-channel.ts): inline on this connection until
 * startWriter() hands them to the writer thread of a database file. A serving process holds the
 * file's instance lock and keeps credit holds in memory (memory-holds.ts). It is what the
 * aggregates run on (SqliteAccess, access.ts).
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { ApiError } from "../../errors.ts";
import type { Raw } from "../sql-common.ts";
import { type SqliteAccess, Statements } from "./access.ts";
import { isBusy, mapSqliteError } from "./errors.ts";
import { MemoryHolds } from "./memory-holds.ts";
import { InlineChannel, type WriteChannel, WorkerChannel } from "./write-channel.ts";
import type { WriteOp } from "./write-ops.ts";

export interface ConnectionOptions {
  /** Open the file read-only (tools, tests of the read-only fault path). */
  readonly?: boolean;
  /** How long a write waits for another connection's lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
  /**
   * This process serves the file (the server, not a tool): take the instance lock, so a second
   * server on the same file refuses to start, and keep credit holds in memory (memory-holds.ts).
   */
  exclusive?: boolean;
}

/** Another server already serves this database file. */
export class InstanceLockedError extends Error {
  constructor(file: string, lockFile: string) {
    super(
      `Another Quarry server is already serving ${file} (it holds ${lockFile}). ` +
        "Stop it, or give this one its own DATA_DIR; several instances share PostgreSQL (DATABASE_URL) instead.",
    );
    this.name = "InstanceLockedError";
  }
}

/** Pause between read attempts while another connection holds a lock that blocks readers (rare in WAL). */
const BUSY_RETRY_MS = 20;

export class SqliteConnection implements SqliteAccess {
  readonly statements: Statements;
  /** Where writes go: inline until startWriter() starts the writer thread of a file database. */
  private writes: WriteChannel;
  /** Held by a serving process: an open EXCLUSIVE transaction on `<file>.lock` (released by the OS on exit). */
  private instanceLock: Database.Database | null = null;
  /** Credit holds of the calls in flight, in memory when this process serves the file alone. */
  readonly holds: MemoryHolds | null;

  private constructor(
    readonly db: Database.Database,
    /** How long one write waits for another connection's write lock before answering 503. */
    private readonly busyTimeoutMs: number,
    /** The file a writer thread writes (null for memory/read-only: those write inline). */
    private readonly writerFile: string | null,
    instanceLock: Database.Database | null,
  ) {
    this.instanceLock = instanceLock;
    this.holds = instanceLock ? new MemoryHolds() : null;
    this.statements = new Statements(db);
    this.writes = new InlineChannel(db, busyTimeoutMs);
  }

  /** Open (creating if needed) the database file; `":memory:"` gives a private in-memory database. */
  static open(file: string, options: ConnectionOptions = {}): SqliteConnection {
    try {
      if (file !== ":memory:" && file !== "" && !options.readonly) {
        mkdirSync(dirname(resolve(file)), { recursive: true });
      }
      const db = new Database(file, { readonly: options.readonly ?? false });
      // A read-only connection cannot switch the journal mode; a file made by open() is WAL already.
      if (!options.readonly) db.pragma("journal_mode = WAL");
      // NORMAL in WAL mode survives a process crash (only an OS crash may lose the last commits).
      db.pragma("synchronous = NORMAL");
      const busyTimeoutMs = Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000));
      db.pragma("foreign_keys = ON");
      // SQLite does not wait for a lock itself on this thread: its wait is synchronous and would
      // freeze the whole process once per waiting call. guard() and the write channels wait
      // between attempts instead.
      db.pragma("busy_timeout = 0");
      const onDisk = file !== ":memory:" && file !== "";
      const threaded = !options.readonly && onDisk;
      let lock: Database.Database | null = null;
      try {
        if (options.exclusive && threaded) lock = SqliteConnection.lockInstance(resolve(file));
      } catch (error) {
        db.close();
        throw error;
      }
      return new SqliteConnection(db, busyTimeoutMs, threaded ? resolve(file) : null, lock);
    } catch (error) {
      // Not an SQLite error (InstanceLockedError included): passed through as it is.
      throw mapSqliteError(error);
    }
  }

  /**
   * One serving process per file: credit holds live in its memory and it releases every stored
   * hold at start, so a second server on the same file would break both. The lock is an EXCLUSIVE
   * transaction kept open on a small side file; the operating system drops it when the process
   * ends, crash included. Tools (the CLI) open the file without it.
   */
  private static lockInstance(file: string): Database.Database {
    const lockFile = `${file}.lock`;
    const lock = new Database(lockFile);
    try {
      lock.pragma("busy_timeout = 0");
      lock.pragma("locking_mode = EXCLUSIVE");
      lock.exec("BEGIN EXCLUSIVE");
      return lock;
    } catch (error) {
      lock.close();
      if (isBusy(error)) throw new InstanceLockedError(file, lockFile);
      throw error;
    }
  }

  row(sql: string, ...params: unknown[]): Raw | undefined {
    return this.statements.row(sql, ...params);
  }

  rows(sql: string, ...params: unknown[]): Raw[] {
    return this.statements.rows(sql, ...params);
  }

  /**
   * Run one read (or the migration); while another connection holds a lock that blocks it,
   * retry until the busy timeout, then answer 503, without blocking the event loop.
   */
  async guard<T>(work: () => T): Promise<T> {
    const deadline = Date.now() + this.busyTimeoutMs;
    for (;;) {
      try {
        return work();
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw mapSqliteError(error);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(BUSY_RETRY_MS, deadline - Date.now())));
    }
  }

  write<T>(op: WriteOp): Promise<T> {
    return this.writes.submit(op) as Promise<T>;
  }

  async startWriter(): Promise<void> {
    // Once the schema is in place, writes move to the writer thread; this connection only reads.
    if (this.writerFile && !(this.writes instanceof WorkerChannel)) {
      const inline = this.writes;
      this.writes = await WorkerChannel.start(this.writerFile, { busyTimeoutMs: this.busyTimeoutMs });
      await inline.close();
      this.db.pragma("wal_autocheckpoint = 0");
      this.db.pragma("query_only = ON");
    }
  }

  ping(): Promise<void> {
    return this.guard(() => {
      this.db.prepare("SELECT 1").get();
      if (!this.writes.alive) throw new ApiError("service_unavailable", "The embedded database writer is not running.");
    });
  }

  /** Fault injection for tests: the writer thread ends as if it crashed. */
  async crashWriterForTests(): Promise<void> {
    if (this.writes instanceof WorkerChannel) await this.writes.terminate();
  }

  async close(): Promise<void> {
    await this.writes.close();
    if (this.instanceLock?.open) this.instanceLock.close();
    this.instanceLock = null;
    this.statements.clear();
    if (this.db.open) this.db.close();
  }
}
