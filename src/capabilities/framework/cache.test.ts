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
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 2 });
  assert.equal(indexes.loadedAt("i"), 10);
  now = 20;
  fail = true;
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 2 });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(await indexes.get("i", { refreshMs: 10 }, load), { version: 2 }, "a failed refresh keeps the old index");
  assert.deepEqual(failures, ["i"]);
});
