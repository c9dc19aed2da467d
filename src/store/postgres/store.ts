/**
 * The shared store: PostgreSQL through a pg.Pool, for deployments with DATABASE_URL (several
 * service instances on one database). Balance changes are single conditional statements or short
 * transactions on one client, so concurrent instances cannot overspend a cap.
 */
import type pg from "pg";
import { ApiError, sessionExpired } from "../../errors.ts";
import { type InDoubtCall, InDoubtJournal } from "../in-doubt.ts";
import { jsonb, KEY_USED, type Queryable } from "./access.ts";
import { PostgresAccounts } from "./accounts.ts";
import { applyMigrations, createSchema } from "./migrations.ts";
import { type LostCallReport, PostgresLostCalls } from "./lost-calls.ts";
import { PostgresPeople } from "./people.ts";
import { PgPool } from "./pool.ts";
import { PostgresSessions } from "./sessions.ts";
import { KeyCache, type KeyLookup } from "../key-cache.ts";
import {
  DAY_MS,
  toLedger,
} from "../people-sql.ts";
import {
  LEDGER_COLUMNS,
  ledgerValues,
  num,
  numOrNull,
  type Raw,
  toAccount,
} from "../sql-common.ts";
import type {
  AccountPatch,
  AccountRow,
  Committed,
  CommitOp,
  DailyUsage,
  KeyBudget,
  KeyRow,
  LedgerEntry,
  LoginRow,
  OAuthClientRow,
  OAuthCodeRow,
  OAuthGrantRow,
  OAuthTokenRow,
  WebSessionRow,
  NewAccount,
  NewKey,
  RecordRow,
  Reservation,
  SessionRow,
  Store,
} from "../types.ts";
import { SessionChanged } from "../types.ts";

export { jsonb } from "./access.ts";

export interface PostgresOpenOptions {
  /** Schema for every table (created if missing); tests use a fresh one each to isolate themselves. */
  schema?: string;
  /** Pool size (default 10). */
  max?: number;
  /** Lifetime of cached key lookups (key-cache.ts); 0 turns the cache off. */
  keyCacheTtlMs?: number;
  /** How long a call whose COMMIT reply was lost waits to learn the outcome (default COMMIT_OUTCOME_WAIT_MS). */
  commitOutcomeWaitMs?: number;
  /** How often calls answered "not known" are asked about again (default LOST_CALL_PROBE_MS). */
  lostCallProbeMs?: number;
  /** Told what became of each call answered "not known" (the server logs it). */
  onLostCall?: (report: LostCallReport) => void;
  /**
   * Directory where calls answered "not known" are kept until settled (in-doubt.ts), so that a stop
   * of the process does not lose them; the store opened next on it settles what is left. Unset:
   * memory only.
   */
  inDoubtDir?: string;
}

export type { LostCallReport } from "./lost-calls.ts";


/** How long `commit()` keeps asking the database what became of a COMMIT whose reply was lost. */
export const COMMIT_OUTCOME_WAIT_MS = 4000;
/** How often calls answered "not known" are asked about again, until the database answers. */
export const LOST_CALL_PROBE_MS = 1000;

/** What settling a call answered "not known" needs, taken from its CommitOp. */
function inDoubt(
  op: CommitOp,
  xid: string,
  periodEnd: number | null,
  schema: string | null,
  storeId: string | null,
): InDoubtCall {
  const { ledger, newSession, sessionUpdate } = op;
  return {
    xid,
    schema,
    storeId,
    periodEnd,
    ledger: {
      id: ledger.id,
      requestId: ledger.requestId,
      accountId: ledger.accountId,
      credits: ledger.credits,
    },
    ...(op.reservation?.keyId === undefined ? {} : { keyId: op.reservation.keyId }),
    newSessionId: newSession?.session.id ?? null,
    update: sessionUpdate?.previous
      ? {
          id: sessionUpdate.id,
          state: sessionUpdate.state,
          previousQuery: sessionUpdate.previous.query,
          previousState: sessionUpdate.previous.state,
          recordIds: sessionUpdate.records.map((r) => r.id),
        }
      : null,
  };
}

function sessionGone(): ApiError {
  // The sweeper removed the search while the call ran; the commit rolls back so nothing is charged.
  return sessionExpired("The search expired while this call was running.");
}

/** Records go in as one JSON array parameter: one round trip however many there are. */
const INSERT_RECORDS = `INSERT INTO records (id, search_id, account_id, position, summary, ref, detail, links, actions,
    source_at, source)
  SELECT r.id, r.search_id, r.account_id, r.position, r.summary, r.ref, r.detail, r.links,
         COALESCE(r.actions, '{}'::json), r.source_at, r.source
  FROM json_to_recordset($1::json) AS r(id text, search_id text, account_id text, position bigint,
       summary json, ref json, detail json, links json, actions json, source_at bigint, source text)
  ORDER BY r.position`;

/** The database's clock in epoch milliseconds (the clock reservations are stamped and aged by). */
const DB_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** Delete one reservation and give its stored amount back, in one statement (no-op when gone). */
const RELEASE = `WITH gone AS (DELETE FROM reservations WHERE id = $1 RETURNING account_id, amount)
  UPDATE accounts a SET credits_reserved = a.credits_reserved - g.amount
  FROM gone g WHERE a.id = g.account_id RETURNING a.*`;

/**
 * RELEASE for a reservation that may hold against a key's limit too (its key_id): the key's hold is
 * given back in the same statement. Locks in the fixed order reservation, account, key: the key's
 * UPDATE reads the account's (from `acct`), so it runs only once the account's row is locked.
 * Used where a hold may or may not have a key (release, the sweeper); a billed call whose key has
 * no limit settles with RELEASE.
 */
const RELEASE_KEYED = `WITH gone AS (DELETE FROM reservations WHERE id = $1 RETURNING account_id, amount, key_id),
  acct AS (UPDATE accounts a SET credits_reserved = a.credits_reserved - g.amount
    FROM gone g WHERE a.id = g.account_id RETURNING a.*, g.key_id AS r_key_id, g.amount AS r_amount),
  k AS (UPDATE api_keys k SET credits_reserved = k.credits_reserved - acct.r_amount FROM acct WHERE k.id = acct.r_key_id)
  SELECT * FROM acct`;


/** A hold against a key's limit ($1 key, $2 account's period_end, $3 amount); no row when it does not fit. */
const HOLD_KEY = `UPDATE api_keys SET credits_used = ${KEY_USED}, used_period_end = $2::bigint,
    credits_reserved = credits_reserved + $3
  WHERE id = $1 AND (credit_limit IS NULL OR ${KEY_USED} + credits_reserved + $3 <= credit_limit) RETURNING id`;

/** A key's budget as reserve reports a refusal ($1 key, $2 account's period_end). */
const KEY_BUDGET = `SELECT credit_limit, ${KEY_USED} AS used, credits_reserved FROM api_keys WHERE id = $1`;

/**
 * Settle a key's part of a call, on the key's locked row: give back its hold ($3, what the
 * reservation still held) and charge what of $4 fits under its limit and under the account's room
 * ($5); returns that (`fits`). $1 key, $2 the account's period_end.
 */
const SETTLE_KEY = `UPDATE api_keys k SET credits_reserved = k.credits_reserved - $3, credits_used = room.used + room.fits,
    used_period_end = $2::bigint
  FROM (SELECT id, used, GREATEST(0, LEAST($4::bigint, $5::bigint, COALESCE(credit_limit - used, $4::bigint))) AS fits
        FROM (SELECT id, credit_limit, ${KEY_USED} AS used FROM api_keys WHERE id = $1 FOR UPDATE) locked) room
  WHERE k.id = room.id RETURNING room.fits AS fits`;

/** A reserve refused by the key's limit (the transaction rolls the account's hold back). */
class KeyRefused extends Error {
  constructor(
    readonly account: AccountRow,
    readonly key: KeyBudget,
  ) {
    super("refused by the key's limit");
  }
}


export class PostgresStore implements Store {
  readonly kind = "postgres" as const;
  private readonly keyCache: KeyCache;
  /** This database's identity (table store_identity), read by migrate(). */
  private storeId: string | null = null;
  /** Calls in doubt (lost-calls.ts): answered 503 when a COMMIT's reply was lost, undone if they committed. */
  private readonly lostCalls: PostgresLostCalls;
  /** The people aggregate (people.ts), on this store's pool, error mapping and transactions. */
  private readonly people: PostgresPeople;
  /** The search sessions' reads and sweep (sessions.ts); their writes are the billing commit's. */
  private readonly sessions: PostgresSessions;
  /** Accounts and keys (accounts.ts), with the key lookups' cache. */
  private readonly accounts: PostgresAccounts;

  private constructor(
    /** The pool every aggregate runs on (pool.ts). */
    private readonly db: PgPool,
    keyCache: KeyCache,
    commitOutcomeWaitMs: number,
    lostCallProbeMs: number,
    onLostCall: (report: LostCallReport) => void,
    private readonly schema: string | null,
    journal: InDoubtJournal | null,
  ) {
    this.keyCache = keyCache;
    this.people = new PostgresPeople(db);
    this.sessions = new PostgresSessions(db);
    this.accounts = new PostgresAccounts(db, keyCache);
    this.lostCalls = new PostgresLostCalls(db, journal, commitOutcomeWaitMs, lostCallProbeMs, onLostCall);
  }

  static async open(url: string, options: PostgresOpenOptions = {}): Promise<PostgresStore> {
    const { schema } = options;
    const db = PgPool.create(url, {
      ...(schema === undefined ? {} : { schema }),
      ...(options.max === undefined ? {} : { max: options.max }),
    });
    const store = new PostgresStore(
      db,
      new KeyCache(options.keyCacheTtlMs),
      options.commitOutcomeWaitMs ?? COMMIT_OUTCOME_WAIT_MS,
      options.lostCallProbeMs ?? LOST_CALL_PROBE_MS,
      options.onLostCall ?? (() => {}),
      schema ?? null,
      options.inDoubtDir === undefined ? null : new InDoubtJournal(options.inDoubtDir),
    );
    try {
      if (schema !== undefined) await createSchema(db, schema);
    } catch (error) {
      await db.pool.end().catch(() => {});
      throw error;
    }
    return store;
  }

  async migrate(): Promise<void> {
    this.storeId = await applyMigrations(this.db);
    // Calls left in doubt by an earlier process on this data directory (lost-calls.ts).
    await this.lostCalls.recover(this.schema, this.storeId);
  }

  ping(): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("SELECT 1");
    });
  }

  async close(): Promise<void> {
    // One last try for calls still in doubt; what stays unknown is reported for an operator.
    await this.lostCalls.close(!this.db.ended);
    await this.db.end();
  }

  /**
   * Undo a committed call as a call in doubt is undone once its transaction is known to be over
   * (PostgresLostCalls.settle): for the store contract's test of what the undo gives back. False when its
   * ledger row is gone.
   */
  undoForTests(op: CommitOp, periodEnd: number | null): Promise<boolean> {
    return this.lostCalls.undo(inDoubt(op, "0", periodEnd, this.schema, this.storeId));
  }

  /** How many calls answered "not known" are still being asked about (the fault tests wait on it). */
  get unresolvedCalls(): number {
    return this.lostCalls.size;
  }

  // Accounts and keys (accounts.ts)

  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.accounts.createAccount(account);
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.accounts.getAccount(id);
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.accounts.listAccounts();
  }

  countAccounts(): Promise<number> {
    return this.accounts.countAccounts();
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.accounts.updateAccount(id, patch);
  }

  rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    return this.accounts.rollPeriod(accountId, expectedPeriodEnd, newPeriodEnd);
  }

  createKey(key: NewKey): Promise<void> {
    return this.accounts.createKey(key);
  }

  findKeyByHash(hash: string): Promise<KeyLookup | null> {
    return this.accounts.findKeyByHash(hash);
  }

  getKey(keyId: string): Promise<KeyRow | null> {
    return this.accounts.getKey(keyId);
  }

  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null> {
    return this.accounts.setKeyLimit(keyId, limit, periodStart);
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.accounts.listKeys(accountId);
  }

  revokeKey(keyId: string, at: number): Promise<number | null> {
    return this.accounts.revokeKey(keyId, at);
  }

  /** An account read on `on` (a transaction's client, or the pool). */
  private account(id: string, on: Queryable): Promise<AccountRow | null> {
    return this.accounts.account(id, on);
  }

  // Credits

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    if (reservation.keyId !== undefined) return this.reserveWithKey(reservation, reservation.keyId);
    return this.db.transaction(async (client) => {
      // The row lock taken by this UPDATE makes concurrent reserves re-check the cap in turn.
      const held = await this.db.row(
        `UPDATE accounts SET credits_reserved = credits_reserved + $2
         WHERE id = $1 AND credits_used + credits_reserved + $2 <= credits_cap RETURNING *`,
        [reservation.accountId, reservation.amount],
        client,
      );
      if (!held) return { ok: false, account: await this.account(reservation.accountId, client) };
      await client.query(
        // Stamped by the database's clock, which also ages it (releaseReservationsOlderThan): the
        // instances' clocks may differ; `reservation.createdAt` (this instance's) is not used.
        `INSERT INTO reservations (id, account_id, amount, created_at) VALUES ($1, $2, $3, ${DB_NOW_MS})`,
        [reservation.id, reservation.accountId, reservation.amount],
      );
      return { ok: true, account: toAccount(held) };
    });
  }

  /**
   * A hold against the account's cap and the key's limit, in one transaction: one conditional UPDATE
   * of the account's row, then one of the key's (always in that order, so concurrent reserves and
   * commits cannot deadlock), then the reservation row, which remembers the key.
   */
  private async reserveWithKey(
    reservation: Reservation,
    keyId: string,
  ): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    try {
      return await this.db.transaction(async (client) => {
        const held = await this.db.row(
          `UPDATE accounts SET credits_reserved = credits_reserved + $2
           WHERE id = $1 AND credits_used + credits_reserved + $2 <= credits_cap RETURNING *`,
          [reservation.accountId, reservation.amount],
          client,
        );
        if (!held) return { ok: false, account: await this.account(reservation.accountId, client) };
        const account = toAccount(held);
        let heldFor: string | null = keyId;
        if (!(await this.db.row(HOLD_KEY, [keyId, account.periodEnd, reservation.amount], client))) {
          const found = await this.db.row(KEY_BUDGET, [keyId, account.periodEnd], client);
          // No such key (never: keys are revoked, not deleted): the account's hold alone.
          if (!found) heldFor = null;
          else {
            const key = { limit: num(found.credit_limit), used: num(found.used), reserved: num(found.credits_reserved) };
            // Thrown so that the transaction rolls the account's hold back.
            throw new KeyRefused({ ...account, creditsReserved: account.creditsReserved - reservation.amount }, key);
          }
        }
        await client.query(
          `INSERT INTO reservations (id, account_id, amount, created_at, key_id) VALUES ($1, $2, $3, ${DB_NOW_MS}, $4)`,
          [reservation.id, reservation.accountId, reservation.amount, heldFor],
        );
        return { ok: true, account };
      });
    } catch (error) {
      if (error instanceof KeyRefused) return { ok: false, account: error.account, key: error.key };
      throw error;
    }
  }

  release(reservation: Reservation): Promise<AccountRow | null> {
    return this.db.guard(async () => {
      // Whatever the caller's copy says, the stored hold says whether a key's limit holds it too.
      const row = await this.db.row(RELEASE_KEYED, [reservation.id]);
      return row ? toAccount(row) : this.account(reservation.accountId, this.db.pool);
    });
  }

  releaseReservationsOlderThan(ageMs: number): Promise<number> {
    return this.db.guard(async () => {
      // One statement per reservation, like release(): each locks one reservation, then one account,
      // then the key whose limit it held against (if any), the same order as commit(), so sweepers on
      // several instances cannot deadlock each other or the calls.
      const old = await this.db.rows(
        `SELECT id FROM reservations WHERE created_at < ${DB_NOW_MS} - $1 ORDER BY created_at`,
        [Math.max(0, Math.floor(ageMs))],
      );
      let released = 0;
      for (const { id } of old) {
        if (await this.db.row(RELEASE_KEYED, [id])) released++;
      }
      return released;
    });
  }

  private async insertRecords(records: RecordRow[], client: pg.PoolClient): Promise<void> {
    if (records.length === 0) return;
    const payload = records.map((r) => ({
      id: r.id,
      search_id: r.searchId,
      account_id: r.accountId,
      position: r.position,
      summary: r.summary,
      ref: r.ref ?? null,
      detail: r.detail ?? null,
      links: r.links ?? null,
      actions: r.actions ?? {},
      source_at: r.sourceAt ?? null,
      source: r.source ?? null,
    }));
    await client.query(INSERT_RECORDS, [jsonb(payload)]);
  }

  /**
   * One call's writes in one transaction. When the reply to its COMMIT is lost, the transaction's
   * id (taken with the account's row) tells on another connection whether it committed: the call
   * then gets its normal answer, or its 503 with nothing charged. If the database stays away for
   * commitOutcomeWaitMs (default COMMIT_OUTCOME_WAIT_MS), the call is answered 503 and kept in
   * lostCalls: undone once the database answers, should it have committed.
   */
  async commit(op: CommitOp): Promise<Committed> {
    const { row, charged } = await this.db.transaction(
      (client) => this.commitWrites(op, client),
      async (written, cause) => {
        const outcome = await this.lostCalls.outcomeOf(written.xid);
        if (outcome === "committed") return written;
        if (outcome === "aborted") throw cause;
        // The caller is told it failed, so it must not stay charged: once the database answers,
        // a call that did commit is undone (PostgresLostCalls.settle). Kept on disk first, if the store has
        // a journal, so that a stop of this process does not lose it.
        const saved = written.charged === op.ledger.credits ? op : { ...op, ledger: { ...op.ledger, credits: written.charged } };
        await this.lostCalls.watch(inDoubt(saved, written.xid, written.row.periodEnd, this.schema, this.storeId));
        throw new ApiError(
          "service_unavailable",
          "The database stopped answering while this call was being saved.",
          {
            cause,
            hint:
              "Not charged: if the call was saved after all, it is undone (credits returned, its search dropped) " +
              "as soon as the database answers again. Retry shortly.",
          },
        );
      },
    );
    return this.keyCache.noteCommit({ account: row, charged });
  }

  private async commitWrites(
    op: CommitOp,
    client: pg.PoolClient,
  ): Promise<{ row: AccountRow; charged: number; xid: string }> {
    const keyId = op.reservation?.keyId;
    // A reservation already released (crash sweeper) is not subtracted twice; the call is still charged.
    if (op.reservation && keyId === undefined) await client.query(RELEASE, [op.reservation.id]);
    let { ledger } = op;
    // A free call changes no balance: read the account instead of writing its row again. A charge
    // is what of it fits under the cap (a plan change since the reservation may have taken the room
    // away), computed on the locked row. txid_current(): the transaction's id, to ask about if the
    // reply to COMMIT is lost.
    const after =
      keyId !== undefined
        ? await this.settleWithKey(op.reservation!.id, keyId, ledger, client)
        : ledger.credits === 0
        ? await this.db.row(
            "SELECT *, 0 AS charged, txid_current()::text AS xid FROM accounts WHERE id = $1",
            [ledger.accountId],
            client,
          )
        : await this.db.row(
            `UPDATE accounts a SET credits_used = a.credits_used + room.fits
             FROM (SELECT id, GREATEST(0, LEAST($2::bigint, credits_cap - credits_used)) AS fits
                   FROM accounts WHERE id = $1 FOR UPDATE) room
             WHERE a.id = room.id RETURNING a.*, room.fits AS charged, txid_current()::text AS xid`,
            [ledger.accountId, ledger.credits],
            client,
          );
    if (!after) throw new Error(`commit: no account ${ledger.accountId}.`);
    const charged = num(after.charged);
    if (charged !== ledger.credits) ledger = { ...ledger, credits: charged };
    await client.query(
      `INSERT INTO ledger (${LEDGER_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      ledgerValues(ledger),
    );
    if (op.newSession) {
      const s = op.newSession.session;
      await client.query(
        `INSERT INTO sessions (id, account_id, capability, query, state, expires_at, created_at)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7)`,
        [s.id, s.accountId, s.capability, jsonb(s.query), jsonb(s.state), s.expiresAt, s.createdAt],
      );
      await this.insertRecords(op.newSession.records, client);
    }
    if (op.sessionUpdate) {
      const u = op.sessionUpdate;
      // A compare-and-set on what the call read: another instance's follow-up on the search may have
      // committed meanwhile (the per-search lock is per process).
      const result = await client.query(
        `UPDATE sessions SET query = COALESCE($2::jsonb, query), state = $3::jsonb, expires_at = $4
         WHERE id = $1 AND query = $5::jsonb AND state = $6::jsonb`,
        [u.id, u.query === undefined ? null : jsonb(u.query), jsonb(u.state), u.expiresAt, jsonb(u.previous.query), jsonb(u.previous.state)],
      );
      if ((result.rowCount ?? 0) === 0) throw (await this.sessionExists(u.id, client)) ? new SessionChanged() : sessionGone();
      await this.insertRecords(u.records, client);
    }
    if (op.recordAction) {
      const { recordId, action, result } = op.recordAction;
      // Read-modify-write under the row's lock (json keeps the detail's key order; it has no `||`).
      // Not when another call cached it meanwhile: that one is served from the cache, at no charge.
      const current = await client.query("SELECT actions FROM records WHERE id = $1 FOR UPDATE", [recordId]);
      const row = current.rows[0] as Raw | undefined;
      if (row === undefined) throw sessionGone();
      const actions = (row.actions ?? {}) as Record<string, unknown>;
      if (Object.hasOwn(actions, action)) throw new SessionChanged();
      actions[action] = result;
      await client.query("UPDATE records SET actions = $2::json WHERE id = $1", [recordId, jsonb(actions)]);
    }
    if (op.touch) {
      await client.query("UPDATE sessions SET expires_at = $2 WHERE id = $1", [op.touch.sessionId, op.touch.expiresAt]);
    }
    return { row: toAccount(after), charged, xid: String(after.xid) };
  }

  /**
   * The charge of a call whose key has a limit: the account's row is locked first (its hold given
   * back), then the key's (its hold given back, its use charged), then the account charged the same:
   * what fits under both the account's cap and the key's limit. Returns the account's row as
   * commitWrites reads it (with `charged` and `xid`).
   */
  private async settleWithKey(reservationId: string, keyId: string, ledger: LedgerEntry, client: pg.PoolClient): Promise<Raw | undefined> {
    const locked = await this.db.row(
      `WITH gone AS (DELETE FROM reservations WHERE id = $1 RETURNING amount)
       UPDATE accounts a SET credits_reserved = a.credits_reserved - g.amount
       FROM (SELECT COALESCE((SELECT amount FROM gone), 0) AS amount) g
       WHERE a.id = $2 RETURNING GREATEST(0, a.credits_cap - a.credits_used) AS room, a.period_end, g.amount AS released`,
      [reservationId, ledger.accountId],
      client,
    );
    if (!locked) return undefined;
    const room = num(locked.room);
    const settled = await this.db.row(
      SETTLE_KEY,
      [keyId, numOrNull(locked.period_end), num(locked.released), ledger.credits, room],
      client,
    );
    const fits = settled ? num(settled.fits) : Math.max(0, Math.min(ledger.credits, room));
    return fits === 0
      ? this.db.row("SELECT *, 0 AS charged, txid_current()::text AS xid FROM accounts WHERE id = $1", [ledger.accountId], client)
      : this.db.row(
          `UPDATE accounts SET credits_used = credits_used + $2 WHERE id = $1
           RETURNING *, $2::bigint AS charged, txid_current()::text AS xid`,
          [ledger.accountId, fits],
          client,
        );
  }

  private async sessionExists(id: string, client: pg.PoolClient): Promise<boolean> {
    return ((await client.query("SELECT 1 FROM sessions WHERE id = $1", [id])).rowCount ?? 0) > 0;
  }

  ledgerTotal(accountId: string): Promise<number> {
    return this.db.guard(async () =>
      num(
        (
          await this.db.row("SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE account_id = $1", [
            accountId,
          ])
        )?.total,
      ),
    );
  }

  usage(
    accountId: string,
    since: number,
  ): Promise<{ capability: string; operation: string; calls: number; credits: number }[]> {
    return this.db.guard(async () =>
      (
        await this.db.rows(
          `SELECT capability, operation, COUNT(*) AS calls, COALESCE(SUM(credits), 0) AS credits FROM ledger
           WHERE account_id = $1 AND created_at >= $2 GROUP BY capability, operation ORDER BY capability, operation`,
          [accountId, since],
        )
      ).map((r) => ({
        capability: String(r.capability),
        operation: String(r.operation),
        calls: num(r.calls),
        credits: num(r.credits),
      })),
    );
  }

  // Sessions and records (sessions.ts)

  getSession(id: string): Promise<SessionRow | null> {
    return this.sessions.getSession(id);
  }

  getRecords(searchId: string, from: number, to: number): Promise<RecordRow[]> {
    return this.sessions.getRecords(searchId, from, to);
  }

  getRecord(id: string): Promise<{ record: RecordRow; session: SessionRow } | null> {
    return this.sessions.getRecord(id);
  }

  getSource(searchId: string, position: number): Promise<string | null> {
    return this.sessions.getSource(searchId, position);
  }

  sweepExpired(before: number, limit: number): Promise<number> {
    return this.sessions.sweepExpired(before, limit);
  }

  // People: logins, dashboard sessions, OAuth (people.ts)

  touchKey(keyId: string, at: number): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("UPDATE api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $2) WHERE id = $1", [keyId, at]);
    });
  }

  setting(name: string, initial: string): Promise<string> {
    return this.db.guard(async () => {
      // Read first: a setting made already needs no write (a standby still answers it).
      const stored = await this.db.row("SELECT value FROM settings WHERE name = $1", [name]);
      if (stored) return String(stored.value);
      await this.db.pool.query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [name, initial]);
      return String((await this.db.row("SELECT value FROM settings WHERE name = $1", [name]))!.value);
    });
  }

  createLogin(login: LoginRow): Promise<boolean> {
    return this.people.createLogin(login);
  }

  findLoginByEmail(email: string): Promise<LoginRow | null> {
    return this.people.findLoginByEmail(email);
  }

  getLogin(id: string): Promise<LoginRow | null> {
    return this.people.getLogin(id);
  }

  listLogins(accountId: string): Promise<LoginRow[]> {
    return this.people.listLogins(accountId);
  }

  deleteLogin(id: string): Promise<boolean> {
    return this.people.deleteLogin(id);
  }

  setLoginPassword(id: string, passwordHash: string): Promise<boolean> {
    return this.people.setLoginPassword(id, passwordHash);
  }

  noteSignIn(loginId: string, at: number): Promise<void> {
    return this.people.noteSignIn(loginId, at);
  }

  getWebSession(idHash: string): Promise<WebSessionRow | null> {
    return this.people.getWebSession(idHash);
  }

  setWebSession(session: WebSessionRow): Promise<void> {
    return this.people.setWebSession(session);
  }

  deleteWebSession(idHash: string): Promise<void> {
    return this.people.deleteWebSession(idHash);
  }

  createOAuthClient(client: OAuthClientRow): Promise<void> {
    return this.people.createOAuthClient(client);
  }

  getOAuthClient(id: string): Promise<OAuthClientRow | null> {
    return this.people.getOAuthClient(id);
  }

  createOAuthCode(code: OAuthCodeRow): Promise<void> {
    return this.people.createOAuthCode(code);
  }

  useOAuthCode(hash: string, at: number): Promise<{ code: OAuthCodeRow; firstUse: boolean } | null> {
    return this.people.useOAuthCode(hash, at);
  }

  findOAuthToken(hash: string): Promise<{ token: OAuthTokenRow; grant: OAuthGrantRow; account: AccountRow } | null> {
    return this.people.findOAuthToken(hash);
  }

  createOAuthGrant(grant: OAuthGrantRow, tokens: OAuthTokenRow[]): Promise<void> {
    return this.people.createOAuthGrant(grant, tokens);
  }

  rotateOAuthRefresh(hash: string, at: number, tokens: OAuthTokenRow[]): Promise<"rotated" | "reused" | "invalid"> {
    return this.people.rotateOAuthRefresh(hash, at, tokens);
  }

  listOAuthGrants(accountId: string): Promise<OAuthGrantRow[]> {
    return this.people.listOAuthGrants(accountId);
  }

  revokeOAuthGrant(grantId: string, at: number): Promise<number | null> {
    return this.people.revokeOAuthGrant(grantId, at);
  }

  touchOAuthGrant(grantId: string, at: number): Promise<void> {
    return this.people.touchOAuthGrant(grantId, at);
  }

  sweepPeople(before: number, limit: number): Promise<number> {
    return this.people.sweepPeople(before, limit);
  }

  usageByDay(accountId: string, since: number): Promise<DailyUsage[]> {
    return this.db.guard(async () =>
      (
        await this.db.rows(
          `SELECT (created_at / ${DAY_MS}) * ${DAY_MS} AS day, capability, COUNT(*) AS calls, COALESCE(SUM(credits), 0) AS credits
           FROM ledger WHERE account_id = $1 AND created_at >= $2 GROUP BY day, capability ORDER BY day, capability`,
          [accountId, since],
        )
      ).map((r) => ({ day: num(r.day), capability: String(r.capability), calls: num(r.calls), credits: num(r.credits) })),
    );
  }

  recentCalls(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return this.db.guard(async () =>
      (
        await this.db.rows("SELECT * FROM ledger WHERE account_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2", [
          accountId,
          Math.max(0, Math.floor(limit)),
        ])
      ).map(toLedger),
    );
  }
}
