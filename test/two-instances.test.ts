/**
 * Two Quarry instances sharing one PostgreSQL and one Redis: a session made on one is followed up on
 * the other, the rate limit holds across both, and credits stay exact. Needs DATABASE_URL and REDIS_URL.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Harness, openTestStore, startHarness } from "./helpers/harness.ts";
import { startReplay, type ReplayServer } from "../src/replay/replay-server.ts";
import type { Store } from "../src/store/types.ts";

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const PLANS = JSON.stringify([
  { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 10, capabilities: "*" },
  { id: "tiny", name: "Tiny", credits: 20, period: "once", rateLimitPerMinute: 1000, capabilities: "*" },
]);

describe("two instances on shared PostgreSQL and Redis", { skip: shared ? false : "DATABASE_URL and REDIS_URL not set" }, () => {
  let a: Harness;
  let b: Harness;
  let replay: ReplayServer;
  let store: { store: Store; cleanup: () => Promise<void> };

  before(async () => {
    replay = await startReplay();
    store = await openTestStore();
    a = await startHarness({ store: store.store, replay, env: { QUARRY_PLANS: PLANS } });
    b = await startHarness({ store: store.store, replay, env: { QUARRY_PLANS: PLANS } });
  });
  after(async () => {
    await a.close();
    await b.close();
    await store.cleanup();
    await replay.close();
  });

  test("a session made on one instance is followed up on the other", async () => {
    const { key } = await a.account();
    const ex = await a.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { category: "Seafood", num: 10 } });
    assert.equal(ex.status, 200);
    const more = await b.call("POST", "/v1/follow-up", { key, body: { search_id: ex.body.search_id, action: "more" } });
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.search_id, ex.body.search_id);
    const ids = new Set([...ex.body.results, ...more.body.results].map((r: { record_id: string }) => r.record_id));
    assert.equal(ids.size, 20);
    const one = await a.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { query: "Salmon Prawn Risotto" } });
    const det = await b.call("POST", "/v1/follow-up", { key, body: { record_id: one.body.results[0].record_id, action: "details" } });
    assert.equal(det.status, 200, JSON.stringify(det.body));
  });

  test("the rate limit holds across both instances", async () => {
    const { key } = await a.account();
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await (i % 2 ? a : b).call("GET", "/v1/account", { key })).status);
    assert.deepEqual(statuses.slice(0, 10), Array(10).fill(200));
    assert.deepEqual(statuses.slice(10), [429, 429]);
  });

  test("concurrent billed calls across both instances never pass the cap", async () => {
    const { key, accountId } = await a.account("tiny"); // 20 credits: five 4-credit quotes
    const calls = Array.from({ length: 16 }, (_, i) =>
      (i % 2 ? a : b).call("POST", "/v1/capabilities/markets.quote/execute", { key, body: { symbol: "GOOGL:NASDAQ" } }),
    );
    const results = await Promise.all(calls);
    assert.equal(results.filter((r) => r.status === 200).length, 5);
    assert.equal(results.filter((r) => r.status === 402).length, 11);
    const account = await store.store.getAccount(accountId);
    assert.equal(account!.creditsUsed, 20);
    assert.equal(await store.store.ledgerTotal(accountId), 20);
  });
});
