/**
 * Two Quarry instances sharing one PostgreSQL and one Redis: a session made on one is followed up on
 * the other, the rate limit holds across both, and credits stay exact. Needs DATABASE_URL and REDIS_URL.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type Harness, openTestStore, startHarness } from "./helpers/harness.ts";
import { startReplay, type ReplayServer } from "../src/demo/replay/replay-server.ts";
import type { Store } from "../src/store/types.ts";

const shared = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
const PLANS = JSON.stringify([
  { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 10, capabilities: "*" },
  { id: "tiny", name: "Tiny", credits: 20, period: "once", rateLimitPerMinute: 1000, capabilities: "*" },
  { id: "roomy", name: "Roomy", credits: 100000, period: "once", rateLimitPerMinute: 1000, capabilities: "*" },
]);

type Result = { record_id: string; title?: string };

describe("two instances share Quarry's answer cache through Redis", { skip: shared ? false : "DATABASE_URL and REDIS_URL not set" }, () => {
  test("the second instance's identical execute is answered from the shared cache: no provider call, free", async () => {
    const replay = await startReplay();
    const db = await openTestStore();
    const env = { QUARRY_PLANS: PLANS, ANSWER_CACHE: "on" };
    const one = await startHarness({ store: db.store, replay, env });
    const two = await startHarness({ store: db.store, replay, env });
    try {
      const { key } = await one.account("roomy");
      const body = { query: "apple inc" };
      const from = replay.requests.length;
      const first = await one.call("POST", "/v1/capabilities/web.search/execute", { key, body });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.charged_credits, 1);
      const second = await two.call("POST", "/v1/capabilities/web.search/execute", { key, body });
      assert.equal(second.status, 200, second.text);
      assert.equal(second.body.charged_credits, 0);
      assert.match(second.body.notes.at(-1), /^Answered from Quarry's cache of an identical provider request/);
      assert.equal(replay.requests.slice(from).filter((r) => r.prefix === "serper").length, 1, "one provider call for both instances");
    } finally {
      await one.close();
      await two.close();
      await db.cleanup();
      await replay.close();
    }
  });
});

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

  // Follow-ups on one search are serialized per process; across instances they meet at the commit's
  // compare-and-set on the session's state, and the loser runs again from what is stored now.
  test("concurrent more on one search from both instances: every page is its own, none fails", async () => {
    const { key } = await a.account("roomy");
    const ex = await a.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { category: "Seafood", num: 1 } });
    assert.equal(ex.status, 200);
    const pages = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).call("POST", "/v1/follow-up", { key, body: { search_id: ex.body.search_id, action: "more" } }),
      ),
    );
    for (const p of pages) assert.equal(p.status, 200, JSON.stringify(p.body));
    const ids = pages.map((p) => (p.body.results as Result[])[0]!.record_id);
    assert.equal(new Set([ex.body.results[0].record_id, ...ids]).size, 11, "eleven different records, none served twice");
  });

  test("concurrent more on a provider-paged search from both instances: both answered, the session stays usable", async () => {
    const { key } = await a.account("roomy");
    // Three items a page: three rounds of two pages stay inside the recording (items 0-24).
    const ex = await a.call("POST", "/v1/capabilities/music.search/execute", { key, body: { query: "Daft Punk", kind: "album", num: 3 } });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    for (let round = 0; round < 3; round++) {
      const both = await Promise.all(
        [a, b].map((h) => h.call("POST", "/v1/follow-up", { key, body: { search_id: ex.body.search_id, action: "more" } })),
      );
      for (const r of both) assert.equal(r.status, 200, JSON.stringify(r.body));
      const [x, y] = both.map((r) => (r.body.results as Result[]).map((res) => res.record_id));
      assert.equal(new Set([...x!, ...y!]).size, x!.length + y!.length, "two different slices");
    }
  });

  test("a more that read the state before another instance's update committed does not write it back", async () => {
    // Instance c is b with its commits of `more` held until A's update has been answered: c reads
    // the session, then A's update commits, then c's commit comes (the order that left sessions
    // unable to update).
    let holdMore = false;
    let letGo = () => {};
    const gate = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let atGate = () => {};
    const reachedGate = new Promise<void>((resolve) => {
      atGate = resolve;
    });
    const held = new Proxy(store.store, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (typeof value !== "function") return value;
        if (prop !== "commit") return value.bind(target);
        return async (op: Parameters<Store["commit"]>[0]) => {
          if (holdMore && op.ledger.operation === "more") {
            atGate();
            await gate;
          }
          return target.commit(op);
        };
      },
    }) as Store;
    const c = await startHarness({ store: held, replay, env: { QUARRY_PLANS: PLANS } });
    try {
      const { key } = await a.account("roomy");
      const ex = await a.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { category: "Seafood", num: 1 } });
      assert.equal(ex.status, 200);
      const id = ex.body.search_id;
      holdMore = true;
      const more = c.call("POST", "/v1/follow-up", { key, body: { search_id: id, action: "more" } });
      await reachedGate; // c has read the session and is about to commit its page
      const updated = await a.call("POST", "/v1/follow-up", { key, body: { search_id: id, action: "update", params: { num: 2 } } });
      letGo();
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      const late = await more;
      holdMore = false;
      assert.equal(late.status, 200, JSON.stringify(late.body));
      assert.equal(late.body.results.length, 2, "the more ran again on the updated search (2 a page)");
      const again = await b.call("POST", "/v1/follow-up", { key, body: { search_id: id, action: "update", params: { num: 3 } } });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      const next = await a.call("POST", "/v1/follow-up", { key, body: { search_id: id, action: "more" } });
      assert.equal(next.status, 200, JSON.stringify(next.body));
      assert.equal(next.body.results.length, 3);
      const seen = [...again.body.results, ...next.body.results].map((r: Result) => r.record_id);
      assert.equal(new Set(seen).size, 6);
    } finally {
      letGo();
      await c.close();
    }
  });

  test("the same record action on both instances at once: fetched for one, served from the cache for the other", async () => {
    const { key } = await a.account("roomy");
    const ex = await a.call("POST", "/v1/capabilities/academic.search/execute", { key, body: { query: "state of open access" } });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const action = { record_id: ex.body.results[0].record_id, action: "details" };
    replay.setFault("openalex", { kind: "latency", ms: 200, times: 2 });
    const both = await Promise.all([a, b].map((h) => h.call("POST", "/v1/follow-up", { key, body: action })));
    for (const r of both) assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(both.map((r) => r.body.cached).sort(), [false, true]);
    assert.deepEqual(both[0]!.body.detail, both[1]!.body.detail);
  });
});
