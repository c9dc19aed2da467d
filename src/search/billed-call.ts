/**
 * A search step's billed call (execute, `more`, `update`, a record action): the one shape around
 * Billing.run for them all. The ledger names the capability and the operation; the worst case is
 * reserved first; the work says what it cost (a page's or an action's credits and provider cost)
 * and what it writes with the charge.
 */
import type { Caller } from "../accounts/accounts.ts";
import type { Capability } from "../capabilities/types.ts";
import type { Billed, Billing, WorkResult } from "../credits/billing.ts";
import type { CallOrigin } from "../errors.ts";

export interface SearchCall {
  cap: Capability;
  /** `execute`, `more`, `update` or the record action's name. */
  operation: string;
  /** The worst case, reserved before the work starts (0: a free call). */
  maxCredits: number;
  origin: CallOrigin;
  /** An execute needs credits available even when it will cost nothing (billing.ts, BillableCall). */
  needsCredit?: boolean;
}

/** What a call cost: a page's or a record action's credits, and the provider's cost when known. */
export interface Cost {
  credits: number;
  costUsd?: number;
}

/** A call that costs nothing (a page held in the session, a detail stored or cached). */
export const FREE: Cost = { credits: 0 };

export interface SearchWork<T> {
  result: T;
  cost: Cost;
  persist: NonNullable<WorkResult<T>["persist"]>;
}

export function billedCall<T>(billing: Billing, caller: Caller, call: SearchCall, work: () => Promise<SearchWork<T>>): Promise<Billed<T>> {
  const { cap, operation, maxCredits, origin, needsCredit } = call;
  return billing.run(caller, { capability: cap.id, operation, maxCredits, origin, ...(needsCredit ? { needsCredit } : {}) }, async () => {
    const { result, cost, persist } = await work();
    return { result, credits: cost.credits, ...(cost.costUsd === undefined ? {} : { costUsd: cost.costUsd }), persist };
  });
}
