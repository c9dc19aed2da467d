/**
 * The embedded store's ledger (LedgerStore; the billing commit is commit.ts): credit holds and the
 * ledger's reads (the total, usage by capability and by day, the recent calls). A process that
 * serves the file alone keeps its holds in memory (memory-holds.ts): reserving is a read and a map
 * update on the event loop. Otherwise (tools, tests) holds are rows the writer thread writes
 * (applyLedgerWrite), the account's and its key's in one transaction.
 */
import { DAY_MS, toLedger } from "../people-sql.ts";
import { num, type Raw, toAccount } from "../sql-common.ts";
import type { AccountRow, DailyUsage, KeyBudget, LedgerEntry, Reservation } from "../types.ts";
import type { SqliteAccess, Statements } from "./access.ts";
import { KEY_BUDGET_SQL, type SqliteAccounts, toKeyBudgetRow } from "./accounts.ts";
import type { LedgerWrite } from "./write-ops.ts";

const SQL = {
  keyBudget: KEY_BUDGET_SQL,
  ledgerTotal: "SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE account_id = ?",
  usage:
    "SELECT capability, operation, COUNT(*) AS calls, COALESCE(SUM(credits), 0) AS credits FROM ledger" +
    " WHERE account_id = ? AND created_at >= ? GROUP BY capability, operation ORDER BY capability, operation",
  usageByDay:
    `SELECT (created_at / ${DAY_MS}) * ${DAY_MS} AS day, capability, COUNT(*) AS calls, COALESCE(SUM(credits), 0) AS credits` +
    " FROM ledger WHERE account_id = ? AND created_at >= ? GROUP BY day, capability ORDER BY day, capability",
  // The ledger's row id follows insertion (migration 002): the newest rows are the last ones.
  recentCalls: "SELECT * FROM ledger WHERE account_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",

  getAccount: "SELECT * FROM accounts WHERE id = ?",
  reserve:
    "UPDATE accounts SET credits_reserved = credits_reserved + ?" +
    " WHERE id = ? AND credits_used + credits_reserved + ? <= credits_cap RETURNING *",
  holdKey: "UPDATE api_keys SET credits_used = ?, used_period_end = ?, credits_reserved = credits_reserved + ? WHERE id = ?",
  insertReservation: "INSERT INTO reservations (id, account_id, amount, created_at, key_id) VALUES (?, ?, ?, ?, ?)",
  deleteReservation: "DELETE FROM reservations WHERE id = ? RETURNING account_id, amount, key_id",
  unreserve: "UPDATE accounts SET credits_reserved = credits_reserved - ? WHERE id = ?",
  unreserveKey: "UPDATE api_keys SET credits_reserved = credits_reserved - ? WHERE id = ?",
  oldReservations: "SELECT id FROM reservations WHERE created_at < ?",
} as const;

export class SqliteLedger {
  constructor(
    private readonly db: SqliteAccess,
    /** The account reads a hold is checked against (with this process's holds counted in). */
    private readonly accounts: SqliteAccounts,
  ) {}

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    const holds = this.db.holds;
    if (!holds) return this.db.write({ t: "reserve", reservation });
    // Read and hold in one synchronous step: nothing else on this thread runs in between.
    return this.db.guard(() => {
      const account = this.accounts.readAccount(reservation.accountId);
      if (!account) return { ok: false, account: null };
      if (account.creditsUsed + account.creditsReserved + reservation.amount > account.creditsCap) {
        return { ok: false, account };
      }
      let held = reservation;
      const { keyId } = reservation;
      if (keyId !== undefined) {
        // A key with a limit: its use in this period, its stored holds and this process's, read in
        // the same step. A key gone from the store (never: keys are revoked, not deleted) holds nothing.
        const found = this.db.row(SQL.keyBudget, keyId);
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
    if (!this.db.holds) return this.db.write({ t: "release", reservation });
    this.db.holds.remove(reservation.id);
    return this.accounts.getAccount(reservation.accountId);
  }

  async releaseReservationsOlderThan(ageMs: number): Promise<number> {
    // One process stamps and ages them all: its own clock (reservations carry Date.now()-based times).
    const before = Date.now() - ageMs;
    // Stored holds (left by a crash of a non-exclusive user or an older version), then memory ones.
    const stored = await this.db.write<number>({ t: "releaseBefore", before });
    return stored + (this.db.holds?.removeBefore(before) ?? 0);
  }

  ledgerTotal(accountId: string): Promise<number> {
    return this.db.guard(() => num(this.db.row(SQL.ledgerTotal, accountId)?.total));
  }

  usage(
    accountId: string,
    since: number,
  ): Promise<{ capability: string; operation: string; calls: number; credits: number }[]> {
    return this.db.guard(() =>
      this.db.rows(SQL.usage, accountId, since).map((r) => ({
        capability: String(r.capability),
        operation: String(r.operation),
        calls: num(r.calls),
        credits: num(r.credits),
      })),
    );
  }

  usageByDay(accountId: string, since: number): Promise<DailyUsage[]> {
    return this.db.guard(() =>
      this.db.rows(SQL.usageByDay, accountId, since).map((r) => ({
        day: num(r.day),
        capability: String(r.capability),
        calls: num(r.calls),
        credits: num(r.credits),
      })),
    );
  }

  recentCalls(accountId: string, limit: number): Promise<LedgerEntry[]> {
    return this.db.guard(() => this.db.rows(SQL.recentCalls, accountId, Math.max(0, Math.floor(limit))).map(toLedger));
  }
}

/** A stored hold's write, on the writer's connection inside its batch's transaction. */
export function applyLedgerWrite(st: Statements, op: LedgerWrite): unknown {
  switch (op.t) {
    case "reserve":
      return reserve(st, op.reservation);
    case "release":
      unreserve(st, op.reservation.id);
      return account(st, op.reservation.accountId);
    case "releaseBefore": {
      let released = 0;
      for (const row of st.get(SQL.oldReservations).all(op.before) as Raw[]) {
        if (unreserve(st, String(row.id))) released++;
      }
      return released;
    }
  }
}

function account(st: Statements, id: string): AccountRow | null {
  const row = st.row(SQL.getAccount, id);
  return row ? toAccount(row) : null;
}

function reserve(st: Statements, r: Reservation): { ok: boolean; account: AccountRow | null; key?: KeyBudget } {
  const held = st.row(SQL.reserve, r.amount, r.accountId, r.amount);
  if (!held) return { ok: false, account: account(st, r.accountId) };
  let keyId: string | null = null;
  if (r.keyId !== undefined) {
    // The account's hold and the key's are one transaction (the single writer's): both or neither.
    const found = st.row(SQL.keyBudget, r.keyId);
    if (found) {
      const key = toKeyBudgetRow(found);
      if (key.limit !== null && key.used + key.reserved + r.amount > key.limit) {
        st.get(SQL.unreserve).run(r.amount, r.accountId);
        const account = toAccount(held);
        return {
          ok: false,
          account: { ...account, creditsReserved: account.creditsReserved - r.amount },
          key: { limit: key.limit, used: key.used, reserved: key.reserved },
        };
      }
      // The use is written as of this period (0 when it was counted in an earlier one).
      st.get(SQL.holdKey).run(key.used, key.period, r.amount, r.keyId);
      keyId = r.keyId;
    }
  }
  st.get(SQL.insertReservation).run(r.id, r.accountId, r.amount, r.createdAt, keyId);
  return { ok: true, account: toAccount(held) };
}

/** Delete the reservation row and give back its stored amount, its key's too; false when it was already gone. */
export function unreserve(st: Statements, reservationId: string): boolean {
  const gone = st.row(SQL.deleteReservation, reservationId);
  if (!gone) return false;
  const amount = Number(gone.amount);
  st.get(SQL.unreserve).run(amount, String(gone.account_id));
  if (gone.key_id !== null && gone.key_id !== undefined) st.get(SQL.unreserveKey).run(amount, String(gone.key_id));
  return true;
}
