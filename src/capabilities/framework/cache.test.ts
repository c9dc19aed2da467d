// The bounded cache (LRU by entries, TTL, one load per key at a time) and loaded indexes (background
// refresh, the old index kept when a refresh fails).
import assert from "node:assert/strict";
import { test } from "node:test";
import { createBoundedCache, createIndexes } from "./cache.ts";

test("cache: one load per key at a time, served until the TTL, bounded by entries", async () => {
  let now = 0;
  const cache = createBoundedCache(2, () => now);
  let loads = 0;
  const load = async () => {
    loads++;
    await new Promise((r) => setTimeout(r, 5));
    return { n: loads };
  };
  const [a, b] = await Promise.all([cache.getOrLoad("ns", "k", { ttlMs: 100 }, load), cache.getOrLoad("ns", "k", { ttlMs: 100 }, load)]);
  assert.equal(loads, 1);
  assert.equal(a, b);
  assert.equal(await cache.getOrLoad("ns", "k", { ttlMs: 100 }, load), a);
  now = 100;
  assert.deepEqual(await cache.getOrLoad("ns", "k", { ttlMs: 100 }, load), { n: 2 }, "expired: loaded again");
  await cache.getOrLoad("ns", "x", { ttlMs: 100 }, load);
  await cache.getOrLoad("ns", "y", { ttlMs: 100 }, load);
  await cache.getOrLoad("ns", "k", { ttlMs: 100 }, load);
  assert.equal(loads, 5, "k was evicted by two newer entries");
  await assert.rejects(cache.getOrLoad("ns", "bad", { ttlMs: 100 }, async () => Promise.reject(new Error("no"))));
  assert.deepEqual(await cache.getOrLoad("ns", "bad", { ttlMs: 100 }, async () => ({ ok: true })), { ok: true }, "a failed load is not cached");
});

test("indexes: loaded once, refreshed in the background after refreshMs, kept when a refresh fails", async () => {
  let now = 0;
  const failures: string[] = [];
  const indexes = createIndexes(() => now, (name) => failures.push(name));
  let version = 0;
  let fail = false;
  const load = async () => {
    if (fail) throw new Error("down");
    return { version: ++version };
  };
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 1 });
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 1 });
  now = 10;
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 1 }, "served the current one while refreshing");
  await indexes.settled("i");
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 2 });
  assert.equal(indexes.loadedAt("i"), 10);
  now = 20;
  fail = true;
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 2 });
  await indexes.settled("i");
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 2 }, "a failed refresh keeps the old index");
  assert.deepEqual(failures, ["i"]);
});

test("indexes: after a failed refresh the next one waits retryAfterFailureMs, not every use", async () => {
  let now = 0;
  const failures: string[] = [];
  const indexes = createIndexes(() => now, (name) => failures.push(name));
  let loads = 0;
  let fail = false;
  const load = async () => {
    loads++;
    if (fail) throw new Error("down");
    return { loads };
  };
  const options = { refreshMs: 100, retryAfterFailureMs: 30 };
  await indexes.get("i", options, load);
  now = 100;
  fail = true;
  await indexes.get("i", options, load);
  await indexes.settled("i");
  assert.equal(loads, 2);
  now = 129;
  await indexes.get("i", options, load);
  await indexes.settled("i");
  assert.equal(loads, 2, "within the retry wait: no new refresh");
  now = 130;
  fail = false;
  await indexes.get("i", options, load);
  await indexes.settled("i");
  assert.equal(loads, 3, "after it: refreshed again");
  assert.deepEqual(await indexes.get("i", options, load), { loads: 3 });
  assert.deepEqual(failures, ["i"]);
});

test("indexes: settled waits for the running load, whatever its outcome, and resolves at once when none runs", async () => {
  let now = 0;
  const indexes = createIndexes(() => now, () => undefined);
  await indexes.settled("none");
  let release!: () => void;
  let failNext = false;
  const load = () =>
    new Promise<{ at: number }>((resolve, reject) => {
      release = () => (failNext ? reject(new Error("down")) : resolve({ at: now }));
    });
  const first = indexes.get("i", { refreshMs: 10 }, load);
  let done = false;
  const waiting = indexes.settled("i").then(() => (done = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(done, false, "the first load is still running");
  release();
  await waiting;
  assert.deepEqual(await first, { at: 0 });
  assert.equal(indexes.loadedAt("i"), 0);
  now = 10;
  failNext = true;
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { at: 0 });
  const refreshed = indexes.settled("i");
  release();
  await refreshed;
  assert.equal(indexes.loadedAt("i"), 0, "a failed refresh keeps the loaded index");
});
