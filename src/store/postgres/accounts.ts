/**
 * The PostgreSQL store's accounts and API keys (AccountStore): accounts and their periods, keys, a
 * key's own credit limit. Key lookups go through the store's key cache; a write that changes what a
 * lookup returns forgets it. Credit holds and charges are the ledger's (ledger.ts, commit.ts).
 */
import { KEY_USED, type PgAccess, type Queryable } from "./access.ts";
import type { KeyCache, KeyLookup } from "../key-cache.ts";
import {
  KEY_JOIN_COLUMNS,
  num,
  numOrNull,
  type Raw,
  toAccount,
  toKey,
} from "../sql-common.ts";
import type {
  AccountPatch,
  AccountRow,
  KeyRow,
  NewAccount,
  NewKey,
} from "../types.ts";

/** Patchable account fields and their columns (also the whitelist for the dynamic UPDATE). */
const PATCH_COLUMNS = {
  name: "name",
  planId: "plan_id",
  status: "status",
  cadence: "cadence",
  creditsUsed: "credits_used",
  creditsCap: "credits_cap",
  periodEnd: "period_end",
  periodAnchor: "period_anchor",
  sharpenStage: "sharpen_stage",
} as const satisfies Record<Exclude<keyof AccountPatch, "grant">, string>;

export class PostgresAccounts {
  constructor(
    private readonly db: PgAccess,
    private readonly keyCache: KeyCache,
  ) {}


  createAccount(account: NewAccount): Promise<AccountRow> {
    return this.db.guard(async () =>
      toAccount(
        (await this.db.row(
          `INSERT INTO accounts (id, name, plan_id, status, cadence, credits_used, credits_reserved, credits_cap,
             period_end, period_anchor, sharpen_stage, created_at)
           VALUES ($1, $2, $3, $4, $5, 0, 0, $6, $7, $8, $9, $10) RETURNING *`,
          [
            account.id,
            account.name,
            account.planId,
            account.status,
            account.cadence,
            account.creditsCap,
            account.periodEnd,
            account.periodAnchor,
            account.sharpenStage,
            account.createdAt,
          ],
        ))!,
      ),
    );
  }

  getAccount(id: string): Promise<AccountRow | null> {
    return this.db.guard(() => this.account(id, this.db.pool));
  }

  /** An account read on `on` (a transaction's client, or the pool). */
  async account(id: string, on: Queryable): Promise<AccountRow | null> {
    const row = await this.db.row("SELECT * FROM accounts WHERE id = $1", [id], on);
    return row ? toAccount(row) : null;
  }

  listAccounts(): Promise<AccountRow[]> {
    return this.db.guard(async () =>
      (await this.db.rows("SELECT * FROM accounts ORDER BY created_at, id")).map(toAccount),
    );
  }

  countAccounts(): Promise<number> {
    return this.db.guard(async () => num((await this.db.row("SELECT COUNT(*) AS n FROM accounts"))?.n));
  }

  updateAccount(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.keyCache.changing({ accountId: id }, () => this.updateAccountRow(id, patch));
  }

  private updateAccountRow(id: string, patch: AccountPatch): Promise<AccountRow | null> {
    return this.db.guard(async () => {
      const sets: string[] = [];
      const params: unknown[] = [id];
      for (const [field, column] of Object.entries(PATCH_COLUMNS) as [keyof typeof PATCH_COLUMNS, string][]) {
        const value = patch[field];
        if (value === undefined || (field === "creditsUsed" && patch.grant === "restore")) continue;
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      }
      // Right-hand sides read the row as it was: saving the grant sees credits_used before it is reset.
      if (patch.grant === "save") sets.push("grant_used = credits_used");
      if (patch.grant === "restore") sets.push("credits_used = grant_used");
      if (sets.length === 0) return this.account(id, this.db.pool);
      const row = await this.db.row(`UPDATE accounts SET ${sets.join(", ")} WHERE id = $1 RETURNING *`, params);
      return row ? toAccount(row) : null;
    });
  }

  rollPeriod(accountId: string, expectedPeriodEnd: number, newPeriodEnd: number): Promise<void> {
    return this.keyCache.changing({ accountId }, () =>
      this.db.guard(async () => {
        await this.db.pool.query(
          "UPDATE accounts SET credits_used = 0, period_end = $3 WHERE id = $1 AND period_end = $2",
          [accountId, expectedPeriodEnd, newPeriodEnd],
        );
      }),
    );
  }

  // Keys

  createKey(key: NewKey): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query(
        `INSERT INTO api_keys (id, account_id, key_hash, hint, name, created_at, revoked_at, last_used_at, credit_limit)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [
          key.id,
          key.accountId,
          key.hash,
          key.hint,
          key.name,
          key.createdAt,
          key.revokedAt,
          key.lastUsedAt ?? null,
          key.creditLimit ?? null,
        ],
      );
    });
  }

  findKeyByHash(hash: string): Promise<KeyLookup | null> {
    return this.keyCache.lookup(hash, () =>
      this.db.guard(async () => {
        const row = await this.db.row(
          `SELECT ${KEY_JOIN_COLUMNS}, a.* FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = $1`,
          [hash],
        );
        return row ? { key: toKey(row, "k_"), account: toAccount(row) } : null;
      }),
    );
  }

  getKey(keyId: string): Promise<KeyRow | null> {
    return this.db.guard(async () => {
      const row = await this.db.row("SELECT * FROM api_keys WHERE id = $1", [keyId]);
      return row ? toKey(row) : null;
    });
  }

  setKeyLimit(keyId: string, limit: number | null, periodStart: number): Promise<KeyRow | null> {
    return this.keyCache.changing({ keyId }, () =>
      this.db.transaction(async (client) => {
        // The account's row first, as reserve and commit lock it, then the key's.
        const account = await this.db.row(
          `SELECT a.id, a.period_end FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.id = $1 FOR UPDATE OF a`,
          [keyId],
          client,
        );
        if (!account) return null;
        const before = await this.db.row("SELECT credit_limit FROM api_keys WHERE id = $1 FOR UPDATE", [keyId], client);
        if (!before) return null;
        let row: Raw | undefined;
        if (limit === null) {
          row = await this.db.row("UPDATE api_keys SET credit_limit = NULL WHERE id = $1 RETURNING *", [keyId], client);
        } else if (before.credit_limit === null) {
          // Counted afresh: its use of this period as the ledger has it.
          row = await this.db.row(
            `UPDATE api_keys SET credit_limit = $3, used_period_end = $2::bigint,
               credits_used = (SELECT COALESCE(SUM(credits), 0) FROM ledger WHERE account_id = $4 AND created_at >= $5 AND key_id = $1)
             WHERE id = $1 RETURNING *`,
            [keyId, numOrNull(account.period_end), limit, String(account.id), periodStart],
            client,
          );
        } else {
          row = await this.db.row(
            `UPDATE api_keys SET credit_limit = $3, credits_used = ${KEY_USED}, used_period_end = $2::bigint WHERE id = $1 RETURNING *`,
            [keyId, numOrNull(account.period_end), limit],
            client,
          );
        }
        return row ? toKey(row) : null;
      }),
    );
  }

  listKeys(accountId: string): Promise<KeyRow[]> {
    return this.db.guard(async () =>
      (
        await this.db.rows("SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id", [accountId])
      ).map((r) => toKey(r)),
    );
  }

  revokeKey(keyId: string, at: number): Promise<number | null> {
    return this.keyCache.changing({ keyId }, () => this.revokeKeyRow(keyId, at));
  }

  private revokeKeyRow(keyId: string, at: number): Promise<number | null> {
    return this.db.guard(async () => {
      // The first revocation time is kept: revoking again does not rewrite history.
      const row = await this.db.row("UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1 RETURNING revoked_at", [
        keyId,
        at,
      ]);
      return row ? num(row.revoked_at) : null;
    });
  }

  touchKey(keyId: string, at: number): Promise<void> {
    return this.db.guard(async () => {
      await this.db.pool.query("UPDATE api_keys SET last_used_at = GREATEST(COALESCE(last_used_at, 0), $2) WHERE id = $1", [keyId, at]);
    });
  }
}
