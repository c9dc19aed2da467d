/**
 * The PostgreSQL store's billing commit (LedgerStore.commit): one call's writes in one transaction,
 * the charge (what fits under the account's cap and its key's limit, computed on their locked rows),
 * its ledger row, its hold given back, and the search's writes (a new session with its records, a
 * follow-up's compare-and-set, a cached action, a touch). A COMMIT whose reply is lost is asked
 * about (lost-calls.ts): the call gets its normal answer, or a 503 and an undo should it have
 * committed after all.
 */
import type pg from "pg";
import { ApiError, sessionExpired } from "../../errors.ts";
import type { InDoubtCall } from "../in-doubt.ts";
import type { KeyCache } from "../key-cache.ts";
import { LEDGER_COLUMNS, ledgerValues, num, numOrNull, type Raw, toAccount } from "../sql-common.ts";
import { type AccountRow, type Committed, type CommitOp, type LedgerEntry, type RecordRow, SessionChanged } from "../types.ts";
import { jsonb, KEY_USED, type PgAccess } from "./access.ts";
import type { PostgresLostCalls } from "./lost-calls.ts";

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

/** Delete one reservation and give its stored amount back, in one statement (no-op when gone). */
const RELEASE = `WITH gone AS (DELETE FROM reservations WHERE id = $1 RETURNING account_id, amount)
  UPDATE accounts a SET credits_reserved = a.credits_reserved - g.amount
  FROM gone g WHERE a.id = g.account_id RETURNING a.*`;

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

export class PostgresCommit {
  constructor(
    private readonly db: PgAccess,
    /** Calls in doubt: a call whose COMMIT reply was lost and whose outcome stays unknown goes there. */
    private readonly lostCalls: PostgresLostCalls,
    private readonly keyCache: KeyCache,
    /** What a call in doubt carries of its database: the schema, and its identity once migrate() read it. */
    private readonly schema: string | null,
    private readonly storeId: () => string | null,
  ) {}

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
        await this.lostCalls.watch(inDoubt(saved, written.xid, written.row.periodEnd, this.schema, this.storeId()));
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


  /**
   * Undo a committed call as a call in doubt is undone once its transaction is known to be over
   * (PostgresLostCalls.settle): for the store contract's test of what the undo gives back. False when its
   * ledger row is gone.
   */
  undoForTests(op: CommitOp, periodEnd: number | null): Promise<boolean> {
    return this.lostCalls.undo(inDoubt(op, "0", periodEnd, this.schema, this.storeId()));
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

}
