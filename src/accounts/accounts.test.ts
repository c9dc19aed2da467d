/**
 * Plans and credit periods (SPEC §1: paid plan credits reset monthly on the subscription
 * anniversary), with a manual clock, on the embedded store and, when DATABASE_URL is set, on
 * PostgreSQL: the period follows the subscription, not the account's creation.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openTestStore, usePostgres } from "../../test/helpers/harness.ts";
import { ManualClock } from "../clock.ts";
import { loadConfig } from "../config.ts";
import { cryptoIds } from "../ids.ts";
import type { Store } from "../store/types.ts";
import { AccountService } from "./accounts.ts";
import { addMonths } from "./periods.ts";

const PLANS = JSON.stringify([
  { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 60, capabilities: "*" },
  { id: "pro", name: "Pro", credits: 20000, period: "monthly", rateLimitPerMinute: 60, capabilities: "*" },
  { id: "team", name: "Team", credits: 50000, period: "monthly", rateLimitPerMinute: 60, capabilities: "*" },
]);

const DAY = 24 * 3600 * 1000;
/** Day X: the account is created (on the free plan). */
const X = Date.UTC(2025, 0, 10, 10, 0);
/** Day Y: it moves to a paid plan; on the 31st, so later periods end on shorter months' last day. */
const Y = Date.UTC(2025, 2, 31, 15, 0);

function suite(name: string, open: () => Promise<{ store: Store; cleanup: () => Promise<void> }>): void {
  describe(name, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    const clock = new ManualClock(X);
    let accounts: AccountService;

    before(async () => {
      ({ store, cleanup } = await open());
      accounts = new AccountService(store, loadConfig({ QUARRY_PLANS: PLANS }), clock, cryptoIds);
    });
    after(async () => {
      await cleanup?.();
    });

    /** Charge `credits` the way a call does: reserve, then settle with a ledger row. */
    async function spend(accountId: string, credits: number): Promise<void> {
      const reservation = { id: cryptoIds.id("rsv"), accountId, amount: credits, createdAt: clock.now() };
      assert.equal((await store.reserve(reservation)).ok, true, `${credits} credits should fit`);
      await store.commit({
        reservation,
        ledger: {
          id: cryptoIds.id("led"),
          accountId,
          keyId: null,
          capability: "markets.quote",
          operation: "execute",
          credits,
          costUsd: credits / 1000,
          requestId: cryptoIds.requestId(),
          createdAt: clock.now(),
        },
      });
    }

    test("an account's anchor is its creation; a paid plan from the start ends its period a month on", async () => {
      clock.set(X);
      const free = await accounts.createAccount("free one");
      assert.equal(free.periodAnchor, X);
      assert.equal(free.periodEnd, null);
      const pro = await accounts.createAccount("pro one", "pro");
      assert.equal(pro.periodAnchor, X);
      assert.equal(pro.periodEnd, Date.UTC(2025, 1, 10, 10, 0));
    });

    test("free on day X, paid on day Y: the periods end on Y's anniversaries, from 0 used", async () => {
      clock.set(X);
      const created = await accounts.createAccount("upgrader");
      await spend(created.id, 300);

      clock.set(Y);
      const paid = await accounts.setPlan(created.id, "pro");
      assert.equal(paid.planId, "pro");
      assert.equal(paid.status, "active");
      assert.equal(paid.cadence, "monthly");
      assert.equal(paid.creditsCap, 20000);
      assert.equal(paid.periodAnchor, Y);
      assert.equal(paid.periodEnd, addMonths(Y, 1));
      assert.equal(paid.periodEnd, Date.UTC(2025, 3, 30, 15, 0), "April has no 31st: its last day");
      assert.equal(paid.creditsUsed, 0, "a new subscription starts from 0");
      assert.equal(paid.createdAt, X);

      // Same plan again, days later: the subscription goes on untouched.
      await spend(created.id, 50);
      clock.set(Y + 3 * DAY);
      await accounts.update(created.id, { status: "past_due", cadence: "annual" });
      const again = await accounts.setPlan(created.id, "pro");
      assert.equal(again.periodEnd, addMonths(Y, 1));
      assert.equal(again.periodAnchor, Y);
      assert.equal(again.creditsUsed, 50);
      assert.equal(again.status, "past_due", "the same plan does not reinstate the account");
      assert.equal(again.cadence, "annual");
      await accounts.update(created.id, { status: "active", cadence: "monthly" });

      // Before the end nothing rolls; once it has passed, the next billable call's roll ends the
      // new period on Y + 2 months (May 31st, not April 30th + 1 month).
      clock.set(addMonths(Y, 1) - 1);
      assert.equal((await accounts.ensureCurrentPeriod(await accounts.mustGet(created.id))).creditsUsed, 50);
      clock.set(addMonths(Y, 1) + 1000);
      const rolled = await accounts.ensureCurrentPeriod(await accounts.mustGet(created.id));
      assert.equal(rolled.periodEnd, addMonths(Y, 2));
      assert.equal(rolled.periodEnd, Date.UTC(2025, 4, 31, 15, 0));
      assert.equal(rolled.creditsUsed, 0);
      assert.equal(rolled.periodAnchor, Y, "a roll keeps the anchor");

      // Reading the account (GET /v1/account, the catalog) rolls an ended period too: an idle
      // account never shows last period's balance.
      await spend(created.id, 30);
      clock.set(addMonths(Y, 2) + 1000);
      const caller = await accounts.authenticate((await accounts.createKey(created.id)).key);
      const shown = await accounts.refresh(caller);
      assert.equal(shown.account.creditsUsed, 0);
      assert.equal(shown.account.periodEnd, addMonths(Y, 3));

      // Long idle: the roll jumps to the anniversary after now, still from Y.
      clock.set(Date.UTC(2025, 10, 2));
      const idle = await accounts.ensureCurrentPeriod(await accounts.mustGet(created.id));
      assert.equal(idle.periodEnd, Date.UTC(2025, 10, 30, 15, 0));
    });

    test("a different paid plan starts a new subscription; holds of calls in flight are kept", async () => {
      clock.set(X);
      const a = await accounts.createAccount("switcher", "pro");
      await spend(a.id, 120);
      const inFlight = { id: cryptoIds.id("rsv"), accountId: a.id, amount: 10, createdAt: clock.now() };
      assert.equal((await store.reserve(inFlight)).ok, true);

      const switchedAt = X + 12 * DAY;
      clock.set(switchedAt);
      const team = await accounts.setPlan(a.id, "team");
      assert.equal(team.creditsCap, 50000);
      assert.equal(team.periodAnchor, switchedAt);
      assert.equal(team.periodEnd, addMonths(switchedAt, 1));
      assert.equal(team.creditsUsed, 0);
      assert.equal((await accounts.mustGet(a.id)).creditsReserved, 10, "the hold is not reset");
      assert.equal((await store.release(inFlight))?.creditsReserved, 0);
    });

    test("paid to free puts back what the grant had used and clears the period; free again changes nothing", async () => {
      clock.set(X);
      const a = await accounts.createAccount("downgrader");
      await spend(a.id, 400);
      clock.set(Y);
      await accounts.setPlan(a.id, "pro");
      await spend(a.id, 900);

      clock.set(Y + 5 * DAY);
      const free = await accounts.setPlan(a.id, "free");
      assert.equal(free.planId, "free");
      assert.equal(free.status, "free");
      assert.equal(free.cadence, null);
      assert.equal(free.creditsCap, 1000);
      // The grant had 400 used before the paid plan; the paid period's 900 were paid credits.
      assert.equal(free.creditsUsed, 400, "the one-time grant is not given again, nor charged for paid use");
      assert.equal(free.periodEnd, null);
      assert.equal(free.periodAnchor, null);
      clock.set(Y + 400 * DAY);
      assert.equal((await accounts.ensureCurrentPeriod(free)).creditsUsed, 400, "a grant given once never rolls");
      assert.deepEqual(await accounts.setPlan(a.id, "free"), free);
    });

    test("an account stored without an anchor rolls on its creation's anniversaries", async () => {
      clock.set(X);
      const a = await accounts.createAccount("legacy", "pro");
      await store.updateAccount(a.id, { periodAnchor: null });
      await spend(a.id, 5);
      clock.set(addMonths(X, 1) + 1);
      const rolled = await accounts.ensureCurrentPeriod(await accounts.mustGet(a.id));
      assert.equal(rolled.periodEnd, addMonths(X, 2));
      assert.equal(rolled.creditsUsed, 0);
    });
  });
}

suite("AccountService on the embedded store", () => openTestStore(true));
if (usePostgres()) suite("AccountService on PostgreSQL", () => openTestStore());
