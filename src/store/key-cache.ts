/**
 * A short-lived cache of API key lookups (key hash → key row and account row), kept by each store.
 *
 * Every authenticated call looks its key up. On the embedded store that read costs far more than
 * it seems: the writer thread commits all the time, and each commit makes the reading connection
 * drop its page cache, so the lookup rereads its pages (measured: the read was ~7% of the event
 * loop's time, and the cache raised execute throughput by ~19%). On PostgreSQL it is a round trip.
 *
 * Rules (docs/architecture.md, "Key lookups"):
 * - Entries are keyed by the SHA-256 digest, never the key itself, and live `ttlMs` (default 1 s).
 * - Writes made through this store take effect at once: revoking a key or changing its own credit
 *   limit forgets it, changing an account (plan, status, cadence, cap, Sharpen stage, period) forgets
 *   that account's keys. The cached key row carries its limit (KeyRow.creditLimit), so a call knows
 *   without a query whether its key has one; its use counters are as read and are not relied on.
 * - Writes made elsewhere (the CLI in another process, another instance on PostgreSQL) take effect
 *   within `ttlMs`.
 * - Unknown keys are not cached (random keys cannot fill memory); at most `max` entries are kept.
 * - The cached account row is for authorization (status, plan, period, whether the cap is reached);
 *   balances shown to callers are read fresh (GET /v1/account) or come from the call's own commit.
 *   A commit whose charge reached the cap forgets the account's keys (noteCommit), so the next call
 *   through this store sees the cap reached at once; other processes see it within `ttlMs`.
 */
import type { AccountRow, KeyRow } from "./types.ts";

export interface KeyLookup {
  key: KeyRow;
  account: AccountRow;
}

export const DEFAULT_KEY_CACHE_TTL_MS = 1000;

export class KeyCache {
  private readonly entries = new Map<string, { value: KeyLookup; expiresAt: number }>();
  /** Bumped by every forget: a lookup that started before a change must not cache what it read. */
  private generation = 0;

  constructor(
    private readonly ttlMs = DEFAULT_KEY_CACHE_TTL_MS,
    private readonly max = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** The cached lookup of `hash`, or `load()`'s answer (cached unless a change raced it). */
  async lookup(hash: string, load: () => Promise<KeyLookup | null>): Promise<KeyLookup | null> {
    const hit = this.get(hash);
    if (hit) return hit;
    const token = this.begin();
    const found = await load();
    if (found) this.set(hash, found, token);
    return found;
  }

  /**
   * Run a write that changes what lookups return (a revocation, an account change): the affected
   * entries are forgotten before it starts and again once it is done, so a lookup that read the old
   * row meanwhile is not served afterwards.
   */
  async changing<T>(scope: { keyId: string } | { accountId: string }, write: () => Promise<T>): Promise<T> {
    const forget = () => ("keyId" in scope ? this.forgetKey(scope.keyId) : this.forgetAccount(scope.accountId));
    forget();
    try {
      return await write();
    } finally {
      forget();
    }
  }

  get(hash: string): KeyLookup | undefined {
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.value;
  }

  /** A token to pass to set(): taken before the read, so a change made meanwhile wins. */
  begin(): number {
    return this.generation;
  }

  set(hash: string, value: KeyLookup, token: number): void {
    if (!this.enabled || token !== this.generation) return;
    if (this.entries.size >= this.max) {
      // Oldest first (insertion order); one eviction per insertion keeps the bound.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    // Frozen: one row is shared by concurrent calls, none may change it for the others.
    Object.freeze(value.key);
    Object.freeze(value.account);
    this.entries.set(hash, { value: Object.freeze(value), expiresAt: this.now() + this.ttlMs });
  }

  /**
   * A commit's outcome, passed through: when its charge took `used` to the cap, the account's
   * entries go (a scan, but at most a few times a period: only a charge can reach the cap).
   */
  noteCommit<T extends { account: AccountRow; charged: number }>(committed: T): T {
    const { account } = committed;
    if (committed.charged > 0 && account.creditsUsed >= account.creditsCap) this.forgetAccount(account.id);
    return committed;
  }

  forgetKey(keyId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.value.key.id === keyId) this.entries.delete(hash);
  }

  forgetAccount(accountId: string): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (entry.value.account.id === accountId) this.entries.delete(hash);
  }

  get size(): number {
    return this.entries.size;
  }
}
