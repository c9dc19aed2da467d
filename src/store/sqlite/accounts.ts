/**
 * The embedded store's accounts and API keys (AccountStore): accounts and their periods, keys, a
 * key's own credit limit. The reads run on the event loop's connection (SqliteAccounts), with this
 * process's in-memory holds counted in; the writes are ops the writer thread applies in its batches
 * (applyAccountWrite). Key lookups go through the store's key cache; a write that changes what a
 * lookup returns forgets it. Credit holds and charges are the ledger's (ledger.ts, commit.ts).
 */
import type { KeyCache, KeyLookup } from "../key-cache.ts";
import { KEY_JOIN_COLUMNS, num, numOrNull, type Raw, toAccount, toKey } from "../sql-common.ts";
import type { AccountPatch, AccountRow, KeyRow, NewAccount, NewKey } from "../types.ts";
import type { SqliteAccess, Statements } from "./access.ts";
import { withHolds, withKeyHolds } from "./memory-holds.ts";
import type { AccountWrite } from "./write-ops.ts";

/**
 * A key's limit and its use in its account's current period (`used`: 0 when counted in an earlier
 * one), what its stored holds reserve, and the account's period. Also read by the serving process,
 * which checks a key's limit on the event loop (ledger.ts, reserve).
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
  getAccount: "SELECT * FROM accounts WHERE id = ?",
  listAccounts: "SELECT * FROM accounts ORDER BY created_at, id",
  countAccounts: "SELECT COUNT(*) AS n FROM accounts",
  findKeyByHash: `SELECT ${KEY_JOIN_COLUMNS}, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = ?`,
  listKeys: "SELECT * FROM api_keys WHERE account_id = ? ORDER BY created_at, id",
  getKey: "SELECT * FROM api_keys WHERE id = ?",

  insertAccount:
    "INSERT INTO accounts (id, name, plan_id, status, cadence, credits_used, credits_reserved, credits_cap," +
    " period_end, period_anchor, sharpen_stage, created_at) VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, ?, ?, ?) RETURNING *",
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
  // A key's budget in its account's current period: the use of an earlier period counts 0.
  keyBudget: KEY_BUDGET_SQL,
  keyLedgerSince:
    "SELECT COALESCE(SUM(credits), 0) AS total FROM ledger WHERE account_id = ? AND created_at >= ? AND key_id = ?",
  setKeyLimit: "UPDATE api_keys SET credit_limit = ?, credits_used = ?, used_period_end = ? WHERE id = ?",
  removeKeyLimit: "UPDATE api_keys SET credit_limit = NULL WHERE id = ?",
  // The first revocation time is kept: revoking again does not rewrite history.
  revokeKey: "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ? RETURNING revoked_at",
} as const;

export class SqliteAccounts {
  constructor(
    private readonly db: SqliteAccess,
    private readonly keyCache: KeyCache,
  ) {}

  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.db.write({ t: "createAccount", account });
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.db.guard(() => this.readAccount(id));
  }

  /** The account as the event loop's connection has it, with this process's holds (run under guard). */
  readAccount(id: string): AccountRow | null {
    const row = this.db.row(SQL.getAccount, id);
    return row ? withHolds(this.db.holds, toAccount(row)) : null;
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.db.guard(() => this.db.rows(SQL.listAccounts).map(toAccount));
  }

  countAccounts(): Promise<number> {
    return this.db.guard(() => num(this.db.row(SQL.countAccounts)?.n));
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.keyCache.changing({ accountId: id }, () => this.db.write({ t: "updateAccount", id, patch }));
  }

  async rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    await this.keyCache.changing({ accountId }, () =>
      this.db.write({ t: "rollPeriod", accountId, expected: expectedPeriodEnd, next: newPeriodEnd }),
    );
  }

  // Keys

  async createKey(key: NewKey): Promise<void> {
    await this.db.write({ t: "createKey", key });
  }

  getKey(keyId: string): Promise<KeyRow | null> {
    return this.db.guard(() => {
      const row = this.db.row(SQL.getKey, keyId);
      return row ? withKeyHolds(this.db.holds, toKey(row)) : null;
    });
  }

  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null> {
    return this.keyCache.changing({ keyId }, async () => {
      const key = await this.db.write<KeyRow | null>({ t: "setKeyLimit", keyId, limit, periodStart });
      return key && withKeyHolds(this.db.holds, key);
    });
  }

  findKeyByHash(hash: string): Promise<KeyLookup | null> {
    return this.keyCache.lookup(hash, () =>
      this.db.guard(() => {
        const row = this.db.row(SQL.findKeyByHash, hash);
        return row ? { key: toKey(row, "k_"), account: toAccount(row) } : null;
      }),
    );
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.db.guard(() => this.db.rows(SQL.listKeys, accountId).map((r) => withKeyHolds(this.db.holds, toKey(r))));
  }

  revokeKey(keyId: string, at: number): Promise<number | null> {
    return this.keyCache.changing({ keyId }, () => this.db.write({ t: "revokeKey", keyId, at }));
  }

  async touchKey(keyId: string, at: number): Promise<void> {
    // A people op on the writer (people.ts), with the sign-ins it is noted beside.
    await this.db.write({ t: "people", op: { t: "touchKey", keyId, at } });
  }
}

/** An account and key write, on the writer's connection inside its batch's transaction. */
export function applyAccountWrite(st: Statements, op: AccountWrite): unknown {
  switch (op.t) {
    case "createAccount": {
      const a = op.account;
      return toAccount(
        st.row(
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
      return updateAccount(st, op.id, op.patch);
    case "rollPeriod":
      st.get(SQL.rollPeriod).run(op.next, op.accountId, op.expected);
      return null;
    case "createKey": {
      const k = op.key;
      st.get(SQL.insertKey).run(
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
      return setKeyLimit(st, op.keyId, op.limit, op.periodStart);
    case "revokeKey": {
      const row = st.row(SQL.revokeKey, op.at, op.keyId);
      return row ? num(row.revoked_at) : null;
    }
  }
}

function updateAccount(st: Statements, id: string, patch: AccountPatch): AccountRow | null {
  const has = (value: unknown): number => (value === undefined ? 0 : 1);
  const row = st.row(SQL.updateAccount, {
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

/**
 * Set or remove a key's limit (Store.setKeyLimit). A key that had none gets its use counted from
 * the ledger since `periodStart`; one that had one keeps counting, as of the current period.
 */
function setKeyLimit(st: Statements, keyId: string, limit: number | null, periodStart: number): KeyRow | null {
  const found = st.row(SQL.getKey, keyId);
  if (!found) return null;
  const before = toKey(found);
  if (limit === null) st.get(SQL.removeKeyLimit).run(keyId);
  else {
    const budget = toKeyBudgetRow(st.row(SQL.keyBudget, keyId)!);
    const used =
      before.creditLimit === null
        ? num(st.row(SQL.keyLedgerSince, before.accountId, periodStart, keyId)?.total)
        : budget.used;
    st.get(SQL.setKeyLimit).run(limit, used, budget.period, keyId);
  }
  return toKey(st.row(SQL.getKey, keyId)!);
}
