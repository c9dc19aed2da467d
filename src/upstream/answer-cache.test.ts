// Quarry's answer cache: identical requests within the time to live answered from memory (counted
// as hits), single flight for concurrent ones, a fresh request bypassing it, errors never stored,
// keys that tell requests and configured keys apart, and the memory bound.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Type } from "@sinclair/typebox";
import { AnswerCache, answerKey, CallCacheWatch, describeAge, MemoryAnswerStore } from "./answer-cache.ts";
import type { UpstreamClient, UpstreamRequest, UpstreamResponse } from "./types.ts";

const req = (q: string, extra: Partial<UpstreamRequest> = {}): UpstreamRequest =>
  ({ provider: "serpapi", method: "GET", path: "/search.json", query: { engine: "google", q }, response: Type.Unknown(), ...extra }) as UpstreamRequest;

/** A provider that answers after `delayMs`, counting calls; `fail` makes it throw. */
function provider(delayMs = 0) {
  const state = { calls: 0, fail: false };
  const client: UpstreamClient = {
    send: (async (r: UpstreamRequest): Promise<UpstreamResponse> => {
      state.calls++;
      await new Promise((res) => setTimeout(res, delayMs));
      if (state.fail) throw new Error("provider down");
      const body = { q: r.query?.q, n: state.calls };
      return { status: 200, headers: { "content-type": "application/json", "x-other": "dropped" }, body, text: JSON.stringify(body) };
    }) as UpstreamClient["send"],
    hasKey: () => true,
    close: async () => {},
  };
  return { client, state };
}

test("an identical request within the time to live is a hit: no provider call, the same body, its age", async () => {
  let now = 1_000_000;
  const cache = new AnswerCache(new MemoryAnswerStore(), () => "k1", async (k) => k, () => now);
  const { client, state } = provider();
  const first = new CallCacheWatch();
  const a = await cache.client(client, 60_000, first).send(req("espresso"), AbortSignal.timeout(1000));
  assert.equal(state.calls, 1);
  assert.equal(first.allCached, false);
  now += 30_000;
  const second = new CallCacheWatch();
  const b = await cache.client(client, 60_000, second).send(req("espresso"), AbortSignal.timeout(1000));
  assert.equal(state.calls, 1, "answered from the cache");
  assert.deepEqual(b.body, a.body);
  assert.deepEqual(b.cached, { ageMs: 30_000 });
  assert.equal(b.headers["x-other"], undefined, "only the content type (and the replay's demo header) are kept");
  assert.equal(second.allCached, true);
  assert.equal(second.oldestMs, 30_000);
  now += 30_000;
  await cache.client(client, 60_000, new CallCacheWatch()).send(req("espresso"), AbortSignal.timeout(1000));
  assert.equal(state.calls, 2, "past the time to live: asked again");
});

test("another query, another configured key or a fresh request is not served from the cache", async () => {
  let identity = "k1";
  const cache = new AnswerCache(new MemoryAnswerStore(), () => identity);
  const { client, state } = provider();
  const send = (q: string, fresh = false) => cache.client(client, 60_000, new CallCacheWatch(), fresh).send(req(q), AbortSignal.timeout(1000));
  await send("a");
  await send("b");
  assert.equal(state.calls, 2);
  identity = "k2";
  await send("a");
  assert.equal(state.calls, 3, "another key is another cache");
  identity = "k1";
  const fresh = await send("a", true);
  assert.equal(state.calls, 4, "Cache-Control: no-cache asks the provider");
  const after = await send("a");
  assert.deepEqual(after.body, fresh.body, "and its answer replaced the stored one");
});

test("concurrent identical requests wait for one provider call", async () => {
  const cache = new AnswerCache(new MemoryAnswerStore(), () => "k");
  const { client, state } = provider(30);
  const watches = Array.from({ length: 10 }, () => new CallCacheWatch());
  const answers = await Promise.all(watches.map((w) => cache.client(client, 60_000, w).send(req("same"), AbortSignal.timeout(1000))));
  assert.equal(state.calls, 1);
  assert.equal(watches.filter((w) => w.allCached).length, 9, "one call paid, nine served from it");
  assert.ok(answers.every((a) => (a.body as { n: number }).n === 1), "answers.every((a) => (a.body as { n: number }).n === 1)");
});

test("provider errors are never stored; a request that is no search (a token request) is not cached", async () => {
  const cache = new AnswerCache(new MemoryAnswerStore(), () => "k");
  const { client, state } = provider();
  state.fail = true;
  await assert.rejects(cache.client(client, 60_000, new CallCacheWatch()).send(req("x"), AbortSignal.timeout(1000)));
  state.fail = false;
  await cache.client(client, 60_000, new CallCacheWatch()).send(req("x"), AbortSignal.timeout(1000));
  assert.equal(state.calls, 2, "the failure was not cached");
  const token = req("t", { method: "POST", form: { grant_type: "client_credentials" } } as Partial<UpstreamRequest>);
  await cache.client(client, 60_000, new CallCacheWatch()).send(token, AbortSignal.timeout(1000));
  await cache.client(client, 60_000, new CallCacheWatch()).send(token, AbortSignal.timeout(1000));
  assert.equal(state.calls, 4);
});

test("keys: the query's order does not matter; its values, path, body and key identity do", () => {
  const a = answerKey(req("x", { query: { q: "x", engine: "google" } }), "k");
  const b = answerKey(req("x", { query: { engine: "google", q: "x" } }), "k");
  assert.equal(a, b);
  assert.notEqual(answerKey(req("y"), "k"), a);
  assert.notEqual(answerKey(req("x"), "k2"), answerKey(req("x"), "k"));
  assert.notEqual(answerKey(req("x", { body: { page: 2 } }), "k"), answerKey(req("x", { body: { page: 1 } }), "k"));
});

test("the memory level is bounded in entries and bytes; an answer over the entry bound is not kept", async () => {
  const store = new MemoryAnswerStore({ maxEntries: 3, maxBytes: 1_000_000, maxEntryBytes: 100 });
  for (const k of ["a", "b", "c", "d"]) await store.set(k, { status: 200, headers: {}, text: "{}", at: 0 }, 60_000);
  assert.equal(store.size().entries, 3);
  assert.equal(await store.get("a"), undefined, "the least recently used went");
  await store.set("big", { status: 200, headers: {}, text: "x".repeat(101), at: 0 }, 60_000);
  assert.equal(await store.get("big"), undefined);
});

test("ages in words", () => {
  assert.equal(describeAge(12_000), "12 s");
  assert.equal(describeAge(4 * 60_000), "4 min");
  assert.equal(describeAge(3_600_000), "1 h");
  assert.equal(describeAge(15 * 60_000), "15 min");
  assert.equal(describeAge(86_400_000), "1 day");
});
