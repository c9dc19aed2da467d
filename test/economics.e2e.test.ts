/**
 * Economics for the person who hands a key to an agent (issue 41), over HTTP and MCP: free cached
 * repeats (Quarry's answer cache, on each store: identical executes within the time to live make one
 * provider call and the repeat is charged 0 with a note; after it, two calls; `Cache-Control:
 * no-cache` and MCP's `_meta` ask afresh; ten concurrent identical executes make one call; provider
 * errors are not cached; the ledger is the sum of what was charged), and the cost of a concrete body
 * before the call (REST `Quarry-Dry-Run: 1`, MCP inspect with `params`), nothing run, held or charged.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Harness, startHarness, usePostgres } from "./helpers/harness.ts";

let h: Harness;
let key: string;
let accountId: string;

before(async () => {
  h = await startHarness();
  ({ key, accountId } = await h.account("pro"));
});
after(async () => {
  await h.close();
});

const dry = (id: string, body: unknown, k = key) => h.call("POST", `/v1/capabilities/${id}/execute`, { key: k, body, headers: { "quarry-dry-run": "1" } });

describe("the cost before the call", () => {
  test("REST: Quarry-Dry-Run: 1 answers the reservation, calls no provider and charges nothing", async () => {
    const from = h.replay.requests.length;
    const before = (await h.store.getAccount(accountId))!;
    const res = await dry("shopping.search", { query: "espresso machine", num: 25 });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.dry_run, true);
    assert.equal(res.body.capability, "shopping.search");
    assert.ok(res.body.reserved_credits >= 4, `the worst case: ${res.body.reserved_credits}`);
    assert.equal(res.body.typical_credits, 4);
    assert.equal(res.body.fits, true);
    assert.deepEqual(res.body.balance, { used: before.creditsUsed, cap: before.creditsCap, period_end: res.body.balance.period_end });
    assert.match(res.body.notes[0], /Nothing was run, held or charged/);
    assert.equal(h.replay.requests.length, from, "no provider was called");
    const after = (await h.store.getAccount(accountId))!;
    assert.equal(after.creditsUsed, before.creditsUsed);
    assert.equal(after.creditsReserved, 0);
    assert.deepEqual(await h.store.usage(accountId, 0), [], "no ledger row");
  });

  test("REST: the body is checked as execute checks it; a free capability reserves 0", async () => {
    const bad = await dry("web.search", { query: "", num: 99 });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.error.violations.map((v: { path: string }) => v.path).sort(), ["/num", "/query"]);
    const free = await dry("academic.search", { query: "open access" });
    assert.equal(free.status, 200);
    assert.equal(free.body.reserved_credits, 0);
    assert.equal(free.body.fits, true);
    const unknown = await dry("nope.search", {});
    assert.equal(unknown.status, 404);
  });

  test("REST: a key with its own limit: the dry run says whether the reservation fits under it too", async () => {
    const { key: limited } = await h.services.accounts.createKey(accountId, "agent", 3);
    const res = await dry("shopping.search", { query: "espresso machine" }, limited);
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.reserved_credits > 3, "res.body.reserved_credits > 3");
    assert.equal(res.body.fits, false, "the key's limit of 3 does not hold it");
    assert.deepEqual(res.body.key_budget, { limit: 3, used: 0, period_end: res.body.balance.period_end });
    const free = await dry("academic.search", { query: "open access" }, limited);
    assert.equal(free.body.fits, true);
    assert.equal(free.body.key_budget, undefined, "a free call holds nothing: no budget to check");
  });

  test("MCP: inspect with params adds dry_run; bad params point into /params", async () => {
    const client = new Client({ name: "economics-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${h.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    try {
      const plain = (await client.callTool({ name: "inspect", arguments: { id: "web.search" } })) as CallToolResult;
      assert.equal((plain.structuredContent as Record<string, unknown>).dry_run, undefined);
      const priced = (await client.callTool({ name: "inspect", arguments: { id: "web.search", params: { query: "quarry" } } })) as CallToolResult;
      const value = priced.structuredContent as { id: string; dry_run: { reserved_credits: number; fits: boolean } };
      assert.equal(value.id, "web.search");
      assert.equal(value.dry_run.reserved_credits, 1);
      assert.equal(value.dry_run.fits, true);
      const bad = (await client.callTool({ name: "inspect", arguments: { id: "web.search", params: { query: 7 } } })) as CallToolResult;
      assert.equal(bad.isError, true);
      assert.equal((bad.structuredContent as { error: { violations: { path: string }[] } }).error.violations[0]!.path, "/params/query");
    } finally {
      await client.close();
    }
  });
});

const WEB = { query: "apple inc" };
const serperCalls = (h: Harness, from: number) => h.replay.requests.slice(from).filter((r) => r.prefix === "serper").length;

for (const store of ["embedded", ...(usePostgres() ? ["postgres"] : [])] as const) {
  describe(`free cached repeats (${store} store)`, () => {
    let c: Harness;
    let k: string;
    let acct: string;
    const exec = (body: unknown, headers: Record<string, string> = {}, key = k) => c.call("POST", "/v1/capabilities/web.search/execute", { key, body, headers });

    before(async () => {
      c = await startHarness({ env: { ANSWER_CACHE: "on" }, embedded: store === "embedded" });
      ({ key: k, accountId: acct } = await c.account("pro"));
    });
    after(async () => {
      await c.close();
    });

    test("two identical executes within the time to live: one provider call, the second free with the note; after it, two calls", async () => {
      const from = c.replay.requests.length;
      const first = await exec(WEB);
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.charged_credits, 1);
      assert.ok(!(first.body.notes ?? []).some((n: string) => /Quarry's cache/.test(n)), "the first answer is not from the cache");
      c.clock.advance(10 * 60_000);
      const again = await exec(WEB);
      assert.equal(again.status, 200);
      assert.equal(again.body.charged_credits, 0);
      assert.match(again.body.notes.at(-1), /^Answered from Quarry's cache of an identical provider request made 10 min ago; no credits were charged\./);
      assert.deepEqual(again.body.results.map((r: { title: string }) => r.title), first.body.results.map((r: { title: string }) => r.title));
      assert.notEqual(again.body.search_id, first.body.search_id, "a search of its own, its records its own");
      assert.equal(serperCalls(c, from), 1);
      // Its paging still works from the cached page (the cursor is the provider's, kept in its session).
      const more = await c.call("POST", "/v1/follow-up", { key: k, body: { search_id: again.body.search_id, action: "more" } });
      assert.ok(more.status === 200 || more.status === 502, more.text);
      c.clock.advance(60 * 60_000);
      const later = await exec(WEB);
      assert.equal(later.body.charged_credits, 1, "past the hour: asked and billed again");
    });

    test("Cache-Control: no-cache asks the provider and is billed; an MCP call with quarry/fresh too", async () => {
      const from = c.replay.requests.length;
      const fresh = await exec(WEB, { "cache-control": "no-cache" });
      assert.equal(fresh.status, 200);
      assert.equal(fresh.body.charged_credits, 1);
      assert.equal(serperCalls(c, from), 1);
      const client = new Client({ name: "economics-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${c.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${k}` } } }));
      try {
        const cached = (await client.callTool({ name: "execute", arguments: { capability: "web.search", params: WEB } })) as CallToolResult;
        assert.equal((cached.structuredContent as { charged_credits: number }).charged_credits, 0);
        const asked = (await client.callTool({ name: "execute", arguments: { capability: "web.search", params: WEB }, _meta: { "quarry/fresh": true } })) as CallToolResult;
        assert.equal((asked.structuredContent as { charged_credits: number }).charged_credits, 1);
      } finally {
        await client.close();
      }
      assert.equal(serperCalls(c, from), 2);
    });

    test("ten concurrent identical executes make one provider call; one is charged", async () => {
      c.clock.advance(2 * 60 * 60_000);
      const from = c.replay.requests.length;
      c.replay.setFault("serper", { kind: "latency", ms: 150, times: 1 });
      const all = await Promise.all(Array.from({ length: 10 }, () => exec(WEB)));
      assert.ok(all.every((r) => r.status === 200), all.map((r) => r.status).join(","));
      assert.equal(serperCalls(c, from), 1);
      assert.deepEqual(all.map((r) => r.body.charged_credits).sort(), [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]);
    });

    test("a provider error is not cached: the next identical request asks again", async () => {
      c.clock.advance(2 * 60 * 60_000);
      const body = { query: "apple inc", num: 10 };
      const from = c.replay.requests.length;
      c.replay.setFault("serper", { kind: "status", status: 503 });
      try {
        const failed = await exec(body);
        assert.equal(failed.status, 502);
      } finally {
        c.replay.setFault("serper", null);
      }
      const ok = await exec(body);
      assert.equal(ok.status, 200);
      assert.equal(ok.body.charged_credits, 1, "asked afresh, not answered from a cached failure");
      assert.ok(serperCalls(c, from) >= 2, "serperCalls(c, from) >= 2");
    });

    test("the ledger is the sum of what was charged", async () => {
      const account = (await c.store.getAccount(acct))!;
      assert.equal(await c.store.ledgerTotal(acct), account.creditsUsed);
    });
  });
}
