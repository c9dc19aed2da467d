/**
 * The dashboard over HTTP, the way a browser without JavaScript uses it: sign-in (rate limited, a new
 * session id, the same answer for an unknown email), CSRF on every state-changing request, keys
 * created (the plaintext once, never stored, logged or shown again) and revoked, Sharpen stage,
 * usage, GET /v1/account with the session (and no other /v1 route), isolation between accounts,
 * security headers, sign-out, and sessions that survive a second instance on the same store.
 * The browser suite (dashboard.browser.test.ts) drives the same pages in Chromium.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { hashKey } from "../src/accounts/accounts.ts";
import { ANONYMOUS_SESSION_TTL_MS, sessionIdHash } from "../src/dashboard/session-store.ts";
import { NEW_SESSIONS_PER_ADDRESS, SESSION_COOKIE } from "../src/dashboard/routes.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { PASSWORD, person, Visitor } from "./helpers/people.ts";

const lines: string[] = [];
const sink = new Writable({
  write(chunk: Buffer, _enc, done) {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    done();
  },
});

let h: Harness;
before(async () => {
  h = await startHarness({ logger: { level: "trace", stream: sink } });
});
after(async () => {
  await h?.close();
});

const KEY_SHAPED = /qk_live_[0-9A-Za-z]{32}/g;

describe("signing in", () => {
  test("pages need a session: a visitor is sent to sign in and back", async () => {
    const v = new Visitor(h.url);
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/usage?x=1"]) {
      const res = await v.get(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.location, `/dashboard/sign-in?next=${encodeURIComponent(path)}`);
    }
    const page = await v.get("/dashboard/sign-in?next=%2Fdashboard%2Fusage");
    assert.equal(page.status, 200);
    assert.match(page.text, /<label for="email">Email<\/label>/);
    assert.match(page.text, /<input type="hidden" name="next" value="\/dashboard\/usage">/);
    // An address elsewhere is never where sign-in leads.
    const evil = await v.get("/dashboard/sign-in?next=https%3A%2F%2Fevil.example");
    assert.doesNotMatch(evil.text, /evil/);
  });

  test("a wrong password and an unknown email get the same answer; the right one signs in with a new session id", async () => {
    const { accountId } = await h.account();
    const email = `${accountId.toLowerCase()}@example.com`;
    await h.services.logins.create(accountId, email, PASSWORD);
    const v = new Visitor(h.url);
    await v.get("/dashboard/sign-in");
    const anonymous = v.cookies.get("quarry_session");
    assert.ok(anonymous, "the sign-in form's session (it holds the CSRF secret)");
    const wrong = await v.post("/dashboard/sign-in", { email, password: "not the password" });
    const unknown = await v.post("/dashboard/sign-in", { email: "nobody@example.com", password: "not the password" });
    assert.equal(wrong.status, 400);
    assert.equal(unknown.status, 400);
    const message = (t: string) => /role="alert">([^<]+)</.exec(t)?.[1];
    assert.equal(message(wrong.text), message(unknown.text));
    assert.match(wrong.text, new RegExp(`value="${email}"`), "the email is kept in the form; the password never is");
    assert.doesNotMatch(wrong.text, /not the password/);
    const ok = await v.post("/dashboard/sign-in", { email: email.toUpperCase(), password: PASSWORD, next: "/dashboard/keys" });
    assert.equal(ok.status, 303);
    assert.equal(ok.location, "/dashboard/keys");
    const signedIn = v.cookies.get("quarry_session");
    assert.ok(signedIn && signedIn !== anonymous, "a new session id at sign-in (no fixation)");
    const cookie = ok.headers.getSetCookie().find((c) => c.startsWith("quarry_session="))!;
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Expires=/i);
    // The id from before sign-in signs nobody in.
    const fixated = new Visitor(h.url);
    fixated.cookies.set("quarry_session", anonymous);
    assert.equal((await fixated.get("/dashboard")).status, 303);
    assert.equal((await h.store.getLogin((await h.store.findLoginByEmail(email))!.id))!.lastSignInAt !== null, true);
  });

  test("sign-in attempts are rate limited per email (the right password included) and per address", async () => {
    const limited = await startHarness({ env: { DASHBOARD_SIGNIN_PER_15_MINUTES: "2" } });
    try {
      const { accountId } = await limited.account();
      const email = `${accountId.toLowerCase()}@example.com`;
      await limited.services.logins.create(accountId, email, PASSWORD);
      const v = new Visitor(limited.url);
      await v.get("/dashboard/sign-in");
      for (let i = 0; i < 2; i++) assert.equal((await v.post("/dashboard/sign-in", { email, password: `guess number ${i}` })).status, 400);
      const refused = await v.post("/dashboard/sign-in", { email, password: PASSWORD });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get("retry-after")) > 0, "Number(refused.headers.get(\"retry-after\")) > 0");
      assert.match(refused.text, /Too many sign-in attempts/);
      // Other emails from the same address: 2 × 5 attempts in all, then refused too.
      const statuses = [];
      for (let i = 0; i < 8; i++) statuses.push((await v.post("/dashboard/sign-in", { email: `other${i}@example.com`, password: "not a password" })).status);
      assert.deepEqual(statuses, [400, 400, 400, 400, 400, 400, 400, 429]);
    } finally {
      await limited.close();
    }
  });

  test("sessions started without signing in last 30 minutes, and an address may start only so many", async () => {
    const own = await startHarness();
    try {
      const v = new Visitor(own.url);
      assert.equal((await v.get("/dashboard/sign-in")).status, 200);
      const cookie = decodeURIComponent(v.cookies.get(SESSION_COOKIE)!);
      const row = await own.store.getWebSession(sessionIdHash(cookie.slice(0, cookie.lastIndexOf("."))));
      assert.ok(row !== null && row.accountId === null, "row !== null && row.accountId === null");
      const left = row.expiresAt - Date.now();
      assert.ok(left > 25 * 60_000 && left <= ANONYMOUS_SESSION_TTL_MS, `${left} ms left`);
      // The same visitor reading the page again starts nothing new.
      for (let i = 0; i < 3; i++) assert.equal((await v.get("/dashboard/sign-in")).status, 200);
      // Cookie-less visits each start one: the address's allowance, then 429 with Retry-After.
      // (The visitor above started the first.)
      const statuses: number[] = [];
      for (let i = 1; i < NEW_SESSIONS_PER_ADDRESS; i++) statuses.push((await fetch(`${own.url}/dashboard/sign-in`)).status);
      assert.deepEqual(new Set(statuses), new Set([200]));
      const refused = await fetch(`${own.url}/dashboard/sign-in`, { redirect: "manual" });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get("retry-after")) > 0, "Number(refused.headers.get(\"retry-after\")) > 0");
      // A visitor who already has a session signs in as before.
      const { accountId } = await own.account();
      const email = `${accountId.toLowerCase()}@example.com`;
      await own.services.logins.create(accountId, email, PASSWORD);
      assert.equal((await v.post("/dashboard/sign-in", { email, password: PASSWORD })).status, 303);
    } finally {
      await own.close();
    }
  });

  test("sign-out ends the session: pages and GET /v1/account refuse its cookie", async () => {
    const { visitor } = await person(h);
    await visitor.get("/dashboard");
    const cookie = visitor.cookieHeader;
    const out = await visitor.post("/dashboard/sign-out");
    assert.equal(out.status, 303);
    assert.equal(out.location, "/dashboard/sign-in?notice=signed-out");
    assert.equal(visitor.cookies.has("quarry_session"), false, "the cookie is cleared");
    const stale = await fetch(`${h.url}/v1/account`, { headers: { cookie } });
    assert.equal(stale.status, 401);
    assert.equal((await fetch(`${h.url}/dashboard`, { headers: { cookie }, redirect: "manual" })).status, 303);
  });

  test("deleting a login (the CLI) ends its sessions", async () => {
    const { visitor, email } = await person(h);
    assert.equal((await visitor.get("/dashboard")).status, 200);
    await h.services.logins.remove(email);
    assert.equal((await visitor.get("/dashboard")).status, 303);
  });

  test("a session outlives its instance: another one on the same store accepts it", async () => {
    const { visitor } = await person(h);
    const second = await startHarness({ store: h.store, replay: h.replay });
    try {
      const res = await fetch(`${second.url}/v1/account`, { headers: { cookie: visitor.cookieHeader } });
      assert.equal(res.status, 200);
    } finally {
      await second.app.close();
      await second.limiter.close();
    }
  });
});

describe("CSRF", () => {
  test("every state-changing request needs the session's token: missing, wrong or another session's is 403", async () => {
    const { visitor, key } = await person(h);
    const other = (await person(h)).visitor;
    await other.get("/dashboard");
    await visitor.get("/dashboard/keys");
    const keyId = (await h.store.findKeyByHash(hashKey(key)))!.key.id;
    const posts: [string, Record<string, string>][] = [
      ["/dashboard/keys", { name: "csrf" }],
      [`/dashboard/keys/${keyId}/revoke`, {}],
      [`/dashboard/keys/${keyId}/limit`, { limit: "5" }],
      ["/dashboard/apps/grant_x/revoke", {}],
      ["/dashboard/sharpen-stage", { stage: "stock" }],
      ["/dashboard/authorize", { decision: "approve" }],
      ["/dashboard/sign-out", {}],
      ["/dashboard/sign-in", { email: "a@example.com", password: "whatever!!" }],
    ];
    for (const [path, fields] of posts) {
      for (const token of [undefined, "forged-token", other.csrf]) {
        const body = new URLSearchParams(token === undefined ? fields : { ...fields, _csrf: token }).toString();
        const res = await visitor.request("POST", path, { body, headers: { "content-type": "application/x-www-form-urlencoded" } });
        assert.equal(res.status, 403, `${path} with ${token === undefined ? "no token" : token === "forged-token" ? "a forged token" : "another session's token"}`);
        assert.match(res.text, /This form has expired/);
      }
    }
    // Nothing happened: the key still works (with no limit of its own), and the person is still signed in.
    assert.equal((await h.call("GET", "/v1/account", { key })).status, 200);
    assert.equal((await h.store.getKey(keyId))!.creditLimit, null);
    assert.equal((await visitor.get("/dashboard")).status, 200);
  });
});

describe("keys", () => {
  test("a key is shown once: it works, it is stored as a hash, and no later page or log line holds it", async () => {
    const { visitor, accountId } = await person(h);
    await visitor.get("/dashboard/keys");
    const created = await visitor.post("/dashboard/keys", { name: "laptop" });
    assert.equal(created.status, 200);
    assert.equal(created.headers.get("cache-control"), "no-store");
    const shown = [...new Set(created.text.match(KEY_SHAPED))];
    assert.equal(shown.length, 1, "one new key on the page");
    const key = shown[0]!;
    // The copy blocks: the key, a curl line, and both MCP host configurations.
    assert.match(created.text, new RegExp(`id="new-key"[^>]*>${key}<`));
    assert.match(created.text, /curl -s http:\/\/127\.0\.0\.1:\d+\/v1\/catalog -H &quot;Authorization: Bearer qk_live_/);
    assert.match(created.text, /&quot;url&quot;: &quot;http:\/\/127\.0\.0\.1:\d+\/mcp&quot;/);
    assert.match(created.text, /\/mcp\/k\/qk_live_/);
    assert.equal((await h.call("GET", "/v1/catalog", { key })).status, 200);

    const row = (await h.store.listKeys(accountId)).find((k) => k.name === "laptop")!;
    assert.equal(row.hash, hashKey(key));
    assert.equal(row.hint, key.slice(0, 12));
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/usage"]) {
      const page = await visitor.get(path);
      assert.equal(page.status, 200);
      assert.ok(!page.text.includes(key), `${path} does not show the key`);
      assert.match(page.headers.get("cache-control") ?? "", /no-store/);
    }
    const keys = await visitor.get("/dashboard/keys");
    assert.match(keys.text, /laptop/);
    assert.match(keys.text, new RegExp(`${row.hint}…`));
    assert.ok(!lines.some((l) => l.includes(key)), "no log line holds the key");
    const session = await h.store.getWebSession((await import("../src/dashboard/session-store.ts")).sessionIdHash(decodeURIComponent(visitor.cookies.get("quarry_session")!).split(".")[0]!));
    assert.ok(session, "the session row exists");
    assert.ok(!JSON.stringify(session).includes(key), "the session does not hold the key");
  });

  test("revoking a key in the dashboard makes it answer 401; another account's key cannot be revoked", async () => {
    const owner = await person(h);
    const stranger = await person(h);
    const ownerKeyId = (await h.store.findKeyByHash(hashKey(owner.key)))!.key.id;
    await stranger.visitor.get("/dashboard/keys");
    const foreign = await stranger.visitor.post(`/dashboard/keys/${ownerKeyId}/revoke`);
    assert.equal(foreign.status, 404);
    assert.equal((await h.call("GET", "/v1/account", { key: owner.key })).status, 200, "the stranger revoked nothing");
    const ownKeys = await owner.visitor.get("/dashboard/keys");
    assert.doesNotMatch(ownKeys.text, new RegExp(stranger.accountId), "nothing of the other account");
    const revoked = await owner.visitor.post(`/dashboard/keys/${ownerKeyId}/revoke`);
    assert.equal(revoked.status, 303);
    assert.equal(revoked.location, "/dashboard/keys?notice=revoked");
    const refused = await h.call("GET", "/v1/account", { key: owner.key });
    assert.equal(refused.status, 401);
    assert.match(refused.body.error.message, /revoked/);
    const after = await owner.visitor.get(revoked.location!);
    assert.match(after.text, /The key is revoked/);
    assert.match(after.text, /Revoked <time/);
  });

  test("a create-key form makes one key: a reload or Back re-posting it makes none and says so; two open forms make one each", async () => {
    const { visitor, accountId } = await person(h);
    await visitor.get("/dashboard/keys");
    const form = visitor.keyForm;
    const created = await visitor.post("/dashboard/keys", { name: "tab one" });
    assert.equal(created.status, 200);
    const again = await visitor.post("/dashboard/keys", { name: "tab one", once: form });
    assert.equal(again.status, 409, again.text.slice(0, 200));
    assert.match(again.text, /This form was sent again/);
    assert.doesNotMatch(again.text, KEY_SHAPED, "no key value on the page");
    assert.equal((await h.store.listKeys(accountId)).filter((k) => k.name === "tab one").length, 1);
    // Two tabs: each page's form still makes its key.
    await visitor.get("/dashboard/keys");
    const first = visitor.keyForm;
    await visitor.get("/dashboard/keys");
    const second = visitor.keyForm;
    assert.equal((await visitor.post("/dashboard/keys", { name: "tab two", once: first })).status, 200);
    assert.equal((await visitor.post("/dashboard/keys", { name: "tab three", once: second })).status, 200);
    const missing = await visitor.post("/dashboard/keys", { name: "no token", once: "" });
    assert.equal(missing.status, 409);
    assert.deepEqual((await h.store.listKeys(accountId)).map((k) => k.name).filter((n) => n.startsWith("tab")).sort(), ["tab one", "tab three", "tab two"]);
  });

  test("the key table shows each key's use against its own limit; the create form takes one; a row's form changes it, for the account's own keys only", async () => {
    const owner = await person(h, "pro");
    const stranger = await person(h);
    const { visitor, accountId } = owner;
    const plainId = (await h.store.findKeyByHash(hashKey(owner.key)))!.key.id;
    const page = await visitor.get("/dashboard/keys");
    assert.match(page.text, /<th scope="col">Limit<\/th>/);
    assert.match(page.text, /<td class="budget"><span class="muted">no limit<\/span><form method="post" action="\/dashboard\/keys\/key_\w+\/limit"/);
    assert.match(page.text, /<input id="key-limit" name="limit" type="text"/, "the create form takes an optional limit");

    const created = await visitor.post("/dashboard/keys", { name: "agent", limit: "500" });
    assert.equal(created.status, 200);
    const agentKey = [...new Set(created.text.match(KEY_SHAPED))][0]!;
    const agent = (await h.store.listKeys(accountId)).find((k) => k.name === "agent")!;
    assert.equal(agent.creditLimit, 500);
    const read = await h.call("POST", "/v1/capabilities/web.read/execute", {
      key: agentKey,
      body: { url: "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/" },
      headers: { "cache-control": "no-cache" },
    });
    assert.equal(read.status, 200, read.text);
    const used = await visitor.get("/dashboard/keys");
    assert.match(used.text, /5 of 500 credits this period/);
    assert.match(used.text, new RegExp(`id="limit-${agent.id}" name="limit" type="text"[^>]* value="500"`));

    // Changed in its row: the next call is held to it; the page says so.
    const lowered = await visitor.post(`/dashboard/keys/${agent.id}/limit`, { limit: "5" });
    assert.equal(lowered.status, 303);
    assert.equal(lowered.location, "/dashboard/keys?notice=limit");
    assert.equal((await h.store.getKey(agent.id))!.creditLimit, 5);
    const after = await visitor.get(lowered.location!);
    assert.match(after.text, /Saved the key&#39;s limit/);
    assert.match(after.text, /5 of 5 credits this period/);
    const refused = await h.call("POST", "/v1/capabilities/web.read/execute", {
      key: agentKey,
      body: { url: "https://hacks.mozilla.org/2015/03/this-api-is-so-fetching/" },
      headers: { "cache-control": "no-cache" },
    });
    assert.equal(refused.status, 402);
    assert.match(refused.body.error.hint, /Raise it in the dashboard \(Keys & apps\)/);
    // Set on the key that had none; emptied: no limit again.
    assert.equal((await visitor.post(`/dashboard/keys/${plainId}/limit`, { limit: "40" })).status, 303);
    assert.equal((await h.store.getKey(plainId))!.creditLimit, 40);
    assert.equal((await visitor.post(`/dashboard/keys/${agent.id}/limit`, { limit: "" })).status, 303);
    assert.equal((await h.store.getKey(agent.id))!.creditLimit, null);
    assert.equal((await visitor.post(`/dashboard/keys/${plainId}/limit`, { limit: "none" })).status, 303);
    assert.equal((await h.store.getKey(plainId))!.creditLimit, null);

    // Not a number of credits: the page again, saying why, nothing changed.
    for (const limit of ["lots", "-3", "1.5", "99999999999999"]) {
      const bad = await visitor.post(`/dashboard/keys/${plainId}/limit`, { limit });
      assert.equal(bad.status, 400, limit);
      assert.match(bad.text, /A key&#39;s limit is a whole number of credits per billing period/);
      const badCreate = await visitor.post("/dashboard/keys", { name: `bad ${limit}`, limit });
      assert.equal(badCreate.status, 400, limit);
      assert.doesNotMatch(badCreate.text, KEY_SHAPED, "no key made");
    }
    assert.equal((await h.store.getKey(plainId))!.creditLimit, null);
    assert.equal((await h.store.listKeys(accountId)).length, 2);

    // Another account's key: no such key for this person, and nothing changes.
    await stranger.visitor.get("/dashboard/keys");
    const foreign = await stranger.visitor.post(`/dashboard/keys/${agent.id}/limit`, { limit: "1" });
    assert.equal(foreign.status, 404);
    assert.match(foreign.text, /Your account has no such key/);
    assert.equal((await h.store.getKey(agent.id))!.creditLimit, null, "the stranger changed nothing");
    // A revoked key keeps its row but has no limit form.
    await visitor.post(`/dashboard/keys/${agent.id}/revoke`);
    const revoked = await visitor.get("/dashboard/keys");
    assert.doesNotMatch(revoked.text, new RegExp(`id="limit-${agent.id}"`));
  });

  test("a key name must be one line of 1 to 100 characters", async () => {
    const { visitor, accountId } = await person(h);
    await visitor.get("/dashboard/keys");
    for (const name of ["", "   ", "a".repeat(101), "two\nlines"]) {
      const res = await visitor.post("/dashboard/keys", { name });
      assert.equal(res.status, 400, JSON.stringify(name));
      assert.match(res.text, /Give the key a name/);
      assert.doesNotMatch(res.text, KEY_SHAPED);
    }
    assert.equal((await h.store.listKeys(accountId)).length, 1, "only the account's first key");
  });
});

describe("account pages", () => {
  test("GET /v1/account takes the dashboard session; every other /v1 route does not", async () => {
    const { visitor, accountId } = await person(h);
    const cookie = visitor.cookieHeader;
    const account = await fetch(`${h.url}/v1/account`, { headers: { cookie } });
    assert.equal(account.status, 200);
    assert.equal(account.headers.get("cache-control"), "no-store");
    const body = (await account.json()) as { plan: { id: string } };
    assert.equal(body.plan.id, (await h.store.getAccount(accountId))!.planId);
    for (const path of ["/v1/catalog", "/v1/capabilities/recipes.search", "/v1/guide", "/v1/openapi.json"]) {
      const res = await fetch(h.url + path, { headers: { cookie } });
      assert.equal(res.status, 401, path);
    }
    const execute = await fetch(`${h.url}/v1/capabilities/recipes.search/execute`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ query: "Salmon Prawn Risotto" }),
    });
    assert.equal(execute.status, 401);
    // A forged cookie is no session.
    const forged = await fetch(`${h.url}/v1/account`, { headers: { cookie: "quarry_session=abc.def" } });
    assert.equal(forged.status, 401);
    assert.match(forged.headers.get("www-authenticate") ?? "", /resource_metadata=/);
  });

  test("overview shows plan, status, credits with period end, Sharpen tier and stage, changeable up to the plan's tier", async () => {
    const { visitor, accountId } = await person(h, "pro");
    const page = await visitor.get("/dashboard");
    assert.match(page.text, /Pro/);
    assert.match(page.text, /0 <span class="muted">\/ 20,000 used/);
    assert.match(page.text, /Renews on <time/);
    assert.match(page.text, /ultra2x/);
    assert.match(page.text, /<option value="stage3\+">/);
    const saved = await visitor.post("/dashboard/sharpen-stage", { stage: "stage3" });
    assert.equal(saved.status, 303);
    assert.equal((await h.store.getAccount(accountId))!.sharpenStage, "stage3");
    const back = await visitor.get("/dashboard?notice=stage");
    assert.match(back.text, /Saved the Sharpen stage/);
    assert.match(back.text, /<option value="stage3" selected>/);
    await visitor.post("/dashboard/sharpen-stage", { stage: "default" });
    assert.equal((await h.store.getAccount(accountId))!.sharpenStage, null);

    const free = await person(h, "free");
    const freePage = await free.visitor.get("/dashboard");
    assert.match(freePage.text, /One-time grant/);
    assert.doesNotMatch(freePage.text, /<option value="stage2">/, "a stage above the plan's tier is not offered");
    const refused = await free.visitor.post("/dashboard/sharpen-stage", { stage: "stage2" });
    assert.equal(refused.status, 400);
    assert.equal((await h.store.getAccount(free.accountId))!.sharpenStage, null);
  });

  test("usage shows this period's calls by capability and by day, and the latest calls with their request ids", async () => {
    const { visitor, key, accountId } = await person(h);
    const ids: string[] = [];
    for (const query of ["Salmon Prawn Risotto", "Salmon Prawn Risotto"]) {
      const res = await h.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { query } });
      assert.equal(res.status, 200);
      ids.push(res.headers.get("x-request-id")!);
    }
    const other = await person(h);
    await h.call("POST", "/v1/capabilities/recipes.search/execute", { key: other.key, body: { query: "Salmon Prawn Risotto" } });
    const page = await visitor.get("/dashboard/usage");
    assert.equal(page.status, 200);
    assert.match(page.text, /<svg viewBox="0 0 720 220" role="img" aria-label="(Credits|Calls) per day/);
    assert.match(page.text, /<th scope="row">recipes.search<\/th><td class="num">2<\/td>/);
    for (const id of ids) assert.match(page.text, new RegExp(`<code>${id}</code>`));
    assert.match(page.text, /key “default”/);
    const ledger = await h.store.recentCalls(accountId, 10);
    assert.equal(ledger.length, 2);
    const foreignIds = (await h.store.recentCalls(other.accountId, 10)).map((r) => r.requestId);
    for (const id of foreignIds) assert.ok(!page.text.includes(id), "another account's calls are not shown");
  });
});

describe("pages", () => {
  test("what people and apps name things is text, never markup (key names, app names, emails)", async () => {
    const { visitor, accountId } = await person(h);
    await visitor.get("/dashboard/keys");
    const evil = `<script>alert(1)</script>"'><img src=x onerror=alert(2)>`;
    const created = await visitor.post("/dashboard/keys", { name: evil });
    assert.equal(created.status, 200);
    const keys = await visitor.get("/dashboard/keys");
    for (const page of [created, keys]) {
      assert.ok(!page.text.includes("<script>alert"), "no script element from a name");
      assert.ok(!page.text.includes("<img src=x"), "no element from a name");
      assert.match(page.text, /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert\(2\)&gt;/);
    }
    // An app registers under any name: the consent page shows it as text.
    const register = await fetch(`${h.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: evil, redirect_uris: ["http://127.0.0.1:49156/cb"], token_endpoint_auth_method: "none" }),
    });
    const { client_id } = (await register.json()) as { client_id: string };
    const start = await visitor.get(
      `/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256" })}`,
    );
    assert.equal(start.status, 303);
    const consent = await visitor.get("/dashboard/authorize");
    assert.ok(!consent.text.includes("<script>alert") && !consent.text.includes("<img src=x"), "!consent.text.includes(\"<script>alert\") && !consent.text.includes(\"<img src=x\")");
    assert.match(consent.text, /Connect “<bdi>&lt;script&gt;/);
    assert.equal((await h.store.listKeys(accountId)).length, 2);
  });

  test("security headers: a strict CSP, no framing, no referrer, no caching", async () => {
    const { visitor } = await person(h);
    for (const path of ["/dashboard", "/dashboard/keys", "/dashboard/usage", "/dashboard/sign-in"]) {
      const res = await visitor.get(path);
      const csp = res.headers.get("content-security-policy") ?? "";
      assert.match(csp, /default-src 'none'/, path);
      assert.match(csp, /script-src 'self'/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/, path);
      assert.equal(res.headers.get("x-content-type-options"), "nosniff", path);
      assert.equal(res.headers.get("referrer-policy"), "no-referrer", path);
      assert.equal(res.headers.get("cache-control"), "no-store", path);
    }
    // The session machinery stays in its scope: the API's other routes carry none of it.
    const { key } = await h.account();
    const api = await h.call("GET", "/v1/catalog", { key });
    assert.equal(api.headers.get("set-cookie"), null);
    assert.equal(api.headers.get("content-security-policy"), null);
  });

  test("everything a page loads is served by Quarry itself, with labels for every input", async () => {
    const { visitor } = await person(h);
    await visitor.get("/dashboard/keys");
    const pages = [await visitor.get("/dashboard"), await visitor.get("/dashboard/keys"), await visitor.get("/dashboard/usage"), await visitor.post("/dashboard/keys", { name: "check" })];
    for (const page of pages) {
      for (const [, url] of page.text.matchAll(/<(?:link|script|img)[^>]*(?:src|href)="([^"]+)"/g)) {
        assert.match(url!, /^\/dashboard\/assets\//, `loads ${url}`);
      }
      assert.doesNotMatch(page.text, /style="|<style|<script>|onclick=/, "no inline style or script (the CSP forbids them)");
      for (const [, id] of page.text.matchAll(/<(?:input|select)(?![^>]*type="hidden")[^>]*id="([^"]+)"/g)) {
        assert.match(page.text, new RegExp(`<label for="${id}">`), `a label for #${id}`);
      }
    }
    for (const [file, type] of [["dashboard.css", /text\/css/], ["dashboard.js", /javascript/], ["favicon.svg", /image\/svg\+xml/]] as const) {
      const res = await fetch(`${h.url}/dashboard/assets/${file}`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", type);
    }
    const missing = await visitor.get("/dashboard/nope");
    assert.equal(missing.status, 404);
    assert.match(missing.headers.get("content-type") ?? "", /text\/html/);
  });
});
