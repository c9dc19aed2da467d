/**
 * The embedded store: one SQLite file through better-sqlite3 (WAL). Used when no DATABASE_URL is
 * set. Reads run on this thread's connection (a few microseconds, never blocked by a writer in WAL
 * mode); every write goes through a WriteChannel: for a file, to a writer thread that owns the
 * only writing connection and batches writes into group commits (write-channel.ts).
 */
import {
  bound,
  decodeJsonText,
  KEY_JOIN_COLUMNS,
  num,
  RECORD_COLUMNS,
  type Raw,
  toAccount,
  toKey,
  toRecord,
  toSession,
} from "../sql-common.ts";
import { KeyCache, type KeyLookup } from "../key-cache.ts";
import { toLedger, toLogin, toOAuthClient, toOAuthGrant, toOAuthToken, toWebSession } from "../people-sql.ts";
import { type ConnectionOptions, SqliteConnection } from "./connection.ts";
import type { MemoryHolds } from "./memory-holds.ts";
import { applyMigrations } from "./migrations.ts";
import { PEOPLE_READS } from "./people.ts";
import { KEY_BUDGET_SQL, toKeyBudgetRow } from "./writer.ts";
import type { PeopleWrite, WriteOp, WriterCommit } from "./write-ops.ts";
import {
  type AccountPatch,
  type AccountRow,
  type Committed,
  type CommitOp,
  type DailyUsage,
  type KeyBudget,
  type KeyRow,
  type LedgerEntry,
  type LoginRow,
  type OAuthClientRow,
  type OAuthCodeRow,
  type OAuthGrantRow,
  type OAuthTokenRow,
  type WebSessionRow,
  MAX_SESSION_RECORDS,
  type NewAccount,
  type NewKey,
  type RecordRow,
  type Reservation,
  type SessionRow,
  type Store,
} from "../types.ts";

/**
 * A page of a session: the row-id range of its seq (migration 003), search_id checked too.
 * Parameters: from, to (offsets within the session's slots), search id. Exported for its plan test.
 */
export const GET_RECORDS_SQL =
  `SELECT ${RECORD_COLUMNS} FROM sessions s JOIN records r ON r.slot >= s.seq * ${MAX_SESSION_RECORDS} + ?` +
  ` AND r.slot < s.seq * ${MAX_SESSION_RECORDS} + ? WHERE s.id = ? AND r.search_id = s.id ORDER BY r.slot`;

const SQL = {
  getAccount: "SELECT * FROM accounts WHERE id = ?",
  listAccounts: "SELECT * FROM accounts ORDER BY created_at, id",
  countAccounts: "SELECT COUNT(*) AS n FROM accounts",
  findKeyByHash: `SELECT ${KEY_JOIN_COLUMNS}, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  listKeys: "SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id",
  getKey: "SELECT * FROM api_keys WHERE id = ?",
  keyBudget: KEY_BUDGET_SQL,
  ledgerTotal: "SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE account_id = ?",
  usage:
    "SELECT capability, operation, COUNT(*) AS calls, COALESCE(SUM(credits), 0) AS credits FROM ledger" +
    " WHERE account_id = ? AND created_at >= ? GROUP BY capability, operation ORDER BY capability, operation",
  getSession: "SELECT * FROM sessions WHERE id = ?",
  getRecords: GET_RECORDS_SQL,
  getRecord:
    `SELECT ${RECORD_COLUMNS}, s.id AS s_id,` +
    " s.account_id AS s_account_id, s.capability AS s_capability, s.query AS s_query," +
    " s.state AS s_state, s.expires_at AS s_expires_at, s.created_at AS s_created_at" +
    " FROM records r JOIN sessions s ON s.id = r.search_id WHERE r.id = ?",
  getSource:
    `SELECT r.source FROM sessions s JOIN records r ON r.slot = s.seq * ${MAX_SESSION_RECORDS} + ?` +
    " WHERE s.id = ? AND r.search_id = s.id",
} as const;

/** A position bound as an offset within a session's slots (0 ≤ p ≤ MAX_SESSION_RECORDS), rounded up as PostgreSQL's store does. */
function slotRange(position: number): number {
  return Math.max(0, Math.min(MAX_SESSION_RECORDS, Math.ceil(bound(position))));
}

/** The fields writerCommit() forwards: a field added to CommitOp fails to compile here until it does too. */
type Forwarded = "reservation" | "ledger" | "newSession" | "recordAction" | "sessionUpdate" | "touch";
const FORWARDS_EVERY_FIELD: Exclude<keyof CommitOp, Forwarded> extends never ? true : never = true;
void FORWARDS_EVERY_FIELD;

/** The op as the writer takes it (writer.ts): the hold by id, or none when it is held in memory. */
function writerCommit(op: CommitOp, holdInMemory: boolean): WriterCommit {
  // Built field by field: a rest pattern and spreads copied the op twice on every call.
  const commit: WriterCommit = { ledger: op.ledger, reservationId: holdInMemory ? null : (op.reservation?.id ?? null) };
  const keyId = op.reservation?.keyId;
  if (keyId !== undefined) commit.keyId = keyId;
  if (op.newSession !== undefined) commit.newSession = op.newSession;
  if (op.recordAction !== undefined) commit.recordAction = op.recordAction;
  if (op.touch !== undefined) commit.touch = op.touch;
  const update = op.sessionUpdate;
  if (update !== undefined) {
    commit.sessionUpdate = {
      id: update.id,
      ...(update.query === undefined ? {} : { query: update.query }),
      state: update.state,
      expiresAt: update.expiresAt,
      records: update.records,
      previous: update.previous,
    };
  }
  return commit;
}

export interface SqliteOpenOptions extends ConnectionOptions {
  /** Lifetime of cached key lookups (key-cache.ts); 0 turns the cache off. */
  keyCacheTtlMs?: number;
}

export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  private readonly holds: MemoryHolds | null;

  private constructor(
    /** The reading connection, the write channel and the instance lock (connection.ts). */
    private readonly conn: SqliteConnection,
    private readonly keyCache: KeyCache,
  ) {
    this.holds = conn.holds;
  }

  /** Open (creating if needed) the database file; `":memory:"` gives a private in-memory database. */
  static open(file: string, options: SqliteOpenOptions = {}): SqliteStore {
    return new SqliteStore(SqliteConnection.open(file, options), new KeyCache(options.keyCacheTtlMs));
  }

  private row(sql: string, ...params: unknown[]): Raw | undefined {
    return this.conn.row(sql, ...params);
  }

  private rows(sql: string, ...params: unknown[]): Raw[] {
    return this.conn.rows(sql, ...params);
  }

  private guard<T>(work: () => T): Promise<T> {
    return this.conn.guard(work);
  }

  private write<T>(op: WriteOp): Promise<T> {
    return this.conn.write(op);
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

  // Accounts

  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.write({ t: "createAccount", account });
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.guard(() => this.readAccount(id));
  }

  private readAccount(id: string): AccountRow | null {
    const row = this.row(SQL.getAccount, id);
    return row ? this.withHolds(toAccount(row)) : null;
  }

  /** The account with this process's in-memory holds counted in `creditsReserved`. */
  private withHolds(account: AccountRow): AccountRow {
    const held = this.holds?.held(account.id) ?? 0;
    return held === 0 ? account : { ...account, creditsReserved: account.creditsReserved + held };
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.guard(() => this.rows(SQL.listAccounts).map(toAccount));
  }

  countAccounts(): Promise<number> {
    return this.guard(() => num(this.row(SQL.countAccounts)?.n));
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.keyCache.changing({ accountId: id }, () => this.write({ t: "updateAccount", id, patch }));
  }

  async rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    await this.keyCache.changing({ accountId }, () =>
      this.write({ t: "rollPeriod", accountId, expected: expectedPeriodEnd, next: newPeriodEnd }),
    );
  }

  // Keys

  async createKey(key: NewKey): Promise<void> {
    await this.write({ t: "createKey", key });
  }

  getKey(keyId: string): Promise<KeyRow | null> {
    return this.guard(() => {
      const row = this.row(SQL.getKey, keyId);
      return row ? this.withKeyHolds(toKey(row)) : null;
    });
  }

  /** The key with this process's in-memory holds counted in `creditsReserved`. */
  private withKeyHolds(key: KeyRow): KeyRow {
    const held = this.holds?.heldForKey(key.id) ?? 0;
    return held === 0 ? key : { ...key, creditsReserved: key.creditsReserved + held };
  }

  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null> {
    return this.keyCache.changing({ keyId }, async () => {
      const key = await this.write<KeyRow | null>({ t: "setKeyLimit", keyId, limit, periodStart });
      return key && this.withKeyHolds(key);
    });
  }

  findKeyByHash(hash: string): Promise<KeyLookup | null> {
    return this.keyCache.lookup(hash, () =>
      this.guard(() => {
        const row = this.row(SQL.findKeyByHash, hash);
        return row ? { key: toKey(row, "k_"), account: toAccount(row) } : null;
      }),
    );
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.guard(() => this.rows(SQL.listKeys, accountId).map((r) => this.withKeyHolds(toKey(r))));
  }

  revokeKey(keyId: string, at: number): Promise<number | null> {
    return this.keyCache.changing({ keyId }, () => this.write({ t: "revokeKey", keyId, at }));
  }

  // Credits

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    const holds = this.holds;
    if (!holds) return this.write({ t: "reserve", reservation });
    // Read and hold in one synchronous step: nothing else on this thread runs in between.
    return this.guard(() => {
      const account = this.readAccount(reservation.accountId);
      if (!account) return { ok: false, account: null };
      if (account.creditsUsed + account.creditsReserved + reservation.amount > account.creditsCap) {
        return { ok: false, account };
      }
      let held = reservation;
      const { keyId } = reservation;
      if (keyId !== undefined) {
        // A key with a limit: its use in this period, its stored holds and this process's, read in
        // the same step. A key gone from the store (never: keys are revoked, not deleted) holds nothing.
        const found = this.row(SQL.keyBudget, keyId);
        if (found) {
          const key = toKeyBudgetRow(found);
          const reserved = key.reserved + holds.heldForKey(keyId);
          if (key.limit !== null && key.used + reserved + reservation.amount > key.limit) {
            return { ok: false, account, key: { limit: key.limit, used: key.used, reserved } };
          }
        } else {
          const { keyId: _gone, ...withoutKey } = reservation;
          held = withoutKey;
        }
      }
      holds.add(held);
      return { ok: true, account: { ...account, creditsReserved: account.creditsReserved + reservation.amount } };
    });
  }

  async release(reservation: Reservation): Promise<AccountRow | null> {
    if (!this.holds) return this.write({ t: "release", reservation });
    this.holds.remove(reservation.id);
    return this.getAccount(reservation.accountId);
  }

  async releaseReservationsOlderThan(ageMs: number): Promise<number> {
    // One process stamps and ages them all: its own clock (reservations carry Date.now()-based times).
    const before = Date.now() - ageMs;
    // Stored holds (left by a crash of a non-exclusive user or an older version), then memory ones.
    const stored = await this.write<number>({ t: "releaseBefore", before });
    return stored + (this.holds?.removeBefore(before) ?? 0);
  }

  /**
   * Settle a call: the charge, its ledger row and its session writes in one transaction, grouped
   * with the other writes of the same turn (see writer.ts).
   */
  async commit(op: CommitOp): Promise<Committed> {
    const holds = this.holds;
    if (!holds) return this.keyCache.noteCommit(await this.write<Committed>({ t: "commit", commit: writerCommit(op, false) }));
    // The hold is in memory: the transaction charges; the hold goes once the charge is committed.
    const committed = await this.write<Committed>({ t: "commit", commit: writerCommit(op, true) });
    if (op.reservation) holds.remove(op.reservation.id);
    return this.keyCache.noteCommit({ account: this.withHolds(committed.account), charged: committed.charged });
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
      this.rows(SQL.getRecords, slotRange(from), slotRange(to), searchId).map((r) => toRecord(r, decodeJsonText)),
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

  getSource(searchId: string, position: number): Promise<string | null> {
    return this.guard(() => {
      if (!Number.isSafeInteger(position) || position < 0 || position >= MAX_SESSION_RECORDS) return null;
      const source = this.row(SQL.getSource, position, searchId)?.source;
      return typeof source === "string" ? source : null;
    });
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.write({ t: "sweep", before, limit });
  }

  // People: logins, dashboard sessions, OAuth (writes: people.ts on the writer)

  private people<T>(op: PeopleWrite): Promise<T> {
    return this.write<T>({ t: "people", op });
  }

  createLogin(login: LoginRow): Promise<boolean> {
    return this.people({ t: "createLogin", login });
  }

  findLoginByEmail(email: string): Promise<LoginRow | null> {
    return this.guard(() => {
      const row = this.row(PEOPLE_READS.findLoginByEmail, email);
      return row ? toLogin(row) : null;
    });
  }

  getLogin(id: string): Promise<LoginRow | null> {
    return this.guard(() => {
      const row = this.row(PEOPLE_READS.getLogin, id);
      return row ? toLogin(row) : null;
    });
  }

  listLogins(accountId: string): Promise<LoginRow[]> {
    return this.guard(() => this.rows(PEOPLE_READS.listLogins, accountId).map(toLogin));
  }

  deleteLogin(id: string): Promise<boolean> {
    return this.people({ t: "deleteLogin", id });
  }

  setLoginPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.people({ t: "setLoginPassword", id, passwordHash });
  }

  async noteSignIn(loginId: string, at: number): Promise<void> {
    await this.people({ t: "noteSignIn", id: loginId, at });
  }

  async touchKey(keyId: string, at: number): Promise<void> {
    await this.people({ t: "touchKey", keyId, at });
  }

  getWebSession(idHash: string): Promise<WebSessionRow | null> {
    return this.guard(() => {
      const row = this.row(PEOPLE_READS.getWebSession, idHash);
      return row ? toWebSession(row, decodeJsonText) : null;
    });
  }

  async setWebSession(session: WebSessionRow): Promise<void> {
    await this.people({ t: "setWebSession", session });
  }

  async deleteWebSession(idHash: string): Promise<void> {
    await this.people({ t: "deleteWebSession", idHash });
  }

  async setting(name: string, initial: string): Promise<string> {
    // Read first: a setting made already needs no write (and a read-only file still answers it).
    const stored = await this.guard(() => this.row(PEOPLE_READS.getSetting, name)?.value);
    if (typeof stored === "string") return stored;
    return this.people({ t: "setting", name, initial });
  }

  async createOAuthClient(client: OAuthClientRow): Promise<void> {
    await this.people({ t: "createOAuthClient", client });
  }

  getOAuthClient(id: string): Promise<OAuthClientRow | null> {
    return this.guard(() => {
      const row = this.row(PEOPLE_READS.getOAuthClient, id);
      return row ? toOAuthClient(row, decodeJsonText) : null;
    });
  }

  async createOAuthCode(code: OAuthCodeRow): Promise<void> {
    await this.people({ t: "createOAuthCode", code });
  }

  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null> {
    return this.people({ t: "useOAuthCode", hash, at });
  }

  async createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void> {
    await this.people({ t: "createOAuthGrant", grant, tokens });
  }

  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null> {
    return this.guard(() => {
      const row = this.row(PEOPLE_READS.findOAuthToken, hash);
      return row ? { token: toOAuthToken(row, "t_"), grant: toOAuthGrant(row, "g_"), account: this.withHolds(toAccount(row)) } : null;
    });
  }

  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid"> {
    return this.people({ t: "rotateOAuthRefresh", hash, at, tokens });
  }

  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]> {
    return this.guard(() => this.rows(PEOPLE_READS.listOAuthGrants, accountId).map((r) => toOAuthGrant(r)));
  }

  revokeOAuthGrant(grantId: string, at: number): Promise<number | null> {
    return this.people({ t: "revokeOAuthGrant", id: grantId, at });
  }

  async touchOAuthGrant(grantId: string, at: number): Promise<void> {
    await this.people({ t: "touchOAuthGrant", id: grantId, at });
  }

  sweepPeople(before: number, limit: number): Promise<number> {
    return this.people({ t: "sweepPeople", before, limit });
  }

  usageByDay(accountId: string, since: number): Promise<DailyUsage[]> {
    return this.guard(() =>
      this.rows(PEOPLE_READS.usageByDay, accountId, since).map((r) => ({
        day: num(r.day),
        capability: String(r.capability),
        calls: num(r.calls),
        credits: num(r.credits),
      })),
    );
  }

  recentCalls(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return this.guard(() => this.rows(PEOPLE_READS.recentCalls, accountId, Math.max(0, Math.floor(limit))).map(toLedger));
  }
}
