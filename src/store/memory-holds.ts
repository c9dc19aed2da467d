/**
 * Credit holds kept in memory, for a store that one process serves alone (the embedded store under
 * its instance lock). Reserving is then a read of the account plus a map update on the event loop:
 * no write transaction and no round trip to the writer thread before the provider call. A crash
 * loses the holds together with the calls they were held for, so nothing is ever left to release.
 *
 * The bound `used + held + amount <= cap` stays exact: holds change only on this thread, `used`
 * is read from the database, and a settled call's hold is dropped only after its charge committed
 * (in between, both count: the error is on the safe side).
 */
import type { Reservation } from "./types.ts";

export class MemoryHolds {
  private readonly byId = new Map<string, { accountId: string; amount: number; createdAt: number }>();
  private readonly byAccount = new Map<string, number>();

  held(accountId: string): number {
    return this.byAccount.get(accountId) ?? 0;
  }

  add(reservation: Reservation): void {
    if (this.byId.has(reservation.id)) return;
    this.byId.set(reservation.id, {
      accountId: reservation.accountId,
      amount: reservation.amount,
      createdAt: reservation.createdAt,
    });
    this.byAccount.set(reservation.accountId, this.held(reservation.accountId) + reservation.amount);
  }

  /** Drop a hold; false when it was not held (already settled or released). */
  remove(reservationId: string): boolean {
    const hold = this.byId.get(reservationId);
    if (!hold) return false;
    this.byId.delete(reservationId);
    const left = this.held(hold.accountId) - hold.amount;
    if (left > 0) this.byAccount.set(hold.accountId, left);
    else this.byAccount.delete(hold.accountId);
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
