/**
 * Credit reservation and settlement around every billable call.
 *
 * reserve worst case → do the work → commit (settle actual + ledger + session writes, one
 * transaction) — or release on any failure. Because the reservation is one conditional UPDATE,
 * `used + reserved` never passes `cap`, however many calls run at once; refused and failed calls
 * cost 0. A key with its own limit per period is held, charged and released with the account, in
 * the same transaction; a key without one adds nothing. See docs/architecture.md, "Credits".
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import { balanceOf } from "../accounts/accounts.ts";
import type { Clock } from "../clock.ts";
import { ApiError, type CallOrigin, ClientGone } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import type { AccountRow, Committed, CommitOp, KeyBudget, Reservation, LedgerStore } from "../store/types.ts";

export interface BillableCall {
  /** Capability id (or `sharpen`) for the ledger. */
  capability: string;
  /** `execute`, `more`, `update`, a record action name, `sharpen`. */
  operation: string;
  /** Worst-case credits, reserved before the work starts. */
  maxCredits: number;
  /** The request (ledger row) and whether its caller is still there: checked before the work and the commit. */
  origin: CallOrigin;
  /**
   * The call needs credits available even when it will cost nothing (SPEC 3.1: an execute needs
   * "credits available"): refused with 402 once the period cap is reached. Follow-ups on a search
   * already made do not set it: paging through results held, or a cached action, stays free.
   */
  needsCredit?: boolean;
}

export interface WorkResult<T> {
  result: T;
  /** Credits actually charged; more than reserved is refused as a bug (500, nothing charged). */
  credits: number;
  costUsd?: number;
  /** Session/record writes committed in the same transaction as the charge. */
  persist?: Pick<CommitOp, "newSession" | "sessionUpdate" | "recordAction" | "touch">;
}

export interface Billed<T> {
  result: T;
  charged: number;
  account: AccountRow;
}

export class Billing {
  constructor(
    private readonly store: LedgerStore,
    private readonly accounts: AccountService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /**
   * Hold `amount` credits or answer 402. Zero-credit calls reserve nothing (and never touch the key's
   * row); with `needsCredit` they are refused once `used` has reached the cap (read from the caller's
   * account as authentication found it, at most KEY_CACHE_TTL_MS old: no credit is at stake on that
   * path). A caller whose key has a limit is held against it too: refused 402 by it, said so.
   */
  async reserve(caller: Caller, amount: number, needsCredit = false): Promise<Reservation | null> {
    const account = await this.accounts.ensureCurrentPeriod(caller.account);
    caller.account = account;
    if (amount <= 0) {
      if (needsCredit && account.creditsUsed >= account.creditsCap) {
        throw exhausted(account, `The period's credits are used up (${account.creditsUsed} of ${account.creditsCap}).`);
      }
      return null;
    }
    const reservation: Reservation = {
      id: this.ids.id("rsv"),
      accountId: account.id,
      amount,
      createdAt: this.clock.now(),
    };
    // Only a key with a limit: the store then checks it as it is now (the limit may have changed since
    // the lookup); a key without one (and an OAuth grant) costs no more than before.
    if (caller.keyLimit !== undefined && caller.keyLimit !== null && caller.keyId !== null) reservation.keyId = caller.keyId;
    const { ok, account: after, key } = await this.store.reserve(reservation);
    if (ok) return reservation;
    if (key) throw keyExhausted(after ?? account, key, amount);
    const now = after ?? account;
    const free = Math.max(0, now.creditsCap - now.creditsUsed - (after?.creditsReserved ?? 0));
    throw exhausted(now, `This call needs up to ${amount} credits; ${free} are free of ${now.creditsCap}.`);
  }

  async release(reservation: Reservation | null): Promise<void> {
    if (reservation) await this.store.release(reservation);
  }

  /**
   * Run one billable call: reserve, work, commit or release. A call whose caller went away before
   * the commit is released and fails with ClientGone (whatever else it failed with meanwhile:
   * nobody is there to read that); once the commit has started, it is charged.
   */
  async run<T>(caller: Caller, call: BillableCall, work: () => Promise<WorkResult<T>>): Promise<Billed<T>> {
    const gone = call.origin.clientGone;
    if (gone?.()) throw new ClientGone();
    const reservation = await this.reserve(caller, call.maxCredits, call.needsCredit);
    let outcome: WorkResult<T>;
    try {
      outcome = await work();
      if (gone?.()) throw new ClientGone();
    } catch (err) {
      await this.release(reservation).catch(() => undefined);
      throw gone?.() && !(err instanceof ClientGone) ? new ClientGone({ cause: err }) : err;
    }
    const reserved = reservation?.amount ?? 0;
    const credits = Math.max(0, Math.ceil(outcome.credits));
    if (credits > reserved) {
      // The capability's cost declaration reserved less than the call cost: a bug, never cut to fit.
      await this.release(reservation).catch(() => undefined);
      throw new ApiError("internal_error", `${call.capability} ${call.operation} cost ${credits} credits, more than the ${reserved} reserved for it.`, {
        hint: "A fault in Quarry's cost declaration for this capability; nothing was charged. Please report it.",
      });
    }
    const op: CommitOp = {
      reservation,
      ledger: {
        id: this.ids.id("led"),
        accountId: caller.account.id,
        // The key or, for an OAuth token, its grant: the dashboard's latest calls say which.
        keyId: caller.keyId ?? caller.grantId ?? null,
        capability: call.capability,
        operation: call.operation,
        credits,
        costUsd: outcome.costUsd ?? 0,
        requestId: call.origin.requestId,
        createdAt: this.clock.now(),
      },
      ...outcome.persist,
    };
    let committed: Committed;
    try {
      committed = await this.store.commit(op);
    } catch (err) {
      // The transaction rolled back: nothing was charged or written; give the hold back.
      await this.release(reservation).catch(() => undefined);
      throw err;
    }
    caller.account = committed.account;
    return { result: outcome.result, charged: committed.charged, account: committed.account };
  }
}

/** 402 credits_exhausted refused by the key's own limit (the account still had room), with what to do about it. */
function keyExhausted(account: AccountRow, key: KeyBudget, amount: number): ApiError {
  const held = key.used + key.reserved;
  const free = Math.max(0, key.limit - held);
  const { period_end } = balanceOf(account);
  return new ApiError(
    "credits_exhausted",
    `This key's own limit refused the call, not the account's cap: it needs up to ${amount} credits and the key has ${free} left of its ${key.limit} this period.`,
    {
      hint:
        `This key's limit is ${key.limit} credits per period; ${held} are used or held. ` +
        "Raise it in the dashboard (Keys & apps) or with `quarry keys limit`." +
        (period_end === null ? "" : ` Its use starts again from 0 at ${period_end}.`),
    },
  );
}

/** 402 credits_exhausted, with what to do about it. */
function exhausted(account: AccountRow, message: string): ApiError {
  const balance = balanceOf(account);
  return new ApiError("credits_exhausted", message, {
    hint:
      balance.period_end === null
        ? "The free grant is used up; move to a paid plan for more credits."
        : `Credits reset at ${balance.period_end}; upgrade the plan for a larger cap.`,
  });
}
