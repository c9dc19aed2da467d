/**
 * Budgets per key (issue 41, item 2), over real HTTP against the replay upstream: a key with its own
 * credit limit per period is refused 402 once a call would take it past the limit, while the
 * account's other keys go on; the refusal costs nothing and says it was the key's limit; raising the
 * limit lets the key through again. Then, on PostgreSQL (skipped without DATABASE_URL), two
 * instances on one database race many calls with one key near its limit: its use never passes the
 * limit and the ledger's rows of the key sum to its use.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { keyUse } from "../src/accounts/accounts.ts";
import { randomBase62 } from "../src/ids.ts";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { PostgresStore } from "../src/store/postgres/store.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

const READ = "/v1/capabilities/web.read/execute";
const ARTICLE = "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/";
const QUOTE = "/v1/capabilities/markets.quote/execute";
/** A fresh answer from the provider each time (not Quarry's cache of it), billed as usual. */
const FRESH = { "cache-control": "no-cache" };

describe("a key's own credit limit over HTTP", () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  test("a read within the limit succeeds, the next one is refused 402 naming the key's limit; other keys go on; raising it lets it through", async () => {
    const { key: other, accountId } = await h.account("pro");
    const { key, row } = await h.services.accounts.createKey(accountId, "agent", 5);
    assert.equal(row.creditLimit, 5);

    const first = await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.body.charged_credits, 5, "web.read costs 5 credits a page");

    const refused = await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(refused.status, 402, refused.text);
    const error = refused.body.error;
    assert.equal(error.code, "credits_exhausted");
    assert.equal(error.retryable, false);
    assert.match(error.message, /key's own limit refused the call, not the account's cap/);
    assert.match(error.hint, /^This key's limit is 5 credits per period; 5 are used or held\. Raise it in the dashboard \(Keys & apps\) or with `quarry keys limit`\./);
    assert.match(error.hint, /starts again from 0 at \d{4}-\d\d-\d\dT/, "a paid plan's period: when the key's use resets");

    // Nothing charged for the refusal, nothing left held.
    const account = (await h.store.getAccount(accountId))!;
    assert.equal(account.creditsUsed, 5);
    assert.equal(account.creditsReserved, 0);
    assert.equal(await h.store.ledgerTotal(accountId), 5);
    const stored = (await h.store.getKey(row.id))!;
    assert.deepEqual([keyUse(stored, account), stored.creditsReserved], [5, 0]);

    // The account's other key (no limit of its own) still has the account's room.
    const theOther = await h.call("POST", READ, { key: other, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(theOther.status, 200, theOther.text);
    assert.equal(theOther.body.balance.used, 10, "the account's balance counts both keys");

    // Raised through the service (what `quarry keys limit` and the dashboard call): through at once.
    const raised = await h.services.accounts.setKeyLimit(row.id, 10);
    assert.equal(raised.creditLimit, 10);
    assert.equal(raised.creditsUsed, 5, "what it used this period still counts");
    const again = await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.charged_credits, 5);
    assert.equal((await h.store.getKey(row.id))!.creditsUsed, 10);
    const full = await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(full.status, 402, "10 of 10 used");
    assert.match(full.body.error.hint, /limit is 10 credits per period; 10 are used or held/);

    // Removed: the key has only the account's cap again.
    await h.services.accounts.setKeyLimit(row.id, null);
    const free = await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(free.status, 200, free.text);
    assert.equal(await h.store.ledgerTotal(accountId), 20);
  });

  test("the account's cap still applies to a key whose limit is higher; its 402 is the account's", async () => {
    const account = await h.services.accounts.createAccount("capped", "pro");
    await h.services.accounts.update(account.id, { creditsCap: 4 });
    const { key } = await h.services.accounts.createKey(account.id, "roomy", 1000);
    const res = await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH });
    assert.equal(res.status, 402);
    assert.doesNotMatch(res.body.error.message, /key's own limit/);
    assert.match(res.body.error.message, /needs up to 5 credits; 4 are free of 4/);
  });

  test("GET /v1/account shows the calling key's budget when it has a limit, and nothing more otherwise", async () => {
    const { key: plain, accountId } = await h.account("pro");
    const { key, row } = await h.services.accounts.createKey(accountId, "budgeted", 50);
    assert.equal((await h.call("POST", READ, { key, body: { url: ARTICLE }, headers: FRESH })).status, 200);
    const limited = await h.call("GET", "/v1/account", { key });
    assert.equal(limited.status, 200);
    assert.deepEqual(limited.body.key_budget, { limit: 50, used: 5, period_end: limited.body.credits.period_end });
    const unlimited = await h.call("GET", "/v1/account", { key: plain });
    assert.equal(unlimited.status, 200);
    assert.equal("key_budget" in unlimited.body, false);
    await h.services.accounts.setKeyLimit(row.id, null);
    assert.equal("key_budget" in (await h.call("GET", "/v1/account", { key })).body, false);
  });
});

describe("two instances on one PostgreSQL race one key near its limit", { skip: process.env.DATABASE_URL ? false : "DATABASE_URL not set" }, () => {
  const url = process.env.DATABASE_URL ?? "";
  const schema = `kb_${randomBase62(10).toLowerCase()}`;
  const PLANS = JSON.stringify([
    { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 10000, capabilities: "*" },
    { id: "roomy", name: "Roomy", credits: 100000, period: "monthly", rateLimitPerMinute: 10000, capabilities: "*" },
  ]);
  let replay: ReplayServer;
  let stores: PostgresStore[] = [];
  let a: Harness;
  let b: Harness;
  let admin: pg.Client;

  before(async () => {
    replay = await startReplay();
    // Two stores (two pools, two key caches) on one schema: two instances as a deployment runs them.
    stores = [await PostgresStore.open(url, { schema }), await PostgresStore.open(url, { schema })];
    for (const store of stores) await store.migrate();
    a = await startHarness({ store: stores[0]!, replay, env: { QUARRY_PLANS: PLANS } });
    b = await startHarness({ store: stores[1]!, replay, env: { QUARRY_PLANS: PLANS } });
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  after(async () => {
    await a?.close();
    await b?.close();
    for (const store of stores) await store.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).catch(() => undefined);
    await admin?.end();
    await replay?.close();
  });

  /** The ledger's credits of one key, read around the stores. */
  async function ledgerOfKey(keyId: string): Promise<number> {
    const { rows } = await admin.query(`SELECT COALESCE(SUM(credits), 0)::int AS n FROM ${schema}.ledger WHERE key_id = $1`, [keyId]);
    return rows[0].n as number;
  }

  test("many concurrent quotes: the key's use never passes its limit and equals its ledger rows", async () => {
    const account = await a.services.accounts.createAccount("race", "roomy");
    // 4-credit quotes against 22: five fit (20), the sixth would not; one use already counted.
    const { key, row } = await a.services.accounts.createKey(account.id, "racer", 22);
    const { key: sibling } = await b.services.accounts.createKey(account.id, "sibling");
    const calls = Array.from({ length: 24 }, (_, i) =>
      (i % 2 ? a : b).call("POST", QUOTE, { key, body: { symbol: "GOOGL:NASDAQ" }, headers: FRESH }),
    );
    // The sibling key (no limit) runs alongside on the same account rows.
    const siblings = Array.from({ length: 6 }, (_, i) =>
      (i % 2 ? b : a).call("POST", QUOTE, { key: sibling, body: { symbol: "GOOGL:NASDAQ" }, headers: FRESH }),
    );
    const results = await Promise.all(calls);
    const siblingResults = await Promise.all(siblings);
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    assert.equal(ok.length + refused.length, results.length, results.map((r) => `${r.status} ${r.text.slice(0, 120)}`).join("\n"));
    assert.equal(ok.length, 5, "as many as fit under the limit");
    for (const r of refused) assert.match(r.body.error.message, /key's own limit/);
    assert.ok(siblingResults.every((r) => r.status === 200), "the other key is not held back by this key's limit");

    const stored = (await stores[0]!.getKey(row.id))!;
    const after = (await stores[0]!.getAccount(account.id))!;
    const used = keyUse(stored, after);
    assert.ok(used <= 22, `the key used ${used} of 22`);
    assert.equal(used, ok.reduce((n, r) => n + (r.body.charged_credits as number), 0));
    assert.equal(await ledgerOfKey(row.id), used, "the ledger's rows of the key sum to its use");
    assert.equal(stored.creditsReserved, 0, "nothing left held on the key");
    assert.equal(after.creditsReserved, 0, "nor on the account");
    assert.equal(after.creditsUsed, await stores[0]!.ledgerTotal(account.id));

    // Raised on one instance while the other serves: both see it (the other within its key cache's TTL).
    await a.services.accounts.setKeyLimit(row.id, 30);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const more = await Promise.all(
      Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).call("POST", QUOTE, { key, body: { symbol: "GOOGL:NASDAQ" }, headers: FRESH })),
    );
    assert.equal(more.filter((r) => r.status === 200).length, 2, "8 more credits fit under 30");
    const final = (await stores[1]!.getKey(row.id))!;
    assert.equal(keyUse(final, (await stores[1]!.getAccount(account.id))!), 28);
    assert.equal(await ledgerOfKey(row.id), 28);
  });
});
