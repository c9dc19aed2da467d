/**
 * Accounts, plans and API keys. Keys are `qk_live_` + 32 base62 characters (~190 bits), shown
 * once, stored only as SHA-256; lookups compare fixed-length digests in constant time.
 */
import { hash, timingSafeEqual } from "node:crypto";
import type { Clock } from "../clock.ts";
import { type Config, findPlan, type Plan, type SharpenStage } from "../config.ts";
import { ApiError } from "../errors.ts";
import { type IdGenerator, randomBase62 } from "../ids.ts";
import type { AccountPatch, AccountRow, AccountStore, KeyRow, PeopleStore } from "../store/types.ts";
import type { AccountResponse, Balance } from "../wire.ts";
import { addMonths, nextPeriodEnd } from "./periods.ts";

export const KEY_PREFIX = "qk_live_";
const KEY_PATTERN = /^qk_live_[0-9A-Za-z]{32}$/;
/** OAuth access tokens (src/people/oauth.ts): `qat_` + 40 base62 characters, stored as SHA-256. */
export const ACCESS_TOKEN_PREFIX = "qat_";
export const ACCESS_TOKEN_PATTERN = /^qat_[0-9A-Za-z]{40}$/;

/** A key's own limit and use this period, as GET /v1/account answers it (`key_budget`). */
export type KeyBudget = NonNullable<AccountResponse["key_budget"]>;

/** Who is calling: resolved from the key (or OAuth token, or dashboard session) on every authenticated request. */
export interface Caller {
  account: AccountRow;
  /** The API key that authenticated the call; null for an OAuth token or a dashboard session. */
  keyId: string | null;
  /** The OAuth grant whose access token authenticated the call, if any. */
  grantId?: string;
  /**
   * The key's own credit limit per period as authentication read it (at most KEY_CACHE_TTL_MS old);
   * absent or null: none. Billing holds a call against it only when set; the store checks the limit
   * as it is then. An OAuth token or a dashboard session has no key limit.
   */
  keyLimit?: number | null;
  plan: Plan;
}

/** The largest key limit accepted (credits per period): far beyond any plan's cap. */
export const MAX_KEY_LIMIT = 1_000_000_000_000;

/**
 * A key limit as the operator or a person typed it: a whole number of credits, 0 or more, or
 * `none` (or an empty value) for no limit. Undefined when it is neither.
 */
export function parseKeyLimit(text: string): number | null | undefined {
  const value = text.trim();
  if (value === "" || value.toLowerCase() === "none") return null;
  if (!/^[0-9]{1,13}$/.test(value)) return undefined;
  const limit = Number(value);
  return limit <= MAX_KEY_LIMIT ? limit : undefined;
}

/** A key's use in its account's current period: what it used in an earlier period counts 0. */
export function keyUse(key: KeyRow, account: AccountRow): number {
  return key.usedPeriodEnd === account.periodEnd ? key.creditsUsed : 0;
}

/**
 * The first moment of the account's current credit period: the previous anniversary of the
 * subscription before `periodEnd` (not before the subscription started); the account's creation on
 * a plan granted once, whose grant is one period.
 */
export function periodStart(account: AccountRow): number {
  if (account.periodEnd === null) return account.createdAt;
  const anchor = account.periodAnchor ?? account.createdAt;
  let k = Math.max(1, Math.round((account.periodEnd - anchor) / (30.44 * 86_400_000)));
  while (k > 1 && addMonths(anchor, k - 1) >= account.periodEnd) k--;
  while (addMonths(anchor, k) < account.periodEnd) k++;
  return Math.max(account.createdAt, addMonths(anchor, k - 1));
}

/** A key's or grant's last use is written at most this often per process (Store.touchKey). */
const USE_NOTE_INTERVAL_MS = 60_000;

export function hashKey(key: string): string {
  // One-shot hash (Node >= 20.12): no Hash object per authenticated call.
  return hash("sha256", key, "hex");
}

const UNAUTHORIZED_HINT =
  "Send `Authorization: Bearer <API_KEY>` with a live key (qk_live_…); an MCP host that cannot send headers puts it in the URL instead: /mcp/k/<API_KEY>.";

const TOKEN_HINT =
  "OAuth access tokens last an hour: refresh it (POST /oauth/token), or connect again; the account's dashboard lists and revokes connected apps.";

export class AccountService {
  constructor(
    /** Accounts and keys, and the OAuth tokens a caller may present instead of a key. */
    private readonly store: AccountStore & Pick<PeopleStore, "findOAuthToken" | "touchOAuthGrant">,
    private readonly config: Config,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  plan(planId: string): Plan {
    const plan = findPlan(this.config, planId);
    if (plan) return plan;
    // A plan removed from configuration: fall back to the default so the account keeps working.
    return findPlan(this.config, this.config.defaultPlanId)!;
  }

  /** What a plan sets on an account whatever its subscription: cap, status and cadence. */
  private planFields(plan: Plan) {
    return {
      planId: plan.id,
      creditsCap: plan.credits,
      status: plan.period === "once" ? ("free" as const) : ("active" as const),
      cadence: plan.period === "once" ? null : ("monthly" as const),
    };
  }

  async createAccount(name: string, planId = this.config.defaultPlanId): Promise<AccountRow> {
    const plan = findPlan(this.config, planId);
    if (!plan) throw new ApiError("invalid_request", `No plan "${planId}".`, { violations: [{ path: "/plan", message: "unknown plan" }] });
    const now = this.clock.now();
    return this.store.createAccount({
      id: this.ids.id("acct"),
      name,
      ...this.planFields(plan),
      periodEnd: plan.period === "monthly" ? nextPeriodEnd(now, now) : null,
      periodAnchor: now,
      sharpenStage: null,
      createdAt: now,
    });
  }

  /**
   * Move an account to a plan. Credit periods follow the subscription (SPEC §1: paid plans reset
   * monthly on the subscription anniversary):
   * - a different paid plan starts a new subscription now: anchor = now, the period ends a month
   *   later, `used` starts from 0 under the new cap (holds of calls in flight stay and settle in it);
   * - the same plan keeps its subscription: anchor, period end, `used`, status and cadence are left
   *   as they are (only the cap follows the plan's configuration);
   * - a plan granted once has no period (anchor and period end cleared). Its grant is given once:
   *   leaving it for a paid plan keeps what the grant had used (`grantUsed`), coming back from a
   *   paid plan puts that back as `used`, and moving between plans granted once keeps `used`.
   */
  async setPlan(accountId: string, planId: string): Promise<AccountRow> {
    const plan = findPlan(this.config, planId);
    if (!plan) throw new ApiError("invalid_request", `No plan "${planId}".`);
    const account = await this.mustGet(accountId);
    const now = this.clock.now();
    // An account whose period does not fit its plan (the plan's period was reconfigured) is set right.
    const periodFits = plan.period === "once" ? account.periodEnd === null : account.periodEnd !== null;
    const sameSubscription = plan.id === account.planId && periodFits;
    // The same plan again keeps the subscription whole, its status and cadence included (a past-due or
    // canceled account is not reinstated by it: `status set` does that); another plan starts a new one.
    const { status, cadence, ...capOnly } = this.planFields(plan);
    const patch: AccountPatch = sameSubscription ? capOnly : { ...capOnly, status, cadence };
    if (!sameSubscription) {
      // Which kind of plan the account is on now, by its period (the plan itself may be gone).
      const wasOnce = account.periodEnd === null;
      if (plan.period === "once") {
        patch.periodEnd = null;
        patch.periodAnchor = null;
        if (!wasOnce) patch.grant = "restore";
      } else {
        patch.periodAnchor = now;
        patch.periodEnd = nextPeriodEnd(now, now);
        patch.creditsUsed = 0;
        if (wasOnce) patch.grant = "save";
      }
    }
    return (await this.store.updateAccount(accountId, patch))!;
  }

  async update(accountId: string, patch: AccountPatch): Promise<AccountRow> {
    await this.mustGet(accountId);
    return (await this.store.updateAccount(accountId, patch))!;
  }

  async mustGet(accountId: string): Promise<AccountRow> {
    const account = await this.store.getAccount(accountId);
    if (!account) throw new ApiError("not_found", `No account "${accountId}".`);
    return account;
  }

  /**
   * Create a key, with its own credit limit per period if `limit` is given (null: none); the
   * plaintext is returned once and never stored.
   */
  async createKey(accountId: string, name = "default", limit: number | null = null): Promise<{ key: string; row: KeyRow }> {
    checkKeyLimit(limit);
    await this.mustGet(accountId);
    const key = KEY_PREFIX + randomBase62(32);
    const row: KeyRow = {
      id: this.ids.id("key"),
      accountId,
      hash: hashKey(key),
      hint: key.slice(0, KEY_PREFIX.length + 4),
      name,
      createdAt: this.clock.now(),
      revokedAt: null,
      lastUsedAt: null,
      creditLimit: limit,
      creditsUsed: 0,
      creditsReserved: 0,
      usedPeriodEnd: null,
    };
    await this.store.createKey(row);
    return { key, row };
  }

  /**
   * Set a key's own credit limit per period, or remove it (null). Calls with the key are held against
   * it from then on (a running server sees it at once when it made the change, within
   * KEY_CACHE_TTL_MS otherwise). A key given a limit it did not have counts what it has used this
   * period already (the ledger's rows of the key since the period started). `accountId`: refuse a key
   * of another account (the dashboard), as if there were no such key.
   */
  async setKeyLimit(keyId: string, limit: number | null, accountId?: string): Promise<KeyRow> {
    checkKeyLimit(limit);
    const key = await this.store.getKey(keyId);
    if (!key || (accountId !== undefined && key.accountId !== accountId)) throw new ApiError("not_found", `No key "${keyId}".`);
    const account = await this.ensureCurrentPeriod(await this.mustGet(key.accountId));
    const after = await this.store.setKeyLimit(keyId, limit, periodStart(account));
    if (!after) throw new ApiError("not_found", `No key "${keyId}".`);
    return after;
  }

  /** When each key or grant was last noted as used by this process (noteUse). */
  private readonly noted = new Map<string, number>();

  /** Record a key's or grant's use, at most once a minute each (a write off the answer's path). */
  private noteUse(kind: "key" | "grant", id: string): void {
    const now = this.clock.now();
    const name = `${kind}:${id}`;
    const last = this.noted.get(name);
    if (last !== undefined && now - last < USE_NOTE_INTERVAL_MS && now >= last) return;
    if (this.noted.size >= 50_000) this.noted.clear();
    this.noted.set(name, now);
    const write = kind === "key" ? this.store.touchKey(id, now) : this.store.touchOAuthGrant(id, now);
    // Best effort: a store that cannot write now loses a "last used" time, never a call.
    write.catch(() => this.noted.delete(name));
  }

  /**
   * Resolve `Authorization: Bearer …` (or a bare key, for the MCP URL form) to a caller: an API key,
   * or an OAuth access token (`qat_…`), which acts for its account like a key.
   */
  async authenticate(key: string | undefined): Promise<Caller> {
    // "" is an Authorization header that is there but not `Bearer <key>` (http/auth.ts, bearerKey).
    if (key === "") throw new ApiError("unauthorized", "The Authorization header must read `Bearer <API_KEY>`.", { hint: UNAUTHORIZED_HINT });
    if (!key) throw new ApiError("unauthorized", "An API key is required.", { hint: UNAUTHORIZED_HINT });
    if (key.startsWith(ACCESS_TOKEN_PREFIX)) return this.authenticateToken(key);
    if (!KEY_PATTERN.test(key)) throw new ApiError("unauthorized", "The API key is not valid.", { hint: UNAUTHORIZED_HINT });
    const digest = hashKey(key);
    const found = await this.store.findKeyByHash(digest);
    // Compare fixed-length digests in constant time even though the lookup matched by value.
    const ok =
      found !== null && timingSafeEqual(Buffer.from(found.key.hash, "hex"), Buffer.from(digest, "hex"));
    if (!found || !ok) throw new ApiError("unauthorized", "The API key is not valid.", { hint: UNAUTHORIZED_HINT });
    if (found.key.revokedAt !== null) {
      throw new ApiError("unauthorized", "The API key has been revoked.", { hint: UNAUTHORIZED_HINT });
    }
    this.noteUse("key", found.key.id);
    const caller: Caller = { account: found.account, keyId: found.key.id, plan: this.plan(found.account.planId) };
    if (found.key.creditLimit !== null) caller.keyLimit = found.key.creditLimit;
    return caller;
  }

  /** An OAuth access token: known, of a grant not revoked, not expired. */
  private async authenticateToken(token: string): Promise<Caller> {
    const invalid = (message: string, hint = TOKEN_HINT) => new ApiError("unauthorized", message, { hint });
    if (!ACCESS_TOKEN_PATTERN.test(token)) throw invalid("The access token is not valid.");
    const digest = hashKey(token);
    const found = await this.store.findOAuthToken(digest);
    const ok = found !== null && timingSafeEqual(Buffer.from(found.token.hash, "hex"), Buffer.from(digest, "hex"));
    if (!found || !ok || found.token.kind !== "access") throw invalid("The access token is not valid.");
    if (found.grant.revokedAt !== null) throw invalid("The access token has been revoked.");
    if (found.token.expiresAt <= this.clock.now()) {
      throw invalid("The access token has expired.", "Get a new one with the refresh token (POST /oauth/token, grant_type=refresh_token), or sign in again.");
    }
    this.noteUse("grant", found.grant.id);
    return { account: found.account, keyId: null, grantId: found.grant.id, plan: this.plan(found.account.planId) };
  }

  /** The caller a signed-in dashboard session stands for (GET /v1/account only). */
  async sessionCaller(accountId: string): Promise<Caller> {
    const account = await this.store.getAccount(accountId);
    if (!account) throw new ApiError("unauthorized", "The dashboard session's account no longer exists.", { hint: UNAUTHORIZED_HINT });
    return { account, keyId: null, plan: this.plan(account.planId) };
  }

  /** The caller with its account read now (the key lookup that made it may be up to a second old). */
  async refresh(caller: Caller): Promise<Caller> {
    const read = await this.store.getAccount(caller.account.id);
    if (!read) return caller;
    // A period that has ended is rolled here too, so the balance shown (account, catalog) is the
    // current period's even when no billable call has rolled it yet.
    const account = await this.ensureCurrentPeriod(read);
    return { ...caller, account, plan: this.plan(account.planId) };
  }

  /**
   * The calling key's own budget this period, for GET /v1/account's `key_budget`: only for a key with
   * a limit (read now: its use is not taken from the cached lookup); null otherwise, an OAuth token
   * or a dashboard session included. `caller.account` is the account read now (refresh).
   */
  async keyBudget(caller: Caller): Promise<KeyBudget | null> {
    if (caller.keyId === null || caller.keyLimit === undefined || caller.keyLimit === null) return null;
    const key = await this.store.getKey(caller.keyId);
    if (!key || key.creditLimit === null) return null;
    return { limit: key.creditLimit, used: keyUse(key, caller.account), period_end: balanceOf(caller.account).period_end };
  }

  /** Start the next credit period if the current one has ended (lazy, atomic CAS in the store). */
  async ensureCurrentPeriod(account: AccountRow): Promise<AccountRow> {
    const now = this.clock.now();
    if (account.periodEnd === null || account.periodEnd > now) return account;
    // The next anniversary of the subscription (accounts stored before the anchor: of their creation).
    const anchor = account.periodAnchor ?? account.createdAt;
    await this.store.rollPeriod(account.id, account.periodEnd, nextPeriodEnd(anchor, now));
    return (await this.store.getAccount(account.id)) ?? account;
  }

  /** Whether a capability (or `sharpen`) is switched on for this caller. */
  isEnabled(caller: Caller, capabilityId: string): boolean {
    if (caller.account.status === "canceled") return false;
    return caller.plan.capabilities === "*" || caller.plan.capabilities.includes(capabilityId);
  }

  /**
   * Why `isEnabled` said no, as the 403 to answer: a canceled account is named as the reason (its
   * plan may well include the capability), otherwise the plan. `name` is how the message calls it.
   */
  disabledError(caller: Caller, name: string, planHint: string): ApiError {
    if (caller.account.status === "canceled") {
      return new ApiError("capability_disabled", `The account is canceled; ${name} cannot be used.`, {
        hint: "The operator of this Quarry deployment can reactivate it.",
      });
    }
    return new ApiError("capability_disabled", `${name} is not enabled on the ${caller.plan.name} plan.`, { hint: planHint });
  }

  /** The saved Sharpen stage, or the plan's default. */
  sharpenStage(caller: Caller): SharpenStage {
    return (caller.account.sharpenStage as SharpenStage | null) ?? caller.plan.sharpenDefaultStage;
  }
}

function checkKeyLimit(limit: number | null): void {
  if (limit !== null && (!Number.isSafeInteger(limit) || limit < 0 || limit > MAX_KEY_LIMIT)) {
    throw new ApiError("invalid_request", `A key's limit is a whole number of credits from 0 to ${MAX_KEY_LIMIT}, or none.`, {
      violations: [{ path: "/limit", message: "not a whole number of credits" }],
    });
  }
}

/** Balance (spec 2.6) of an account row. */
export function balanceOf(account: AccountRow): Balance {
  return {
    used: account.creditsUsed,
    cap: account.creditsCap,
    period_end: account.periodEnd === null ? null : new Date(account.periodEnd).toISOString(),
  };
}
