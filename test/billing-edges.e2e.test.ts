// Billing at its edges, over real HTTP against the replay upstream: a caller that hangs up before
// its answer (REST, MCP, a paced provider's queue), a plan change racing a billed call, and a record
// action whose commit fails. Each would otherwise charge for something the caller never got, or
// take `used` past `cap`.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { registry } from "../src/capabilities/registry.ts";
import type { Capability } from "../src/capabilities/types.ts";
import { ApiError } from "../src/errors.ts";
import type { Store } from "../src/store/types.ts";
import { type Harness, openTestStore, startHarness } from "./helpers/harness.ts";

const QUOTE = "/v1/capabilities/markets.quote/execute";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const logLines: string[] = [];
const sink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    done();
  },
});

let h: Harness;
before(async () => {
  h = await startHarness({ env: { UPSTREAM_MAX_RETRIES: "0" }, logger: { level: "info", stream: sink } });
});
after(async () => {
  await h.close();
});

/** Resolves once the replay upstream has received `count` requests for `prefix` since `from`. */
async function upstreamSeen(prefix: string, from: number, count = 1): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (h.replay.requests.slice(from).filter((r) => r.prefix === prefix).length >= count) return;
    await sleep(10);
  }
  assert.fail(`the upstream never saw ${count} ${prefix} request(s)`);
}

/** POST that the client abandons (closes its socket) once `leave` resolves. */
async function hangUp(path: string, key: string, body: unknown, leave: Promise<unknown>, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  void leave.then(() => controller.abort());
  try {
    const res = await fetch(h.url + path, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    await res.text();
    return res.status;
  } catch {
    return "hung up";
  }
}

/** Wait until `check` holds (the server finishes an abandoned call after the client left). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await sleep(20);
  }
  assert.fail(`never: ${what}`);
}

test("a caller that hangs up before its answer is not charged, and nothing is stored for it", async () => {
  const { key, accountId } = await h.account("free");
  h.replay.setFault("serpapi", { kind: "latency", ms: 400, times: 1 });
  const from = h.replay.requests.length;
  // The caller leaves while the provider request is under way (the latency holds its answer).
  assert.equal(await hangUp(QUOTE, key, { symbol: "GOOGL:NASDAQ" }, upstreamSeen("serpapi", from)), "hung up");
  // The provider's answer arrives ~300 ms after the caller left; the call is then abandoned.
  await eventually(async () => logLines.some((l) => l.includes("abandoned and not charged")), "the abandoned call is logged");
  const account = (await h.store.getAccount(accountId))!;
  assert.equal(account.creditsUsed, 0);
  assert.equal(account.creditsReserved, 0, "the hold is released");
  assert.equal(await h.store.ledgerTotal(accountId), 0);
  assert.deepEqual(await h.store.usage(accountId, 0), [], "no ledger row at all");
  assert.equal(h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi").length, 1, "the request already sent finished");
  // The same call, waited for, is charged as usual.
  const kept = await h.call("POST", QUOTE, { key, body: { symbol: "GOOGL:NASDAQ" } });
  assert.equal(kept.status, 200);
  assert.equal(kept.body.charged_credits, 4);
  assert.equal((await h.store.getAccount(accountId))!.creditsUsed, 4);
});

test("over MCP too: a tools/call whose HTTP request is abandoned is not charged", async () => {
  const { key, accountId } = await h.account("free");
  h.replay.setFault("serpapi", { kind: "latency", ms: 400, times: 1 });
  const call = {
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "execute", arguments: { capability: "markets.quote", params: { symbol: "GOOGL:NASDAQ" } } },
  };
  const seen = logLines.length;
  const from = h.replay.requests.length;
  const leave = upstreamSeen("serpapi", from);
  assert.equal(await hangUp("/mcp", key, call, leave, { accept: "application/json, text/event-stream" }), "hung up");
  await eventually(
    async () => logLines.slice(seen).some((l) => l.includes("abandoned and not charged")),
    "the abandoned tool call is logged",
  );
  assert.equal((await h.store.getAccount(accountId))!.creditsUsed, 0);
  assert.equal((await h.store.getAccount(accountId))!.creditsReserved, 0);
  assert.equal(await h.store.ledgerTotal(accountId), 0);
});

test("callers that went away give up their places in a paced provider's queue (MusicBrainz)", async () => {
  const { key } = await h.account("free");
  // Deezer has no recording of this query (404), so music.search falls back to MusicBrainz, which
  // is paced at one request a second.
  const body = { query: "ミックスナッツ" };
  const from = h.replay.requests.length;
  const musicbrainz = () => h.replay.requests.slice(from).filter((r) => r.prefix === "musicbrainz").length;
  // Four callers at once: the first takes the free turn, three wait; all leave once the first
  // caller's MusicBrainz request has gone out.
  const leave = upstreamSeen("musicbrainz", from);
  await Promise.all([1, 2, 3, 4].map(() => hangUp("/v1/capabilities/music.search/execute", key, body, leave)));
  // A caller that stays, queued behind them: its turn is the next one, not the fourth.
  const started = performance.now();
  const stays = await h.call("POST", "/v1/capabilities/music.search/execute", { key, body });
  const waited = performance.now() - started;
  assert.equal(stays.status, 200, JSON.stringify(stays.body));
  assert.equal(musicbrainz(), 2, "the first caller's request (already sent) and the one that stayed");
  assert.ok(waited < 1_900, `the caller that stayed waited ${Math.round(waited)} ms: behind the ones that left`);
});

test("a plan change while a billed call is in flight never takes used past the cap", async () => {
  const { key, accountId } = await h.account("free");
  const accounts = h.services.accounts;
  // The free grant is used up; the account moves to the paid plan and starts a 4-credit call...
  await accounts.update(accountId, { creditsUsed: 1000 });
  await accounts.setPlan(accountId, "pro");
  h.replay.setFault("serpapi", { kind: "latency", ms: 500, times: 1 });
  const from = h.replay.requests.length;
  const call = h.call("POST", QUOTE, { key, body: { symbol: "GOOGL:NASDAQ" } });
  await upstreamSeen("serpapi", from); // reserved, and waiting on the provider
  // ...and goes back to free while it runs: its used-up grant (1000 of 1000) is restored.
  await accounts.setPlan(accountId, "free");
  const res = await call;
  assert.equal(res.status, 200, "the answer the caller paid nothing for is still delivered");
  assert.equal(res.body.charged_credits, 0, "no room is left under the grant's cap");
  assert.deepEqual(res.body.balance, { used: 1000, cap: 1000, period_end: null });
  const account = (await h.store.getAccount(accountId))!;
  assert.equal(account.creditsUsed, 1000);
  assert.equal(account.creditsReserved, 0);
  const quoteRows = (await h.store.usage(accountId, 0)).filter((u) => u.capability === "markets.quote");
  assert.deepEqual(quoteRows, [{ capability: "markets.quote", operation: "execute", calls: 1, credits: 0 }]);
});

test("a billed record action is one commit: answered with its failure uncharged, or charged and answered", async () => {
  // markets.quote with a billed, fetched action (like the spec's hotels/places `details`).
  const quote = registry["markets.quote"]!;
  const billedDetails: Capability = {
    ...quote,
    actions: {
      details: {
        name: "details",
        description: "fetched, 4 credits",
        mode: "fetched",
        credits: 4,
        maxCredits: () => 4,
        appliesTo: () => true,
        async run() {
          return { detail: { fetched: true }, links: [], credits: 4, costUsd: 0.004 };
        },
      },
    },
  };
  const opened = await openTestStore();
  let failActions = false;
  let downAfterAction = false;
  let down = false;
  // The store as it is, except that a commit carrying a record action can be made to fail, or the
  // database can go away right after one has committed.
  const store = new Proxy(opened.store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function") return value;
      return async (...args: unknown[]) => {
        if (down) throw new ApiError("service_unavailable", "The database is not reachable.");
        const op = args[0] as Parameters<Store["commit"]>[0];
        if (prop === "commit" && op.recordAction && failActions) {
          throw new ApiError("service_unavailable", "The database is not reachable.");
        }
        const result = await value.apply(target, args);
        if (prop === "commit" && op.recordAction && downAfterAction) down = true;
        return result;
      };
    },
  }) as Store;
  const own = await startHarness({ store, replay: h.replay, registry: { ...registry, "markets.quote": billedDetails } });
  try {
    const { key, accountId } = await own.account("free");
    const ex = await own.call("POST", QUOTE, { key, body: { symbol: "GOOGL:NASDAQ" } });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const session = (await own.store.getSession(ex.body.search_id))!;
    const action = { record_id: ex.body.results[0].record_id, action: "details" };
    own.clock.advance(60_000);

    failActions = true;
    const failed = await own.call("POST", "/v1/follow-up", { key, body: action });
    failActions = false;
    assert.equal(failed.status, 503);
    assert.equal((await own.store.getAccount(accountId))!.creditsUsed, 4, "only the execute is charged");
    assert.equal((await own.store.getSession(session.id))!.expiresAt, session.expiresAt, "nothing of the call was written");

    // Committed, then the database goes away: the session's new expiry was part of that commit, so
    // nothing is left to fail and the caller gets what it was charged for.
    downAfterAction = true;
    const served = await own.call("POST", "/v1/follow-up", { key, body: action });
    down = false;
    downAfterAction = false;
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.equal(served.body.charged_credits, 4);
    assert.equal((await own.store.getAccount(accountId))!.creditsUsed, 8);
    assert.ok((await own.store.getSession(session.id))!.expiresAt > session.expiresAt, "the action extended the session");
  } finally {
    await own.close();
    await opened.cleanup();
  }
});
