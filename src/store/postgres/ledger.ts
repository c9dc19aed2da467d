/**
 * The PostgreSQL store's ledger (LedgerStore; the billing commit is commit.ts): credit holds (reserve,
 * release, the sweep of holds a crash left behind), each a conditional statement or a short
 * transaction that locks the account's row and then its key's, in that order everywhere, so that
 * concurrent instances can neither overspend a cap nor deadlock; and the ledger's reads (the total,
 * usage by capability and by day, the recent calls).
 */
import { DAY_MS, toLedger } from "../people-sql.ts";
import { num, toAccount } from "../sql-common.ts";
import type { AccountRow, DailyUsage, KeyBudget, LedgerEntry, Reservation } from "../types.ts";
import { KEY_USED, type PgAccess, type Queryable } from "./access.ts";
import type { PostgresAccounts } from "./accounts.ts";

/** The database's clock in epoch milliseconds (the clock reservations are stamped and aged by). */
const DB_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

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

/** A reserve refused by the key's limit (the transaction rolls the account's hold back). */
class KeyRefused extends Error {
  constructor(
    readonly account: AccountRow,
    readonly key: KeyBudget,
  ) {
    super("refused by the key's limit");
  }
}

export class PostgresLedger {
  constructor(
    private readonly db: PgAccess,
    /** The account reads a refused hold answers with. */
    private readonly accounts: PostgresAccounts,
  ) {}

  reserve(reservation: Reservation): Promise<{ ok: boolean; account: AccountRow | null; key?: KeyBudget }> {
    if (reservation.keyId !== undefined) return this.reserveWithKey(reservation, reservation.keyId);
    return this.db.transaction(async (client) => {
      const held = await this.holdAccount(reservation, client);
      if (!held) return { ok: false, account: await this.accounts.account(reservation.accountId, client) };
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
   * The account's part of a hold: its row when the amount fits under the cap (now held), else
   * undefined. The row lock this UPDATE takes makes concurrent reserves re-check the cap in turn.
   */
  private holdAccount(reservation: Reservation, client: Queryable) {
    return this.db.row(
      `UPDATE accounts SET credits_reserved = credits_reserved + $2
       WHERE id = $1 AND credits_used + credits_reserved + $2 <= credits_cap RETURNING *`,
      [reservation.accountId, reservation.amount],
      client,
    );
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
        const held = await this.holdAccount(reservation, client);
        if (!held) return { ok: false, account: await this.accounts.account(reservation.accountId, client) };
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
      return row ? toAccount(row) : this.accounts.account(reservation.accountId, this.db.pool);
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
