/**
 * Upstream faults end to end: each fault of the replay upstream maps to its spec code over HTTP
 * within the capability's deadline plus a small margin, charges 0, writes no ledger row (so no
 * session: sessions commit in the same transaction as the ledger row), and the service keeps
 * serving other capabilities meanwhile. The capability under test is markets.quote (billed) with
 * its deadline shortened in a copy of the registry so a hang is observable quickly.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { registry } from "../src/capabilities/registry.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

const DEADLINE_MS = 800;
const MARGIN_MS = 700;

let h: Harness;
let key: string;
let accountId: string;

before(async () => {
  const fast = { ...registry, "markets.quote": { ...registry["markets.quote"]!, deadlineMs: DEADLINE_MS } };
  h = await startHarness({
    registry: fast,
    env: {
      QUARRY_PLANS: JSON.stringify([{ id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 100000, capabilities: "*" }]),
      // Each fault is observed on its own here; the breaker has its own test below.
      UPSTREAM_BREAKER_THRESHOLD: "1000",
    },
  });
  ({ key, accountId } = await h.account());
});
after(async () => {
  h.replay.setFault("serpapi", null);
  await h.close();
});

const quote = () => h.call("POST", "/v1/capabilities/markets.quote/execute", { key, body: { symbol: "GOOGL:NASDAQ" } });

async function assertNothingCharged(): Promise<void> {
  const account = await h.store.getAccount(accountId);
  assert.equal(account!.creditsUsed, 0);
  assert.equal(account!.creditsReserved, 0);
  assert.equal(await h.store.ledgerTotal(accountId), 0);
  assert.deepEqual(await h.store.usage(accountId, 0), []);
}

describe("each upstream fault maps to its code, in time, free", () => {
  const cases = [
    { name: "hang past the deadline", fault: { kind: "hang" }, status: 504, code: "provider_timeout" },
    { name: "latency past the deadline", fault: { kind: "latency", ms: DEADLINE_MS + 1000 }, status: 504, code: "provider_timeout" },
    { name: "connection reset", fault: { kind: "reset" }, status: 502, code: "provider_error" },
    { name: "truncated body", fault: { kind: "truncate" }, status: 502, code: "provider_error" },
    { name: "HTTP 500", fault: { kind: "status", status: 500 }, status: 502, code: "provider_error" },
    { name: "invalid JSON", fault: { kind: "invalid_json" }, status: 502, code: "provider_error" },
    { name: "oversized body", fault: { kind: "oversized", bytes: 9 * 1024 * 1024 }, status: 502, code: "provider_error" },
  ] as const;
  for (const c of cases) {
    test(c.name, async () => {
      h.replay.setFault("serpapi", c.fault);
      try {
        const started = Date.now();
        const res = await quote();
        const elapsed = Date.now() - started;
        assert.equal(res.status, c.status, JSON.stringify(res.body));
        assert.equal(res.body.error.code, c.code);
        assert.equal(res.body.error.retryable, true);
        assert.ok(res.body.error.hint, "a hint says what to do");
        assert.ok(elapsed < DEADLINE_MS + MARGIN_MS, `answered in ${elapsed} ms`);
      } finally {
        h.replay.setFault("serpapi", null);
      }
      await assertNothingCharged();
    });
  }
});

test("a provider's 429: 502 retryable with its wait in the hint and Retry-After, free; the wait is kept for every caller", async () => {
  // A harness of its own: the provider's wait holds for every later call of that instance.
  const other = await startHarness({ replay: h.replay, env: { UPSTREAM_BREAKER_THRESHOLD: "1000" } });
  try {
    const a = await other.account();
    const b = await other.account();
    const call = (k: string) => other.call("POST", "/v1/capabilities/markets.quote/execute", { key: k, body: { symbol: "GOOGL:NASDAQ" } });
    h.replay.setFault("serpapi", { kind: "rate_limit", retryAfterSeconds: 20 });
    const started = Date.now();
    const limited = await call(a.key);
    h.replay.setFault("serpapi", null);
    assert.ok(Date.now() - started < 1000, "a long wait is not slept on within the call");
    assert.equal(limited.status, 502, JSON.stringify(limited.body));
    assert.equal(limited.body.error.code, "provider_error");
    assert.equal(limited.body.error.retryable, true);
    assert.match(limited.body.error.message, /SerpApi is rate limiting this deployment \(HTTP 429\) and asks to wait 20 s/);
    assert.match(limited.body.error.hint, /Retry after 20 s/);
    assert.equal(limited.headers.get("retry-after"), "20");
    const before = h.replay.requests.length;
    const kept = await call(b.key);
    assert.equal(kept.status, 502);
    assert.equal(kept.body.error.retryable, true);
    assert.match(kept.body.error.message, /asked this deployment to wait/);
    assert.equal(h.replay.requests.length, before, "another caller's call does not reach the provider while its wait lasts");
    for (const acct of [a, b]) assert.equal((await other.store.getAccount(acct.accountId))!.creditsUsed, 0);
  } finally {
    h.replay.setFault("serpapi", null);
    await other.close();
  }
});

test("other capabilities keep serving while one provider hangs", async () => {
  h.replay.setFault("serpapi", { kind: "hang" });
  try {
    const hung = Array.from({ length: 10 }, () => quote());
    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const res = await h.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { query: "Salmon Prawn Risotto" } });
      assert.equal(res.status, 200);
    }
    assert.ok(Date.now() - started < DEADLINE_MS, "served while the other provider hangs");
    for (const res of await Promise.all(hung)) assert.equal(res.body.error.code, "provider_timeout");
  } finally {
    h.replay.setFault("serpapi", null);
  }
  const account = await h.store.getAccount(accountId);
  assert.equal(account!.creditsUsed, 0);
  assert.equal(account!.creditsReserved, 0);
});

test("a dead provider trips its breaker: later calls fail fast with a retryable 502 and a hint, for free", async () => {
  const other = await startHarness({
    replay: h.replay,
    env: { UPSTREAM_BREAKER_THRESHOLD: "3", UPSTREAM_BREAKER_HALF_OPEN_MS: "400", UPSTREAM_MAX_RETRIES: "0" },
  });
  try {
    const acct = await other.account();
    const call = () => other.call("POST", "/v1/capabilities/markets.quote/execute", { key: acct.key, body: { symbol: "GOOGL:NASDAQ" } });
    h.replay.setFault("serpapi", { kind: "status", status: 503 });
    for (let i = 0; i < 3; i++) assert.equal((await call()).body.error.code, "provider_error");
    const before = h.replay.requests.length;
    const started = Date.now();
    const fast = await call();
    assert.equal(fast.status, 502);
    assert.equal(fast.body.error.retryable, true);
    assert.match(fast.body.error.hint, /try again in about 1 s/);
    assert.ok(Date.now() - started < 100, "fails fast");
    assert.equal(h.replay.requests.length, before, "no call while the breaker is open");
    h.replay.setFault("serpapi", null);
    await new Promise((r) => setTimeout(r, 450));
    const recovered = await call();
    assert.equal(recovered.status, 200, "a trial call after the cool-down closes the breaker");
    assert.equal(await other.store.ledgerTotal(acct.accountId), 4);
  } finally {
    h.replay.setFault("serpapi", null);
    await other.close();
  }
});

test("after the provider recovers, calls succeed and are charged once", async () => {
  const res = await quote();
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.charged_credits, 4);
  assert.equal(await h.store.ledgerTotal(accountId), 4);
});
