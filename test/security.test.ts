/**
 * Isolation and keys: another account's ids answer exactly like unknown ids (nothing revealed),
 * keys are stored only as hashes, never appear in a log line or error, and authenticated answers
 * are `Cache-Control: no-store`.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, test } from "node:test";
import { hashKey } from "../src/accounts/accounts.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";

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
  await h.close();
});

/** The envelope without the parts that legitimately differ (request id, the id the caller sent). */
function shape(body: { error: { requestId: string; message: string } }, id: string) {
  return { ...body.error, requestId: "-", message: body.error.message.replace(id, "<id>") };
}

test("another account's follow-up on an id does not wait for the owner's call in flight on it", async () => {
  // Follow-ups on one id run one at a time; were the queue shared across accounts, a stranger's
  // 404 would come only after the owner's call, telling them the id is real and in use.
  const owner = await h.account("pro");
  const stranger = await h.account("pro");
  const ex = await h.call("POST", "/v1/capabilities/markets.quote/execute", { key: owner.key, body: { symbol: "GOOGL:NASDAQ" } });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  const searchId: string = ex.body.search_id;
  h.replay.setFault("serpapi", { kind: "latency", ms: 1500, times: 1 });
  try {
    const from = h.replay.requests.length;
    const update = h.call("POST", "/v1/follow-up", { key: owner.key, body: { search_id: searchId, action: "update", params: {} } });
    const upstream = () => h.replay.requests.slice(from).some((r) => r.prefix === "serpapi");
    for (let waited = 0; !upstream(); waited += 10) {
      assert.ok(waited < 5000, "the owner's update reached the provider");
      await new Promise((r) => setTimeout(r, 10));
    }
    const started = performance.now();
    const foreign = await h.call("POST", "/v1/follow-up", { key: stranger.key, body: { search_id: searchId, action: "update", params: {} } });
    const waited = performance.now() - started;
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.error.code, "record_unknown");
    assert.ok(waited < 700, `the stranger's 404 took ${Math.round(waited)} ms: it waited for the owner's call`);
    assert.equal((await update).status, 200);
  } finally {
    h.replay.setFault("serpapi", null);
  }
});

test("another account's search and record ids answer exactly like unknown ones", async () => {
  const owner = await h.account();
  const stranger = await h.account();
  const ex = await h.call("POST", "/v1/capabilities/recipes.search/execute", { key: owner.key, body: { query: "Salmon Prawn Risotto" } });
  assert.equal(ex.status, 200);
  const searchId: string = ex.body.search_id;
  const recordId: string = ex.body.results[0].record_id;
  const foreignSearch = await h.call("POST", "/v1/follow-up", { key: stranger.key, body: { search_id: searchId, action: "more" } });
  const unknownSearch = await h.call("POST", "/v1/follow-up", { key: stranger.key, body: { search_id: "srch_ZZZZZZZZZZZZZZZZ", action: "more" } });
  assert.equal(foreignSearch.status, 404);
  assert.deepEqual(shape(foreignSearch.body, searchId), shape(unknownSearch.body, "srch_ZZZZZZZZZZZZZZZZ"));
  const foreignRecord = await h.call("POST", "/v1/follow-up", { key: stranger.key, body: { record_id: recordId, action: "details" } });
  const unknownRecord = await h.call("POST", "/v1/follow-up", { key: stranger.key, body: { record_id: "rec_ZZZZZZZZZZZZZZZZ", action: "details" } });
  assert.equal(foreignRecord.status, 404);
  assert.deepEqual(shape(foreignRecord.body, recordId), shape(unknownRecord.body, "rec_ZZZZZZZZZZZZZZZZ"));
  assert.doesNotMatch(foreignRecord.text, /Salmon|recipes/, "nothing about the record is revealed");
  // Both carry the one hint every unknown id gets: where valid ids come from.
  for (const answer of [foreignSearch, foreignRecord, unknownSearch, unknownRecord]) {
    assert.match(answer.body.error.hint, /from an answer to this account's own calls.*Execute again/);
  }
  // The stranger's failed attempts cost nothing and the owner can still use the record.
  assert.equal((await h.call("POST", "/v1/follow-up", { key: owner.key, body: { record_id: recordId, action: "details" } })).status, 200);
});

test("keys are stored only as SHA-256 hashes", async () => {
  const { key, accountId } = await h.account();
  const [row] = await h.store.listKeys(accountId);
  assert.equal(row!.hash, hashKey(key));
  assert.match(row!.hash, /^[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(row).includes(key.slice(12)), "no plaintext beyond the short hint");
  assert.equal(row!.hint, key.slice(0, 12));
});

test("a key differing in one character is refused", async () => {
  const { key } = await h.account();
  const last = key.at(-1) === "A" ? "B" : "A";
  const res = await h.call("GET", "/v1/account", { key: key.slice(0, -1) + last });
  assert.equal(res.status, 401);
});

test("authenticated answers are no-store, errors included", async () => {
  const { key } = await h.account();
  for (const [method, path, body] of [
    ["GET", "/v1/catalog", undefined],
    ["GET", "/v1/account", undefined],
    ["POST", "/v1/capabilities/recipes.search/execute", { query: "Salmon Prawn Risotto" }],
    ["POST", "/v1/follow-up", { action: "more" }],
  ] as const) {
    const res = await h.call(method, path, { key, ...(body === undefined ? {} : { body }) });
    assert.equal(res.headers.get("cache-control"), "no-store", `${method} ${path}`);
  }
});

test("no key ever reaches a log line or an error message", async () => {
  const { key } = await h.account();
  const wrong = "qk_live_" + "Q".repeat(32);
  await h.call("GET", "/v1/catalog", { key });
  await h.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: { nope: 1 } });
  await h.call("POST", "/v1/capabilities/markets.quote/execute", { key, body: { symbol: "NOT:RECORDED" } });
  const refused = await h.call("GET", "/v1/catalog", { key: wrong });
  assert.ok(!refused.text.includes(wrong), "!refused.text.includes(wrong)");
  await h.call("POST", `/mcp/k/${key}`, {
    headers: { accept: "application/json, text/event-stream" },
    body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
  });
  assert.ok(lines.length >= 5, "requests were logged");
  for (const line of lines) {
    assert.ok(!line.includes(key), `key in log line: ${line}`);
    assert.ok(!line.includes(wrong), `refused key in log line: ${line}`);
  }
  assert.ok(lines.some((l) => l.includes("/mcp/k/***")), "the URL form is logged redacted");
});

test("a key sent without the Bearer scheme is told so; no header at all is told a key is required", async () => {
  const { key } = await h.account();
  const bare = await h.call("GET", "/v1/account", { headers: { authorization: key } });
  assert.equal(bare.status, 401);
  assert.match(bare.body.error.message, /must read `Bearer <API_KEY>`/);
  assert.doesNotMatch(JSON.stringify(bare.body), new RegExp(key), "the key is not echoed");
  const none = await h.call("GET", "/v1/account");
  assert.equal(none.status, 401);
  assert.equal(none.body.error.message, "An API key is required.");
  assert.match(none.body.error.hint, /\/mcp\/k\/<API_KEY>/);
});

test("OAuth tokens, codes, client secrets and dashboard passwords never reach a log line; tokens are stored as hashes", async () => {
  const { person } = await import("./helpers/people.ts");
  const { createHash, randomBytes } = await import("node:crypto");
  const { visitor, accountId } = await person(h);
  const redirect = "http://127.0.0.1:49155/cb";
  const registered = (await (
    await fetch(`${h.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Log check", redirect_uris: [redirect], grant_types: ["authorization_code", "refresh_token"] }),
    })
  ).json()) as { client_id: string; client_secret: string };
  const verifier = randomBytes(32).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  await visitor.get(`/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: registered.client_id, redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256" })}`);
  await visitor.get("/dashboard/authorize");
  const code = new URL((await visitor.post("/dashboard/authorize", { decision: "approve", request: visitor.consentRequest })).location!).searchParams.get("code")!;
  const basic = `Basic ${Buffer.from(`${registered.client_id}:${registered.client_secret}`).toString("base64")}`;
  const tokens = (await (
    await fetch(`${h.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: redirect }),
    })
  ).json()) as { access_token: string; refresh_token: string };
  await h.call("GET", "/v1/account", { key: tokens.access_token });
  await h.call("GET", `/v1/catalog?token=${tokens.access_token}&refresh=${tokens.refresh_token}`);
  const grants = await h.store.listOAuthGrants(accountId);
  const found = await h.store.findOAuthToken(hashKey(tokens.access_token));
  assert.equal(found?.grant.id, grants[0]!.id, "found by its SHA-256");
  assert.ok(!JSON.stringify(found).includes(tokens.access_token), "!JSON.stringify(found).includes(tokens.access_token)");
  for (const secret of [tokens.access_token, tokens.refresh_token, code, registered.client_secret, "correct horse battery staple"]) {
    for (const line of lines) assert.ok(!line.includes(secret), `a secret in a log line: ${line}`);
  }
  assert.ok(lines.some((l) => l.includes("token=qat_***")), "a token in a URL is logged redacted");
});
