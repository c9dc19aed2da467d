/**
 * The embedded store: one SQLite file through better-sqlite3 (WAL). Used when no DATABASE_URL is
 * set. The work is synchronous; methods return promises only to satisfy the Store interface.
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { ApiError } from "../errors.ts";
import {
  bound,
  decodeJsonText,
  jsonText,
  loadMigrations,
  num,
  type Raw,
  toAccount,
  toKey,
  toRecord,
  toSession,
} from "./sql-common.ts";
import { type Checkpointer, startCheckpointer } from "./sqlite-checkpointer.ts";
import type {
  AccountPatch,
  AccountRow,
  CommitOp,
  KeyRow,
  NewAccount,
  RecordRow,
  Reservation,
  SessionRow,
  Store,
} from "./types.ts";

export interface SqliteOpenOptions {
  /** Open the file read-only (tools, tests of the read-only fault path). */
  readonly?: boolean;
  /** How long a write waits for another connection's lock before failing (default 5000 ms). */
  busyTimeoutMs?: number;
}

/** Primary result codes that mean "the file cannot be written now", not "the call is wrong". */
const UNAVAILABLE_CODES = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_READONLY",
  "SQLITE_IOERR",
  "SQLITE_FULL",
  "SQLITE_CANTOPEN",
];

/** Map faults of the file itself to 503 service_unavailable; anything else stays as it is (500). */
export function mapSqliteError(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  // Extended codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT, ...) share the primary prefix.
  if (typeof code === "string" && UNAVAILABLE_CODES.some((c) => code === c || code.startsWith(c + "_"))) {
    return new ApiError("service_unavailable", "The embedded database is not writable right now.", {
      cause: error,
    });
  }
  return error;
}

/** Pause between attempts while another connection holds the write lock. */
const BUSY_RETRY_MS = 20;

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code === "SQLITE_BUSY" || code.startsWith("SQLITE_BUSY_"));
}

function sessionGone(): ApiError {
  // The sweeper removed the search while the call ran; the commit rolls back so nothing is charged.
  return new ApiError("session_expired", "The search expired while this call was running.", {
    hint: "Start a new search.",
  });
}

const SQL = {
  migrationsTable:
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
  hasMigrationsTable: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'",
  appliedVersions: "SELECT version FROM schema_migrations",
  recordMigration: "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",

  insertAccount:
    "INSERT INTO accounts (id, name, plan_id, status, cadence, credits_used, credits_reserved, credits_cap," +
    " period_end, sharpen_stage, created_at) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?) RETURNING *",
  getAccount: "SELECT * FROM accounts WHERE id = ?",
  listAccounts: "SELECT * FROM accounts ORDER BY created_at, id",
  countAccounts: "SELECT COUNT(*) AS n FROM accounts",
  // One statement for every patch shape: a flag per column says whether the patch sets it.
  updateAccount: `UPDATE accounts SET
      name = CASE WHEN @set_name THEN @name ELSE name END,
      plan_id = CASE WHEN @set_plan_id THEN @plan_id ELSE plan_id END,
      status = CASE WHEN @set_status THEN @status ELSE status END,
      cadence = CASE WHEN @set_cadence THEN @cadence ELSE cadence END,
      credits_cap = CASE WHEN @set_credits_cap THEN @credits_cap ELSE credits_cap END,
      period_end = CASE WHEN @set_period_end THEN @period_end ELSE period_end END,
      sharpen_stage = CASE WHEN @set_sharpen_stage THEN @sharpen_stage ELSE sharpen_stage END
    WHERE id = @id RETURNING *`,
  rollPeriod: "UPDATE accounts SET credits_used = 0, period_end = ? WHERE id = ? AND period_end = ?",

  insertKey:
    "INSERT INTO api_keys (id, account_id, key_hash, hint, name, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  findKeyByHash:
    "SELECT k.id AS k_id, k.account_id AS k_account_id, k.key_hash AS k_key_hash, k.hint AS k_hint," +
    " k.name AS k_name, k.created_at AS k_created_at, k.revoked_at AS k_revoked_at, a.*" +
    " FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?",
  listKeys: "SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id",
  // The first revocation time is kept: revoking again does not rewrite history.
  revokeKey: "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?",

  reserve:
    "UPDATE accounts SET credits_reserved = credits_reserved + ?" +
    " WHERE id = ? AND credits_used + credits_reserved + ? <= credits_cap RETURNING *",
  insertReservation: "INSERT INTO reservations (id, account_id, amount, created_at) VALUES (?, ?, ?, ?)",
  deleteReservation: "DELETE FROM reservations WHERE id = ? RETURNING account_id, amount",
  unreserve: "UPDATE accounts SET credits_reserved = credits_reserved - ? WHERE id = ?",
  oldReservations: "SELECT id FROM reservations WHERE created_at < ?",
  charge: "UPDATE accounts SET credits_used = credits_used + ? WHERE id = ? RETURNING *",
  insertLedger:
    "INSERT INTO ledger (id, account_id, key_id, capability, operation, credits, cost_usd, request_id, created_at)" +
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  ledgerTotal: "SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE account_id = ?",
  usage:
    "SELECT capability, operation, COUNT(*) AS calls, COALESCE(SUM(credits), 0) AS credits FROM ledger" +
    " WHERE account_id = ? AND created_at >= ? GROUP BY capability, operation ORDER BY capability, operation",

  insertSession:
    "INSERT INTO sessions (id, account_id, capability, query, state, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  updateSession: "UPDATE sessions SET query = COALESCE(?, query), state = ?, expires_at = ? WHERE id = ?",
  insertRecord:
    "INSERT INTO records (id, search_id, account_id, position, summary, ref, detail, links, actions)" +
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  recordActions: "SELECT actions FROM records WHERE id = ?",
  setRecordActions: "UPDATE records SET actions = ? WHERE id = ?",
  getSession: "SELECT * FROM sessions WHERE id = ?",
  getRecords:
    "SELECT * FROM records WHERE search_id = ? AND position >= ? AND position < ? ORDER BY position",
  getRecord:
    "SELECT r.*, s.id AS s_id, s.account_id AS s_account_id, s.capability AS s_capability, s.query AS s_query," +
    " s.state AS s_state, s.expires_at AS s_expires_at, s.created_at AS s_created_at" +
    " FROM records r JOIN sessions s ON s.id = r.search_id WHERE r.id = ?",
  touchSession: "UPDATE sessions SET expires_at = ? WHERE id = ?",
  // Bounded batch: the subquery picks at most `limit` ids; records go by ON DELETE CASCADE.
  sweepExpired:
    "DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?)",
} as const;

type BatchOutcome = { ok: true; account: AccountRow } | { ok: false; error: unknown };

export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** Transaction wrappers, built once; called with `.immediate()` so the write lock is taken up front. */
  private readonly tx: {
    reserve: Database.Transaction<(r: Reservation) => { ok: boolean; account: AccountRow | null }>;
    release: Database.Transaction<(r: Reservation) => AccountRow | null>;
    releaseBefore: Database.Transaction<(before: number) => number>;
    commit: Database.Transaction<(op: CommitOp) => AccountRow>;
    commitBatch: Database.Transaction<(ops: CommitOp[]) => BatchOutcome[]>;
  };
  /** Commits waiting for the next group commit (see commit()). */
  private pendingCommits: { op: CommitOp; resolve: (a: AccountRow) => void; reject: (e: unknown) => void }[] = [];
  private flushScheduled = false;

  /** How long one call waits for another connection's write lock before answering 503. */
  private readonly busyTimeoutMs: number;

  /** The file whose WAL a worker checkpoints (started by migrate()); null for memory/read-only. */
  private readonly checkpointFile: string | null;
  private checkpointer: Checkpointer | null = null;

  private constructor(db: Database.Database, busyTimeoutMs: number, checkpointFile: string | null) {
    this.checkpointFile = checkpointFile;
    this.db = db;
    this.busyTimeoutMs = busyTimeoutMs;
    this.tx = {
      reserve: db.transaction((r: Reservation) => this.reserveWork(r)),
      release: db.transaction((r: Reservation) => {
        this.unreserve(r.id);
        return this.account(r.accountId);
      }),
      releaseBefore: db.transaction((before: number) => {
        let released = 0;
        for (const row of this.rows(SQL.oldReservations, before)) {
          if (this.unreserve(String(row.id))) released++;
        }
        return released;
      }),
      commit: db.transaction((op: CommitOp) => this.commitWork(op)),
      // Each op runs in its own savepoint (a nested better-sqlite3 transaction): one op that fails
      // (its session was swept meanwhile) rolls back alone and the others still commit.
      commitBatch: db.transaction((ops: CommitOp[]) =>
        ops.map((op): BatchOutcome => {
          try {
            return { ok: true, account: this.tx.commit(op) };
          } catch (error) {
            return { ok: false, error };
          }
        }),
      ),
    };
  }

  /** Open (creating if needed) the database file; `":memory:"` gives a private in-memory database. */
  static open(file: string, options: SqliteOpenOptions = {}): SqliteStore {
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
      db.pragma(`busy_timeout = ${busyTimeoutMs}`);
      db.pragma("foreign_keys = ON");
      // From here on SQLite does not wait for a lock itself: its wait is synchronous and would
      // freeze the whole process once per waiting call (20 calls → 20 × the timeout, health checks
      // included). guard() waits between attempts instead, without blocking the event loop.
      db.pragma("busy_timeout = 0");
      const checkpointable = !options.readonly && file !== ":memory:" && file !== "";
      return new SqliteStore(db, busyTimeoutMs, checkpointable ? resolve(file) : null);
    } catch (error) {
      throw mapSqliteError(error);
    }
  }

  /** Statements are prepared on first use (tables exist only after migrate) and then reused. */
  private stmt(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private row(sql: string, ...params: unknown[]): Raw | undefined {
    return this.stmt(sql).get(...params) as Raw | undefined;
  }

  private rows(sql: string, ...params: unknown[]): Raw[] {
    return this.stmt(sql).all(...params) as Raw[];
  }

  /**
   * Run one unit of work; while another connection holds the write lock, retry it until the busy
   * timeout, then answer 503. A retry is safe: a busy statement did not run, and a transaction
   * that fails is rolled back whole.
   */
  private async guard<T>(work: () => T): Promise<T> {
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

  async migrate(): Promise<void> {
    await this.applyMigrations();
    // Once the schema is in place, checkpoints move to a worker (see sqlite-checkpointer.ts).
    if (this.checkpointFile && !this.checkpointer) {
      this.checkpointer = await startCheckpointer(this.checkpointFile);
      this.db.pragma("wal_autocheckpoint = 0");
    }
  }

  private applyMigrations(): Promise<void> {
    return this.guard(() => {
      const migrations = loadMigrations("sqlite");
      const pending = (): typeof migrations => {
        if (!this.db.prepare(SQL.hasMigrationsTable).get()) return migrations;
        const applied = new Set(
          (this.db.prepare(SQL.appliedVersions).all() as Raw[]).map((r) => num(r.version)),
        );
        return migrations.filter((m) => !applied.has(m.version));
      };
      // Read first: an up-to-date database (even a read-only one) needs no write transaction.
      if (pending().length === 0) return;
      // IMMEDIATE takes the write lock up front, so two processes starting at once apply in turn.
      this.db
        .transaction(() => {
          this.db.exec(SQL.migrationsTable);
          for (const migration of pending()) {
            this.db.exec(migration.sql);
            this.db.prepare(SQL.recordMigration).run(migration.version, Date.now());
          }
        })
        .immediate();
    });
  }

  ping(): Promise<void> {
    return this.guard(() => {
      this.db.prepare("SELECT 1").get();
    });
  }

  async close(): Promise<void> {
    await this.checkpointer?.stop();
    this.checkpointer = null;
    this.statements.clear();
    if (this.db.open) this.db.close();
  }

  // Accounts

  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.guard(() =>
      toAccount(
        this.row(
          SQL.insertAccount,
          account.id,
          account.name,
          account.planId,
          account.status,
          account.cadence,
          account.creditsCap,
          account.periodEnd,
          account.sharpenStage,
          account.createdAt,
        )!,
      ),
    );
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.guard(() => this.account(id));
  }

  private account(id: string): AccountRow | null {
    const row = this.row(SQL.getAccount, id);
    return row ? toAccount(row) : null;
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.guard(() => this.rows(SQL.listAccounts).map(toAccount));
  }

  countAccounts(): Promise<number> {
    return this.guard(() => num(this.row(SQL.countAccounts)?.n));
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.guard(() => {
      const has = (value: unknown): number => (value === undefined ? 0 : 1);
      const row = this.row(SQL.updateAccount, {
        id,
        set_name: has(patch.name),
        name: patch.name ?? null,
        set_plan_id: has(patch.planId),
        plan_id: patch.planId ?? null,
        set_status: has(patch.status),
        status: patch.status ?? null,
        set_cadence: has(patch.cadence),
        cadence: patch.cadence ?? null,
        set_credits_cap: has(patch.creditsCap),
        credits_cap: patch.creditsCap ?? null,
        set_period_end: has(patch.periodEnd),
        period_end: patch.periodEnd ?? null,
        set_sharpen_stage: has(patch.sharpenStage),
        sharpen_stage: patch.sharpenStage ?? null,
      });
      return row ? toAccount(row) : null;
    });
  }

  rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    return this.guard(() => {
      this.stmt(SQL.rollPeriod).run(newPeriodEnd, accountId, expectedPeriodEnd);
    });
  }

  // Keys

  createKey(key: KeyRow): Promise<void> {
    return this.guard(() => {
      this.stmt(SQL.insertKey).run(
        key.id,
        key.accountId,
        key.hash,
        key.hint,
        key.name,
        key.createdAt,
        key.revokedAt,
      );
    });
  }

  findKeyByHash(hash: string): Promise<{ key: KeyRow; account: AccountRow } | null> {
    return this.guard(() => {
      const row = this.row(SQL.findKeyByHash, hash);
      return row ? { key: toKey(row, "k_"), account: toAccount(row) } : null;
    });
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.guard(() => this.rows(SQL.listKeys, accountId).map((r) => toKey(r)));
  }

  revokeKey(keyId: string, at: number): Promise<boolean> {
    return this.guard(() => this.stmt(SQL.revokeKey).run(at, keyId).changes > 0);
  }

  // Credits

  private reserveWork(reservation: Reservation): { ok: boolean; account: AccountRow | null } {
    const held = this.row(SQL.reserve, reservation.amount, reservation.accountId, reservation.amount);
    if (!held) return { ok: false, account: this.account(reservation.accountId) };
    this.stmt(SQL.insertReservation).run(
      reservation.id,
      reservation.accountId,
      reservation.amount,
      reservation.createdAt,
    );
    return { ok: true, account: toAccount(held) };
  }

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null }> {
    return this.guard(() => this.tx.reserve.immediate(reservation));
  }

  /** Delete the reservation row and give back its stored amount; false when it was already gone. */
  private unreserve(reservationId: string): boolean {
    const gone = this.row(SQL.deleteReservation, reservationId);
    if (!gone) return false;
    this.stmt(SQL.unreserve).run(num(gone.amount), String(gone.account_id));
    return true;
  }

  release(reservation: Reservation): Promise<AccountRow | null> {
    return this.guard(() => this.tx.release.immediate(reservation));
  }

  releaseReservationsBefore(before: number): Promise<number> {
    return this.guard(() => this.tx.releaseBefore.immediate(before));
  }

  private insertRecords(records: RecordRow[]): void {
    const insert = this.stmt(SQL.insertRecord);
    for (const r of records) {
      insert.run(
        r.id,
        r.searchId,
        r.accountId,
        r.position,
        JSON.stringify(r.summary),
        jsonText(r.ref),
        jsonText(r.detail),
        jsonText(r.links),
        JSON.stringify(r.actions ?? {}),
      );
    }
  }

  private commitWork(op: CommitOp): AccountRow {
    // A reservation already released (crash sweeper) is not subtracted twice; the call is still charged.
    if (op.reservation) this.unreserve(op.reservation.id);
    const { ledger } = op;
    // A free call changes no balance: read the account instead of writing its page again.
    const charged =
      ledger.credits === 0
        ? this.row(SQL.getAccount, ledger.accountId)
        : this.row(SQL.charge, ledger.credits, ledger.accountId);
    if (!charged) throw new Error(`commit: no account ${ledger.accountId}.`);
    this.stmt(SQL.insertLedger).run(
      ledger.id,
      ledger.accountId,
      ledger.keyId,
      ledger.capability,
      ledger.operation,
      ledger.credits,
      ledger.costUsd,
      ledger.requestId,
      ledger.createdAt,
    );
    if (op.newSession) {
      const s = op.newSession.session;
      this.stmt(SQL.insertSession).run(
        s.id,
        s.accountId,
        s.capability,
        JSON.stringify(s.query),
        JSON.stringify(s.state),
        s.expiresAt,
        s.createdAt,
      );
      this.insertRecords(op.newSession.records);
    }
    if (op.sessionUpdate) {
      const u = op.sessionUpdate;
      const changed = this.stmt(SQL.updateSession).run(
        jsonText(u.query),
        JSON.stringify(u.state),
        u.expiresAt,
        u.id,
      ).changes;
      if (changed === 0) throw sessionGone();
      this.insertRecords(u.records);
    }
    if (op.recordAction) {
      const { recordId, action, result } = op.recordAction;
      // Read-modify-write is safe: the IMMEDIATE transaction holds the write lock throughout.
      const row = this.row(SQL.recordActions, recordId);
      if (!row) throw sessionGone();
      const actions = (decodeJsonText(row.actions) ?? {}) as Record<string, unknown>;
      actions[action] = result;
      this.stmt(SQL.setRecordActions).run(JSON.stringify(actions), recordId);
    }
    return toAccount(charged);
  }

  /**
   * Group commit: the commits that arrive within one event-loop turn are written in one
   * transaction (one WAL append instead of one per call), each in its own savepoint. A caller's
   * promise resolves only after the transaction holding its op has committed, so an answered call
   * is durable exactly as with one transaction per call.
   */
  commit(op: CommitOp): Promise<AccountRow> {
    return new Promise((resolve, reject) => {
      this.pendingCommits.push({ op, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => void this.flushCommits());
      }
    });
  }

  private async flushCommits(): Promise<void> {
    this.flushScheduled = false;
    const batch = this.pendingCommits;
    this.pendingCommits = [];
    if (batch.length === 0) return;
    try {
      const outcomes =
        batch.length === 1
          ? [{ ok: true as const, account: await this.guard(() => this.tx.commit.immediate(batch[0]!.op)) }]
          : await this.guard(() => this.tx.commitBatch.immediate(batch.map((b) => b.op)));
      outcomes.forEach((outcome, i) => {
        if (outcome.ok) batch[i]!.resolve(outcome.account);
        else batch[i]!.reject(mapSqliteError(outcome.error));
      });
    } catch (error) {
      for (const b of batch) b.reject(error);
    }
  }

  ledgerTotal(accountId: string): Promise<number> {
    return this.guard(() => num(this.row(SQL.ledgerTotal, accountId)?.total));
  }

  usage(
    accountId: string,
    since: number,
  ): Promise<{ capability: string; operation: string; calls: number; credits: number }[]> {
    return this.guard(() =>
      this.rows(SQL.usage, accountId, since).map((r) => ({
        capability: String(r.capability),
        operation: String(r.operation),
        calls: num(r.calls),
        credits: num(r.credits),
      })),
    );
  }

  // Sessions and records

  getSession(id: string): Promise<SessionRow | null> {
    return this.guard(() => {
      const row = this.row(SQL.getSession, id);
      return row ? toSession(row, decodeJsonText) : null;
    });
  }

  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]> {
    return this.guard(() =>
      this.rows(SQL.getRecords, searchId, bound(from), bound(to)).map((r) => toRecord(r, decodeJsonText)),
    );
  }

  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null> {
    return this.guard(() => {
      const row = this.row(SQL.getRecord, id);
      return row
        ? { record: toRecord(row, decodeJsonText), session: toSession(row, decodeJsonText, "s_") }
        : null;
    });
  }

  touchSession(id: string, expiresAt: number): Promise<void> {
    return this.guard(() => {
      this.stmt(SQL.touchSession).run(expiresAt, id);
    });
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.guard(() => {
      if (limit <= 0) return 0;
      return this.stmt(SQL.sweepExpired).run(before, Math.floor(limit)).changes;
    });
  }
}
