/**
 * Credit reservation and settlement around every billable call.
 *
 * reserve worst case → do the work → commit (settle actual + ledger + session writes, one
 * transaction) — or release on any failure. Because the reservation is one conditional UPDATE,
 * `used + reserved` never passes `cap`, however many calls run at once; refused and failed calls
 * cost 0. See docs/architecture.md, "Credits".
 */
import type { AccountService, Caller } from "../accounts/accounts.ts";
import { balanceOf } from "../accounts/accounts.ts";
import type { Clock } from "../clock.ts";
import { ApiError } from "../errors.ts";
import type { IdGenerator } from "../ids.ts";
import type { AccountRow, CommitOp, Reservation, Store } from "../store/types.ts";

export interface BillableCall {
  /** Capability id (or `sharpen`) for the ledger. */
  capability: string;
  /** `execute`, `more`, `update`, a record action name, `sharpen`. */
  operation: string;
  /** Worst-case credits, reserved before the work starts. */
  maxCredits: number;
  requestId: string;
}

export interface WorkResult<T> {
  result: T;
  /** Credits actually charged (clamped to the reservation). */
  credits: number;
  costUsd?: number;
  /** Session/record writes committed in the same transaction as the charge. */
  persist?: Pick<CommitOp, "newSession" | "sessionUpdate" | "recordAction">;
}

export interface Billed<T> {
  result: T;
  charged: number;
  account: AccountRow;
}

export class Billing {
  constructor(
    private readonly store: Store,
    private readonly accounts: AccountService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** Hold `amount` credits or answer 402. Zero-credit calls reserve nothing and always fit. */
  async reserve(caller: Caller, amount: number): Promise<Reservation | null> {
    const account = await this.accounts.ensureCurrentPeriod(caller.account);
    caller.account = account;
    if (amount <= 0) return null;
    const reservation: Reservation = {
      id: this.ids.id("rsv"),
      accountId: account.id,
      amount,
      createdAt: this.clock.now(),
    };
    const { ok, account: after } = await this.store.reserve(reservation);
    if (ok) return reservation;
    const balance = balanceOf(after ?? account);
    throw new ApiError(
      "credits_exhausted",
      `This call needs up to ${amount} credits; ${Math.max(0, balance.cap - balance.used - (after?.creditsReserved ?? 0))} are free of ${balance.cap}.`,
      {
        hint:
          balance.period_end === null
            ? "The free grant is used up; move to a paid plan for more credits."
            : `Credits reset at ${balance.period_end}; upgrade the plan for a larger cap.`,
      },
    );
  }

  async release(reservation: Reservation | null): Promise<void> {
    if (reservation) await this.store.release(reservation);
  }

  /** Run one billable call: reserve, work, commit or release. */
  async run<T>(caller: Caller, call: BillableCall, work: () => Promise<WorkResult<T>>): Promise<Billed<T>> {
    const reservation = await this.reserve(caller, call.maxCredits);
    let outcome: WorkResult<T>;
    try {
      outcome = await work();
    } catch (err) {
      await this.release(reservation).catch(() => undefined);
      throw err;
    }
    const charged = Math.max(0, Math.min(Math.ceil(outcome.credits), reservation?.amount ?? 0));
    const op: CommitOp = {
      reservation,
      ledger: {
        id: this.ids.id("led"),
        accountId: caller.account.id,
        keyId: caller.keyId,
        capability: call.capability,
        operation: call.operation,
        credits: charged,
        costUsd: outcome.costUsd ?? 0,
        requestId: call.requestId,
        createdAt: this.clock.now(),
      },
      ...outcome.persist,
    };
    let account: AccountRow;
    try {
      account = await this.store.commit(op);
    } catch (err) {
      // The transaction rolled back: nothing was charged or written; give the hold back.
      await this.release(reservation).catch(() => undefined);
      throw err;
    }
    caller.account = account;
    return { result: outcome.result, charged, account };
  }
}
