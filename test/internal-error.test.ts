/**
 * A fault inside Quarry (here: the store failing in an unexpected way while committing) answers
 * 500 internal_error in the envelope, retryable, with nothing charged and nothing held.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Store } from "../src/store/types.ts";
import { openTestStore, startHarness } from "./helpers/harness.ts";

test("an unexpected store failure is 500 internal_error, charges nothing and releases the hold", async () => {
  const { store, cleanup } = await openTestStore(true);
  let failCommits = true;
  // Every method passes through except commit, which fails like a bug would (a plain Error).
  const faulty = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === "commit" && failCommits) return async () => Promise.reject(new Error("unexpected"));
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Store;
  const h = await startHarness({ store: faulty });
  try {
    const { key, accountId } = await h.account();
    const res = await h.call("POST", "/v1/capabilities/markets.quote/execute", { key, body: { symbol: "GOOGL:NASDAQ" } });
    assert.equal(res.status, 500);
    assert.equal(res.body.error.code, "internal_error");
    assert.equal(res.body.error.retryable, true);
    assert.match(res.body.error.requestId, /^req_/);
    assert.doesNotMatch(res.text, /unexpected/, "internal details are not leaked");
    const account = await store.getAccount(accountId);
    assert.equal(account!.creditsUsed, 0);
    assert.equal(account!.creditsReserved, 0, "the reservation was released");
    failCommits = false;
    const ok = await h.call("POST", "/v1/capabilities/markets.quote/execute", { key, body: { symbol: "GOOGL:NASDAQ" } });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.balance.used, 4);
  } finally {
    await h.close();
    await cleanup();
  }
});
