/**
 * Every write of the embedded store, as data in and data out, so it can run on whichever thread
 * owns the write connection: a worker thread for a database file (write-worker.ts), the
 * main thread for an in-memory or read-only database.
 *
 * Writes arrive in batches (all the writes issued while the previous batch was being written).
 * A batch is one IMMEDIATE transaction: one WAL append for all of them, the pages they share
 * (the account row, the tails of the append-only tables) written once. Ops do not get a savepoint
 * each (a savepoint costs a statement journal per op); instead the one failure the request path
 * expects, a session swept while its call ran, is detected before that op writes anything, and any
 * other error rolls the whole batch back and replays its ops one transaction each, so only the op
 * that failed fails.
 */
import type Database from "better-sqlite3";
import { ApiError, sessionExpired } from "../../errors.ts";
import { decodeJsonText, jsonText, LEDGER_COLUMNS, ledgerValues, num, numOrNull, type Raw, toAccount, toKey } from "../sql-common.ts";
import {
  type AccountPatch,
  type AccountRow,
  type Committed,
  type KeyBudget,
  type KeyRow,
  MAX_SESSION_RECORDS,
  type RecordRow,
  type Reservation,
  SessionChanged,
} from "../types.ts";
import { Statements } from "./access.ts";
import { applyPeopleWrite } from "./people.ts";
import { toWireError, type WriteOp, type WriteOutcome, type WriterCommit } from "./write-ops.ts";

function sessionGone(): ApiError {
  // The sweeper removed the search while the call ran; nothing of the op is written, nothing charged.
  return sessionExpired("The search expired while this call was running.");
}

/**
 * A key's limit and its use in its account's current period (`used`: 0 when counted in an earlier
 * one), what its stored holds reserve, and the account's period. Also read by the serving process,
 * which checks a key's limit on the event loop (store.ts, reserve).
 */
export const KEY_BUDGET_SQL =
  "SELECT k.credit_limit AS lim, CASE WHEN k.used_period_end IS a.period_end THEN k.credits_used ELSE 0 END AS used," +
  " k.credits_reserved AS reserved, a.period_end AS period FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = ?";

/** A row of KEY_BUDGET_SQL. */
export interface KeyBudgetRow {
  limit: number | null;
  used: number;
  reserved: number;
  period: number | null;
}

export function toKeyBudgetRow(row: Raw): KeyBudgetRow {
  return { limit: numOrNull(row.lim), used: num(row.used), reserved: num(row.reserved), period: numOrNull(row.period) };
}

const SQL = {
  insertAccount:
    "INSERT INTO accounts (id, name, plan_id, status, cadence, credits_used, credits_reserved, credits_cap," +
    " period_end, period_anchor, sharpen_stage, created_at) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?) RETURNING *",
  getAccount: "SELECT * FROM accounts WHERE id = ?",
  // One statement for every patch shape: a flag per column says whether the patch sets it.
  updateAccount: `UPDATE accounts SET
      name = CASE WHEN @set_name THEN @name ELSE name END,
      plan_id = CASE WHEN @set_plan_id THEN @plan_id ELSE plan_id END,
      status = CASE WHEN @set_status THEN @status ELSE status END,
      cadence = CASE WHEN @set_cadence THEN @cadence ELSE cadence END,
      -- Right-hand sides read the row as it was: saving the grant sees credits_used before it is reset.
      grant_used = CASE WHEN @save_grant THEN credits_used ELSE grant_used END,
      credits_used = CASE WHEN @restore_grant THEN grant_used WHEN @set_credits_used THEN @credits_used ELSE credits_used END,
      credits_cap = CASE WHEN @set_credits_cap THEN @credits_cap ELSE credits_cap END,
      period_end = CASE WHEN @set_period_end THEN @period_end ELSE period_end END,
      period_anchor = CASE WHEN @set_period_anchor THEN @period_anchor ELSE period_anchor END,
      sharpen_stage = CASE WHEN @set_sharpen_stage THEN @sharpen_stage ELSE sharpen_stage END
    WHERE id = @id RETURNING *`,
  rollPeriod: "UPDATE accounts SET credits_used = 0, period_end = ? WHERE id = ? AND period_end = ?",
  insertKey:
    "INSERT INTO api_keys (id, account_id, key_hash, hint, name, created_at, revoked_at, last_used_at, credit_limit)" +
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
  getKey: "SELECT * FROM api_keys WHERE id = ?",
  // A key's budget in its account's current period: the use of an earlier period counts 0.
  keyBudget: KEY_BUDGET_SQL,
  holdKey: "UPDATE api_keys SET credits_used = ?, used_period_end = ?, credits_reserved = credits_reserved + ? WHERE id = ?",
  unreserveKey: "UPDATE api_keys SET credits_reserved = credits_reserved - ? WHERE id = ?",
  chargeKey: "UPDATE api_keys SET credits_used = ?, used_period_end = ? WHERE id = ?",
  keyLedgerSince:
    "SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE account_id = ? AND created_at >= ? AND key_id = ?",
  setKeyLimit: "UPDATE api_keys SET credit_limit = ?, credits_used = ?, used_period_end = ? WHERE id = ?",
  removeKeyLimit: "UPDATE api_keys SET credit_limit = NULL WHERE id = ?",
  // The first revocation time is kept: revoking again does not rewrite history.
  revokeKey: "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING revoked_at",
  reserve:
    "UPDATE accounts SET credits_reserved = credits_reserved + ?" +
    " WHERE id = ? AND credits_used + credits_reserved + ? <= credits_cap RETURNING *",
  insertReservation: "INSERT INTO reservations (id, account_id, amount, created_at, key_id) VALUES (?, ?, ?, ?, ?)",
  deleteReservation: "DELETE FROM reservations WHERE id = ? RETURNING account_id, amount, key_id",
  unreserve: "UPDATE accounts SET credits_reserved = credits_reserved - ? WHERE id = ?",
  oldReservations: "SELECT id FROM reservations WHERE created_at < ?",
  charge: "UPDATE accounts SET credits_used = credits_used + ? WHERE id = ? RETURNING *",
  // What of a charge fits under the cap (0 when nothing does: a plan change lowered the room).
  room: "SELECT MAX(0, MIN(?, credits_cap - credits_used)) AS fits FROM accounts WHERE id = ?",
  insertLedger: `INSERT INTO ledger (${LEDGER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  insertSession:
    "INSERT INTO sessions (id, account_id, capability, query, state, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  // A compare-and-set on what the call read (the text as stored: the reader parsed it, the caller
  // stringifies it back the same way).
  updateSession:
    "UPDATE sessions SET query = COALESCE(?, query), state = ?, expires_at = ? WHERE id = ? AND query = ? AND state = ? RETURNING seq",
  sessionExists: "SELECT 1 AS found FROM sessions WHERE id = ?",
  insertRecord:
    "INSERT INTO records (slot, id, search_id, account_id, position, summary, ref, detail, links, actions, source_at, source)" +
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  recordActions: "SELECT actions FROM records WHERE id = ?",
  setRecordActions: "UPDATE records SET actions = ? WHERE id = ?",
  touchSession: "UPDATE sessions SET expires_at = ? WHERE id = ?",
  // Bounded batch: at most `limit` sessions, each with its records (a row-id range, see slotOf).
  expiredSessions: "SELECT seq FROM sessions WHERE expires_at < ? ORDER BY expires_at LIMIT ?",
  deleteRecordsOf: "DELETE FROM records WHERE slot >= ? AND slot < ?",
  deleteSession: "DELETE FROM sessions WHERE seq = ?",
} as const;

/**
 * Records are stored under slot = session seq * MAX_SESSION_RECORDS + position (migration 003): a
 * session's records are one row-id range. Positions stay below MAX_SESSION_RECORDS: the search
 * service refuses pages past it, the table's CHECK backs it.
 */
export function slotOf(sessionSeq: number, position: number): number {
  return sessionSeq * MAX_SESSION_RECORDS + position;
}

export class SqliteWriter {
  private readonly statements: Statements;

  constructor(private readonly db: Database.Database) {
    this.statements = new Statements(db);
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  private row(sql: string, ...params: unknown[]): Raw | undefined {
    return this.statements.row(sql, ...params);
  }

  private account(id: string): AccountRow | null {
    const row = this.row(SQL.getAccount, id);
    return row ? toAccount(row) : null;
  }

  /**
   * Run a batch in one IMMEDIATE transaction. Throws only when the transaction could not start
   * (SQLITE_BUSY: another connection holds the write lock; read-only file; ...), in which case
   * nothing was written and the caller decides whether to wait and retry.
   */
  applyBatch(ops: readonly WriteOp[]): WriteOutcome[] {
    this.db.exec("BEGIN IMMEDIATE");
    const outcomes: WriteOutcome[] = [];
    try {
      for (const op of ops) {
        try {
          outcomes.push({ ok: true, value: this.apply(op) });
        } catch (error) {
          // An ApiError is thrown before its op wrote anything (see commit()); the batch goes on.
          if (!(error instanceof ApiError)) throw error;
          outcomes.push({ ok: false, error: toWireError(error) });
        }
      }
      this.db.exec("COMMIT");
      return outcomes;
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      // A batch of one fails as itself; otherwise replay one op per transaction so only the
      // op that fails fails.
      if (ops.length === 1) return [{ ok: false, error: toWireError(error) }];
      return ops.map((op) => this.applyAlone(op));
    }
  }

  private applyAlone(op: WriteOp): WriteOutcome {
    try {
      this.db.exec("BEGIN IMMEDIATE");
      const value = this.apply(op);
      this.db.exec("COMMIT");
      return { ok: true, value };
    } catch (error) {
      if (this.db.inTransaction) this.db.exec("ROLLBACK");
      return { ok: false, error: toWireError(error) };
    }
  }

  private apply(op: WriteOp): unknown {
    switch (op.t) {
      case "createAccount": {
        const a = op.account;
        return toAccount(
          this.row(
            SQL.insertAccount,
            a.id,
            a.name,
            a.planId,
            a.status,
            a.cadence,
            a.creditsCap,
            a.periodEnd,
            a.periodAnchor,
            a.sharpenStage,
            a.createdAt,
          )!,
        );
      }
      case "updateAccount":
        return this.updateAccount(op.id, op.patch);
      case "rollPeriod":
        this.stmt(SQL.rollPeriod).run(op.next, op.accountId, op.expected);
        return null;
      case "createKey": {
        const k = op.key;
        this.stmt(SQL.insertKey).run(
          k.id,
          k.accountId,
          k.hash,
          k.hint,
          k.name,
          k.createdAt,
          k.revokedAt,
          k.lastUsedAt ?? null,
          k.creditLimit ?? null,
        );
        return null;
      }
      case "setKeyLimit":
        return this.setKeyLimit(op.keyId, op.limit, op.periodStart);
      case "revokeKey": {
        const row = this.row(SQL.revokeKey, op.at, op.keyId);
        return row ? num(row.revoked_at) : null;
      }
      case "reserve":
        return this.reserve(op.reservation);
      case "release":
        this.unreserve(op.reservation.id);
        return this.account(op.reservation.accountId);
      case "releaseBefore": {
        let released = 0;
        for (const row of this.stmt(SQL.oldReservations).all(op.before) as Raw[]) {
          if (this.unreserve(String(row.id))) released++;
        }
        return released;
      }
      case "commit":
        return this.commit(op.commit);
      case "sweep":
        return this.sweep(op.before, op.limit);
      case "people":
        return applyPeopleWrite(this.statements, op.op);
    }
  }

  private updateAccount(id: string, patch: AccountPatch): AccountRow | null {
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
      save_grant: patch.grant === "save" ? 1 : 0,
      restore_grant: patch.grant === "restore" ? 1 : 0,
      set_credits_used: has(patch.creditsUsed),
      credits_used: patch.creditsUsed ?? null,
      set_credits_cap: has(patch.creditsCap),
      credits_cap: patch.creditsCap ?? null,
      set_period_end: has(patch.periodEnd),
      period_end: patch.periodEnd ?? null,
      set_period_anchor: has(patch.periodAnchor),
      period_anchor: patch.periodAnchor ?? null,
      set_sharpen_stage: has(patch.sharpenStage),
      sharpen_stage: patch.sharpenStage ?? null,
    });
    return row ? toAccount(row) : null;
  }

  private reserve(r: Reservation): { ok: boolean; account: AccountRow | null; key?: KeyBudget } {
    const held = this.row(SQL.reserve, r.amount, r.accountId, r.amount);
    if (!held) return { ok: false, account: this.account(r.accountId) };
    let keyId: string | null = null;
    if (r.keyId !== undefined) {
      // The account's hold and the key's are one transaction (the single writer's): both or neither.
      const found = this.row(SQL.keyBudget, r.keyId);
      if (found) {
        const key = toKeyBudgetRow(found);
        if (key.limit !== null && key.used + key.reserved + r.amount > key.limit) {
          this.stmt(SQL.unreserve).run(r.amount, r.accountId);
          const account = toAccount(held);
          return {
            ok: false,
            account: { ...account, creditsReserved: account.creditsReserved - r.amount },
            key: { limit: key.limit, used: key.used, reserved: key.reserved },
          };
        }
        // The use is written as of this period (0 when it was counted in an earlier one).
        this.stmt(SQL.holdKey).run(key.used, key.period, r.amount, r.keyId);
        keyId = r.keyId;
      }
    }
    this.stmt(SQL.insertReservation).run(r.id, r.accountId, r.amount, r.createdAt, keyId);
    return { ok: true, account: toAccount(held) };
  }

  /** Delete the reservation row and give back its stored amount, its key's too; false when it was already gone. */
  private unreserve(reservationId: string): boolean {
    const gone = this.row(SQL.deleteReservation, reservationId);
    if (!gone) return false;
    const amount = Number(gone.amount);
    this.stmt(SQL.unreserve).run(amount, String(gone.account_id));
    if (gone.key_id !== null && gone.key_id !== undefined) this.stmt(SQL.unreserveKey).run(amount, String(gone.key_id));
    return true;
  }

  /**
   * Set or remove a key's limit (Store.setKeyLimit). A key that had none gets its use counted from
   * the ledger since `periodStart`; one that had one keeps counting, as of the current period.
   */
  private setKeyLimit(keyId: string, limit: number | null, periodStart: number): KeyRow | null {
    const found = this.row(SQL.getKey, keyId);
    if (!found) return null;
    const before = toKey(found);
    if (limit === null) this.stmt(SQL.removeKeyLimit).run(keyId);
    else {
      const budget = toKeyBudgetRow(this.row(SQL.keyBudget, keyId)!);
      const used =
        before.creditLimit === null
          ? num(this.row(SQL.keyLedgerSince, before.accountId, periodStart, keyId)?.total)
          : budget.used;
      this.stmt(SQL.setKeyLimit).run(limit, used, budget.period, keyId);
    }
    return toKey(this.row(SQL.getKey, keyId)!);
  }

  /** Charge a key what of `credits` fits under its limit (all of it without one); returns that. */
  private chargeKey(keyId: string, credits: number): number {
    const found = this.row(SQL.keyBudget, keyId);
    if (!found) return credits;
    const key = toKeyBudgetRow(found);
    const fits = key.limit === null ? credits : Math.max(0, Math.min(credits, key.limit - key.used));
    if (fits > 0) this.stmt(SQL.chargeKey).run(key.used + fits, key.period, keyId);
    return fits;
  }

  private sweep(before: number, limit: number): number {
    if (limit <= 0) return 0;
    const expired = this.stmt(SQL.expiredSessions).all(before, Math.floor(limit)) as Raw[];
    const deleteRecords = this.stmt(SQL.deleteRecordsOf);
    const deleteSession = this.stmt(SQL.deleteSession);
    for (const row of expired) {
      const seq = Number(row.seq);
      deleteRecords.run(slotOf(seq, 0), slotOf(seq + 1, 0));
      deleteSession.run(seq);
    }
    return expired.length;
  }

  private insertRecords(sessionSeq: number, records: readonly RecordRow[]): void {
    const insert = this.stmt(SQL.insertRecord);
    for (const r of records) {
      insert.run(
        slotOf(sessionSeq, r.position),
        r.id,
        r.searchId,
        r.accountId,
        r.position,
        JSON.stringify(r.summary),
        jsonText(r.ref),
        jsonText(r.detail),
        jsonText(r.links),
        JSON.stringify(r.actions ?? {}),
        r.sourceAt ?? null,
        r.source ?? null,
      );
    }
  }

  /**
   * Settle one call. The steps that can fail for an expected reason (the session or record is gone)
   * come first and write nothing when they fail; the charge, ledger row and hold release follow.
   */
  private commit(c: WriterCommit): Committed {
    if (c.sessionUpdate) {
      const u = c.sessionUpdate;
      const updated = this.row(
        SQL.updateSession,
        jsonText(u.query),
        JSON.stringify(u.state),
        u.expiresAt,
        u.id,
        JSON.stringify(u.previous.query),
        JSON.stringify(u.previous.state),
      );
      if (!updated) throw this.row(SQL.sessionExists, u.id) ? new SessionChanged() : sessionGone();
      this.insertRecords(Number(updated.seq), u.records);
    }
    if (c.recordAction) {
      const { recordId, action, result } = c.recordAction;
      // Read-modify-write is safe: the IMMEDIATE transaction holds the write lock throughout.
      const row = this.row(SQL.recordActions, recordId);
      if (!row) throw sessionGone();
      const actions = (decodeJsonText(row.actions) ?? {}) as Record<string, unknown>;
      // Cached by another call meanwhile: this one is served from the cache instead, at no charge.
      if (Object.hasOwn(actions, action)) throw new SessionChanged();
      actions[action] = result;
      this.stmt(SQL.setRecordActions).run(JSON.stringify(actions), recordId);
    }
    if (c.newSession) {
      const s = c.newSession.session;
      const inserted = this.stmt(SQL.insertSession).run(
        s.id,
        s.accountId,
        s.capability,
        JSON.stringify(s.query),
        JSON.stringify(s.state),
        s.expiresAt,
        s.createdAt,
      );
      this.insertRecords(Number(inserted.lastInsertRowid), c.newSession.records);
    }
    // A reservation already released (crash sweeper) is not subtracted twice; the call is still charged.
    if (c.reservationId !== null) this.unreserve(c.reservationId);
    if (c.touch) this.stmt(SQL.touchSession).run(c.touch.expiresAt, c.touch.sessionId);
    let { ledger } = c;
    // The reservation fitted under the cap; a plan change since may have taken the room away.
    let fits = ledger.credits === 0 ? 0 : num(this.row(SQL.room, ledger.credits, ledger.accountId)?.fits);
    // A key with a limit is charged the same, and no more than fits under its limit (lowered since?).
    if (c.keyId !== undefined && fits > 0) fits = this.chargeKey(c.keyId, fits);
    if (fits !== ledger.credits) ledger = { ...ledger, credits: fits };
    // A free call changes no balance: read the account instead of writing its page again.
    const after =
      fits === 0 ? this.row(SQL.getAccount, ledger.accountId) : this.row(SQL.charge, fits, ledger.accountId);
    if (!after) throw new Error(`commit: no account ${ledger.accountId}.`);
    this.stmt(SQL.insertLedger).run(...ledgerValues(ledger));
    return { account: toAccount(after), charged: fits };
  }
}
