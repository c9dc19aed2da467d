/**
 * The embedded store's billing commit (LedgerStore.commit): one call's charge (what fits under the
 * account's cap and its key's limit), its ledger row, its hold given back and the search's writes (a
 * new session with its records, a follow-up's compare-and-set, a cached action, a touch), in one
 * transaction, grouped with the other writes of the same turn (writer.ts). On the event loop the op
 * is shaped for the writer (writerCommit) and a hold kept in memory goes once the charge committed;
 * on the writer's connection applyCommit writes it.
 */
import { type ApiError, sessionExpired } from "../../errors.ts";
import type { KeyCache } from "../key-cache.ts";
import { decodeJsonText, jsonText, LEDGER_COLUMNS, ledgerValues, num, toAccount } from "../sql-common.ts";
import { type Committed, type CommitOp, type RecordRow, SessionChanged } from "../types.ts";
import type { SqliteAccess, Statements } from "./access.ts";
import { KEY_BUDGET_SQL, toKeyBudgetRow } from "./accounts.ts";
import { unreserve } from "./ledger.ts";
import { withHolds } from "./memory-holds.ts";
import { slotOf } from "./sessions.ts";
import type { WriterCommit } from "./write-ops.ts";

const SQL = {
  getAccount: "SELECT * FROM accounts WHERE id = ?",
  keyBudget: KEY_BUDGET_SQL,
  chargeKey: "UPDATE api_keys SET credits_used = ?, used_period_end = ? WHERE id = ?",
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
} as const;

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

export class SqliteCommit {
  constructor(
    private readonly db: SqliteAccess,
    private readonly keyCache: KeyCache,
  ) {}

  /**
   * Settle a call: the charge, its ledger row and its session writes in one transaction, grouped
   * with the other writes of the same turn (see writer.ts).
   */
  async commit(op: CommitOp): Promise<Committed> {
    const holds = this.db.holds;
    if (!holds) return this.keyCache.noteCommit(await this.db.write<Committed>({ t: "commit", commit: writerCommit(op, false) }));
    // The hold is in memory: the transaction charges; the hold goes once the charge is committed.
    const committed = await this.db.write<Committed>({ t: "commit", commit: writerCommit(op, true) });
    if (op.reservation) holds.remove(op.reservation.id);
    return this.keyCache.noteCommit({ account: withHolds(holds, committed.account), charged: committed.charged });
  }
}

function sessionGone(): ApiError {
  // The sweeper removed the search while the call ran; nothing of the op is written, nothing charged.
  return sessionExpired("The search expired while this call was running.");
}

/**
 * Settle one call, on the writer's connection inside its batch's transaction. The steps that can
 * fail for an expected reason (the session or record is gone) come first and write nothing when
 * they fail; the charge, ledger row and hold release follow.
 */
export function applyCommit(st: Statements, c: WriterCommit): Committed {
  if (c.sessionUpdate) {
    const u = c.sessionUpdate;
    const updated = st.row(
      SQL.updateSession,
      jsonText(u.query),
      JSON.stringify(u.state),
      u.expiresAt,
      u.id,
      JSON.stringify(u.previous.query),
      JSON.stringify(u.previous.state),
    );
    if (!updated) throw st.row(SQL.sessionExists, u.id) ? new SessionChanged() : sessionGone();
    insertRecords(st, Number(updated.seq), u.records);
  }
  if (c.recordAction) {
    const { recordId, action, result } = c.recordAction;
    // Read-modify-write is safe: the IMMEDIATE transaction holds the write lock throughout.
    const row = st.row(SQL.recordActions, recordId);
    if (!row) throw sessionGone();
    const actions = (decodeJsonText(row.actions) ?? {}) as Record<string, unknown>;
    // Cached by another call meanwhile: this one is served from the cache instead, at no charge.
    if (Object.hasOwn(actions, action)) throw new SessionChanged();
    actions[action] = result;
    st.get(SQL.setRecordActions).run(JSON.stringify(actions), recordId);
  }
  if (c.newSession) {
    const s = c.newSession.session;
    const inserted = st.get(SQL.insertSession).run(
      s.id,
      s.accountId,
      s.capability,
      JSON.stringify(s.query),
      JSON.stringify(s.state),
      s.expiresAt,
      s.createdAt,
    );
    insertRecords(st, Number(inserted.lastInsertRowid), c.newSession.records);
  }
  // A reservation already released (crash sweeper) is not subtracted twice; the call is still charged.
  if (c.reservationId !== null) unreserve(st, c.reservationId);
  if (c.touch) st.get(SQL.touchSession).run(c.touch.expiresAt, c.touch.sessionId);
  let { ledger } = c;
  // The reservation fitted under the cap; a plan change since may have taken the room away.
  let fits = ledger.credits === 0 ? 0 : num(st.row(SQL.room, ledger.credits, ledger.accountId)?.fits);
  // A key with a limit is charged the same, and no more than fits under its limit (lowered since?).
  if (c.keyId !== undefined && fits > 0) fits = chargeKey(st, c.keyId, fits);
  if (fits !== ledger.credits) ledger = { ...ledger, credits: fits };
  // A free call changes no balance: read the account instead of writing its page again.
  const after = fits === 0 ? st.row(SQL.getAccount, ledger.accountId) : st.row(SQL.charge, fits, ledger.accountId);
  if (!after) throw new Error(`commit: no account ${ledger.accountId}.`);
  st.get(SQL.insertLedger).run(...ledgerValues(ledger));
  return { account: toAccount(after), charged: fits };
}

/** Charge a key what of `credits` fits under its limit (all of it without one); returns that. */
function chargeKey(st: Statements, keyId: string, credits: number): number {
  const found = st.row(SQL.keyBudget, keyId);
  if (!found) return credits;
  const key = toKeyBudgetRow(found);
  const fits = key.limit === null ? credits : Math.max(0, Math.min(credits, key.limit - key.used));
  if (fits > 0) st.get(SQL.chargeKey).run(key.used + fits, key.period, keyId);
  return fits;
}

function insertRecords(st: Statements, sessionSeq: number, records: readonly RecordRow[]): void {
  const insert = st.get(SQL.insertRecord);
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
