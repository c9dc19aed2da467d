/**
 * Credit holds kept in memory, for a store that one process serves alone (the embedded store under
 * its instance lock). Reserving is then a read of the account plus a map update on the event loop:
 * no write transaction and no round trip to the writer thread before the provider call. A crash
 * loses the holds together with the calls they were held for, so nothing is ever left to release.
 *
 * The bound `used + held + amount <= cap` stays exact: holds change only on this thread, `used`
 * is read from the database, and a settled call's hold is dropped only after its charge committed
 * (in between, both count: the error is on the safe side). A hold made for a key with a limit
 * (Reservation.keyId) is counted for that key as well, with the same rule against its limit.
 */
import type { AccountRow, KeyRow, Reservation } from "../types.ts";

export class MemoryHolds {
  private readonly byId = new Map<string, { accountId: string; keyId: string | undefined; amount: number; createdAt: number }>();
  private readonly byAccount = new Map<string, number>();
  /** Only keys with a limit have holds here; empty while no key has one. */
  private readonly byKey = new Map<string, number>();

  held(accountId: string): number {
    return this.byAccount.get(accountId) ?? 0;
  }

  /** What the calls in flight hold against a key's limit. */
  heldForKey(keyId: string): number {
    return this.byKey.get(keyId) ?? 0;
  }

  add(reservation: Reservation): void {
    if (this.byId.has(reservation.id)) return;
    const { keyId } = reservation;
    this.byId.set(reservation.id, {
      accountId: reservation.accountId,
      keyId,
      amount: reservation.amount,
      createdAt: reservation.createdAt,
    });
    this.byAccount.set(reservation.accountId, this.held(reservation.accountId) + reservation.amount);
    if (keyId !== undefined) this.byKey.set(keyId, this.heldForKey(keyId) + reservation.amount);
  }

  /** Drop a hold; false when it was not held (already settled or released). */
  remove(reservationId: string): boolean {
    const hold = this.byId.get(reservationId);
    if (!hold) return false;
    this.byId.delete(reservationId);
    subtract(this.byAccount, hold.accountId, hold.amount);
    if (hold.keyId !== undefined) subtract(this.byKey, hold.keyId, hold.amount);
    return true;
  }

  /** Drop the holds made before `before`; returns how many. */
  removeBefore(before: number): number {
    let removed = 0;
    for (const [id, hold] of this.byId) {
      if (hold.createdAt < before && this.remove(id)) removed++;
    }
    return removed;
  }
}

function subtract(totals: Map<string, number>, id: string, amount: number): void {
  const left = (totals.get(id) ?? 0) - amount;
  if (left > 0) totals.set(id, left);
  else totals.delete(id);
}

/** The account with this process's in-memory holds counted in `creditsReserved` (none: as it is). */
export function withHolds(holds: MemoryHolds | null, account: AccountRow): AccountRow {
  const held = holds?.held(account.id) ?? 0;
  return held === 0 ? account : { ...account, creditsReserved: account.creditsReserved + held };
}

/** The key with this process's in-memory holds counted in `creditsReserved` (none: as it is). */
export function withKeyHolds(holds: MemoryHolds | null, key: KeyRow): KeyRow {
  const held = holds?.heldForKey(key.id) ?? 0;
  return held === 0 ? key : { ...key, creditsReserved: key.creditsReserved + held };
}
