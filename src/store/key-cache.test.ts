import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { KeyCache, type KeyLookup } from "./key-cache.ts";

function lookup(keyId: string, accountId: string): KeyLookup {
  return {
    key: {
      id: keyId,
      accountId,
      hash: "h",
      hint: "qk_live_ab",
      name: "n",
      createdAt: 0,
      revokedAt: null,
      lastUsedAt: null,
      creditLimit: null,
      creditsUsed: 0,
      creditsReserved: 0,
      usedPeriodEnd: null,
    },
    account: {
      id: accountId,
      name: "a",
      planId: "free",
      status: "free",
      cadence: null,
      creditsUsed: 0,
      creditsReserved: 0,
      creditsCap: 10,
      periodEnd: null,
      periodAnchor: null,
      grantUsed: 0,
      sharpenStage: null,
      createdAt: 0,
    },
  };
}

describe("KeyCache", () => {
  test("an entry lives ttlMs, then is read again", () => {
    let now = 1000;
    const cache = new KeyCache(500, 10, () => now);
    cache.set("h1", lookup("k1", "a1"), cache.begin());
    assert.equal(cache.get("h1")?.key.id, "k1");
    now += 499;
    assert.ok(cache.get("h1"), "cache.get(\"h1\")");
    now += 1;
    assert.equal(cache.get("h1"), undefined);
    assert.equal(cache.size, 0, "the expired entry is dropped");
  });

  test("forgetKey and forgetAccount drop the matching entries only", () => {
    const cache = new KeyCache(60_000);
    cache.set("h1", lookup("k1", "a1"), cache.begin());
    cache.set("h2", lookup("k2", "a1"), cache.begin());
    cache.set("h3", lookup("k3", "a2"), cache.begin());
    cache.forgetKey("k1");
    assert.equal(cache.get("h1"), undefined);
    assert.ok(cache.get("h2"), "cache.get(\"h2\")");
    cache.forgetAccount("a1");
    assert.equal(cache.get("h2"), undefined);
    assert.ok(cache.get("h3"), "cache.get(\"h3\")");
  });

  test("a lookup that started before a change does not cache what it read", () => {
    const cache = new KeyCache(60_000);
    const token = cache.begin();
    cache.forgetKey("k1"); // e.g. a revocation committed while the lookup was reading
    cache.set("h1", lookup("k1", "a1"), token);
    assert.equal(cache.get("h1"), undefined);
    cache.set("h1", lookup("k1", "a1"), cache.begin());
    assert.ok(cache.get("h1"), "cache.get(\"h1\")");
  });

  test("lookup loads once, then serves the cache; a lookup racing a change is not cached", async () => {
    const cache = new KeyCache(60_000);
    let loads = 0;
    const load = async () => {
      loads++;
      return lookup("k1", "a1");
    };
    await cache.lookup("h1", load);
    await cache.lookup("h1", load);
    assert.equal(loads, 1);

    // A revocation starts; a lookup reads the old row while it runs; the old row must not stay.
    let finishWrite!: () => void;
    const write = cache.changing({ keyId: "k1" }, () => new Promise<void>((resolve) => (finishWrite = resolve)));
    const racing = cache.lookup("h1", load);
    finishWrite();
    await write;
    await racing;
    assert.equal(loads, 2, "the entry was forgotten when the change started");
    assert.equal(cache.get("h1"), undefined, "and what the racing lookup read was not kept");
  });

  test("holds at most `max` entries, evicting the oldest", () => {
    const cache = new KeyCache(60_000, 2);
    cache.set("h1", lookup("k1", "a1"), cache.begin());
    cache.set("h2", lookup("k2", "a1"), cache.begin());
    cache.set("h3", lookup("k3", "a1"), cache.begin());
    assert.equal(cache.size, 2);
    assert.equal(cache.get("h1"), undefined);
    assert.ok(cache.get("h2") && cache.get("h3"), "cache.get(\"h2\") && cache.get(\"h3\")");
  });

  test("ttl 0 turns it off; cached rows are frozen", () => {
    const off = new KeyCache(0);
    off.set("h1", lookup("k1", "a1"), off.begin());
    assert.equal(off.get("h1"), undefined);
    const on = new KeyCache(60_000);
    on.set("h1", lookup("k1", "a1"), on.begin());
    const hit = on.get("h1")!;
    assert.throws(() => {
      (hit.account as { creditsUsed: number }).creditsUsed = 5;
    }, TypeError);
  });
});
