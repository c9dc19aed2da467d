/**
 * End-to-end over real HTTP against the replay upstream: every platform endpoint, every error code
 * reachable by its condition, and each reference capability's execute, more, update and record
 * actions with their charges. Runs on the embedded store, or PostgreSQL + Redis when their URLs are set.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { Ajv } from "ajv";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { addMonths } from "../src/accounts/periods.ts";
import { registry } from "../src/capabilities/registry.ts";
import { DEFAULT_FIXTURES_DIR } from "../src/demo/replay/fixture-index.ts";
import { type Harness, startHarness } from "./helpers/harness.ts";
import { expectCommonFailures } from "./helpers/common-route-tests.ts";

const PLANS = JSON.stringify([
  // The shared key calls inspect and execute of every capability: more than 60 a minute ("slow" tests the limit).
  { id: "free", name: "Free", credits: 1000, period: "once", rateLimitPerMinute: 1000, capabilities: "*" },
  { id: "pro", name: "Pro", credits: 20000, period: "monthly", rateLimitPerMinute: 60, capabilities: "*", sharpenTier: "ultra2x" },
  { id: "tiny", name: "Tiny", credits: 40, period: "once", rateLimitPerMinute: 1000, capabilities: "*" },
  { id: "narrow", name: "Narrow", credits: 100, period: "once", rateLimitPerMinute: 60, capabilities: ["academic.search"] },
  { id: "slow", name: "Slow", credits: 100, period: "once", rateLimitPerMinute: 3, capabilities: "*" },
]);

let h: Harness;
let key: string;
let accountId: string;

before(async () => {
  h = await startHarness({ env: { QUARRY_PLANS: PLANS, SESSION_TTL_SECONDS: "3600" } });
  ({ key, accountId } = await h.account("free"));
});
after(async () => {
  await h.close();
});

const post = (path: string, body: unknown, k = key) => h.call("POST", path, { key: k, body });
const get = (path: string, k = key) => h.call("GET", path, { key: k });

function assertEnvelope(res: { status: number; body: { error: { code: string; requestId: string; retryable: boolean } }; headers: Headers }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.retryable, "boolean");
  assert.match(res.body.error.requestId, /^req_/);
  assert.equal(res.headers.get("x-request-id"), res.body.error.requestId);
}

describe("public endpoints", () => {
  test("the public OpenAPI document needs no key and is not rate limited", async () => {
    const res = await h.call("GET", "/v1/openapi.public.json");
    assert.equal(res.status, 200);
    assert.equal(res.body.openapi, "3.1.0");
    assert.equal(res.body.info.version, "0.1.0");
    assert.match(JSON.stringify(res.body.info), /2026-09-22/);
    assert.equal(res.headers.get("ratelimit-limit"), null);
  });

  test("health live and ready report status, checks and version", async () => {
    const live = await h.call("GET", "/health/live");
    assert.deepEqual(live.body, { status: "ok", checks: {}, version: "0.1.0" });
    const ready = await h.call("GET", "/health/ready");
    assert.equal(ready.status, 200);
    assert.equal(ready.body.checks.database, "ok");
  });

  test("unknown route is 404 not_found in the envelope", async () => {
    assertEnvelope(await get("/v1/nothing-here"), 404, "not_found");
  });

  test("an unknown route is 404 and a wrong method 405, whatever the body (not a 400 about the body)", async () => {
    const json = { "content-type": "application/json" };
    assertEnvelope(await h.call("POST", "/v1/nothing-here", { key, headers: json, body: "{not json" }), 404, "not_found");
    assertEnvelope(await h.call("DELETE", "/v1/catalog", { key, headers: json, body: "" }), 405, "not_found");
    const big = await h.call("PUT", "/v1/follow-up", { key, body: { x: "x".repeat(h.config.bodyLimitBytes + 10) } });
    assertEnvelope(big, 405, "not_found");
    assert.equal(big.body.error.message, "No route PUT /v1/follow-up; this path takes POST.");
  });

  test("a path served under another method is 405 and says which: the message, the hint and Allow name it", async () => {
    const cases: [string, string, string][] = [
      ["GET", "/v1/capabilities/recipes.search/execute", "POST"],
      ["GET", "/v1/follow-up", "POST"],
      ["POST", "/v1/catalog", "GET"],
      ["DELETE", "/v1/account", "GET"],
      ["PUT", "/v1/capabilities/recipes.search", "GET"],
    ];
    // Its own key: the shared one's 60 calls a minute are spoken for.
    const { key: own } = await h.account("free");
    for (const [method, path, allowed] of cases) {
      const res = await h.call(method, path, { key: own });
      assertEnvelope(res, 405, "not_found");
      assert.equal(res.body.error.message, `No route ${method} ${path}; this path takes ${allowed}.`);
      assert.equal(res.body.error.hint, `Send the request as ${allowed}. GET /v1/openapi.public.json lists every route.`);
      assert.equal(res.headers.get("allow"), allowed, `${method} ${path}`);
    }
    // A path no method serves names none.
    const none = await get("/v1/capabilities/recipes.search/run", own);
    assertEnvelope(none, 404, "not_found");
    assert.equal(none.body.error.message, "No route GET /v1/capabilities/recipes.search/run.");
    assert.equal(none.headers.get("allow"), null);
  });
});

describe("authentication", () => {
  test("common failures on every authenticated route", async () => {
    await expectCommonFailures(h, [
      ["GET", "/v1/catalog"],
      ["GET", "/v1/capabilities/recipes.search"],
      ["POST", "/v1/capabilities/recipes.search/execute"],
      ["POST", "/v1/follow-up"],
      ["POST", "/v1/sharpen"],
      ["GET", "/v1/account"],
      ["GET", "/v1/guide"],
      ["GET", "/v1/openapi.json"],
    ]);
  });

  test("a revoked key answers 401", async () => {
    const fresh = await h.account();
    const keys = await h.store.listKeys(fresh.accountId);
    assert.equal((await get("/v1/account", fresh.key)).status, 200);
    await h.store.revokeKey(keys[0]!.id, Date.now());
    assertEnvelope(await get("/v1/account", fresh.key), 401, "unauthorized");
  });
});

describe("catalog, inspect, account, guide", () => {
  test("catalog lists exactly the implemented capabilities with availability", async () => {
    const res = await get("/v1/catalog");
    assert.equal(res.status, 200);
    const ids = res.body.capabilities.map((c: { id: string }) => c.id).sort();
    assert.deepEqual(ids, Object.keys(registry).sort());
    for (const c of res.body.capabilities) {
      assert.equal(c.enabled, true);
      assert.equal(c.available, true);
      assert.equal(c.inspect_url, `/v1/capabilities/${c.id}`);
      assert.equal(Number.isInteger(c.typical_credits), true);
    }
    assert.equal(res.body.sharpen.url, "/v1/sharpen");
    assert.equal(typeof res.body.instructions, "string");
  });

  test("inspect body_schema equals the OpenAPI execute schema", async () => {
    const doc = (await h.call("GET", "/v1/openapi.public.json")).body;
    for (const id of Object.keys(registry)) {
      const res = await get(`/v1/capabilities/${id}`);
      assert.equal(res.status, 200);
      assert.equal(res.body.execute.method, "POST");
      assert.equal(res.body.execute.url, `/v1/capabilities/${id}/execute`);
      const fromDoc = doc.paths[`/v1/capabilities/${id}/execute`].post.requestBody.content["application/json"].schema;
      assert.deepEqual(res.body.execute.body_schema, fromDoc);
      assert.equal(res.body.execute.body_schema.additionalProperties, false);
      assert.ok(res.body.examples.length > 0, "res.body.examples.length > 0");
    }
  });

  test("inspect describes update as each capability applies it (recipes: a selector replaces the stored one)", async () => {
    for (const cap of Object.values(registry)) {
      assert.ok(cap.mergeUpdate === undefined || cap.updateRule !== undefined, `${cap.id}: its own merge needs its own rule text`);
    }
    const { key: own } = await h.account("free");
    const recipes = await get("/v1/capabilities/recipes.search", own);
    const update = recipes.body.follow_ups.find((f: { action: string }) => f.action === "update");
    assert.match(update.description, /replaces the stored one/);
    assert.doesNotMatch(update.description, /^Merge/);
    const academic = await get("/v1/capabilities/academic.search", own);
    assert.match(academic.body.follow_ups.find((f: { action: string }) => f.action === "update").description, /^Merge params/);
  });

  test("inspect's update params_schema admits what update accepts: the update example (shown in its description), and null for an optional field", async () => {
    const ajv = new Ajv({ strict: false });
    // Its own key: the suite's shared one keeps to its 60 calls a minute.
    const own = (await h.account("free")).key;
    for (const cap of Object.values(registry)) {
      const res = await get(`/v1/capabilities/${cap.id}`, own);
      const update = res.body.follow_ups.find((f: { action: string }) => f.action === "update");
      const schema = update?.params_schema;
      assert.equal(schema !== undefined, cap.offersUpdate, cap.id);
      if (!schema) continue;
      const valid = ajv.compile(schema);
      assert.ok(valid(cap.updateExample!.params), `${cap.id}: ${JSON.stringify(valid.errors)}`);
      // The example is shown to the agent, in the descriptor's description.
      assert.ok(update.description.includes(`params ${JSON.stringify(cap.updateExample!.params)}`), `${cap.id}: ${update.description}`);
      const required = new Set(cap.schema.required ?? []);
      const optional = Object.keys(cap.schema.properties).find((k) => !required.has(k))!;
      assert.ok(valid({ [optional]: null }), `${cap.id}: null for ${optional}`);
      for (const name of required) assert.equal(valid({ [name]: null }), false, `${cap.id}: null for required ${name}`);
    }
    // What the schema says, the service does: null removes the field and its default applies again.
    const ex = await post("/v1/capabilities/academic.search/execute", { query: "state of open access", to_year: 2020 }, own);
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const first = h.replay.requests.filter((r) => r.path.startsWith("/openalex/works")).at(-1);
    assert.match(first?.query.filter ?? "", /to_publication_date:2020-12-31/);
    const updated = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { to_year: null } }, own);
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const sent = h.replay.requests.filter((r) => r.path.startsWith("/openalex/works")).at(-1);
    assert.notEqual(sent, first);
    assert.doesNotMatch(sent?.query.filter ?? "", /to_publication_date/);
    // A required field cannot be removed: the refusal says so rather than only "is required".
    const removed = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { query: null } }, own);
    assert.equal(removed.status, 400);
    assert.deepEqual(removed.body.error.violations, [
      { path: "/params/query", message: "is required: null would remove it, and a required field cannot be removed; send a new value instead" },
    ]);
  });

  test("inspect of an unknown capability is 404 capability_unknown", async () => {
    assertEnvelope(await get("/v1/capabilities/nope.search"), 404, "capability_unknown");
    assertEnvelope(await post("/v1/capabilities/nope.search/execute", {}), 404, "capability_unknown");
  });

  test("account has the spec 2.9 fields and no-store", async () => {
    const res = await get("/v1/account");
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.plan, { id: "free", name: "Free" });
    assert.equal(res.body.status, "free");
    assert.equal(res.body.cadence, null);
    assert.deepEqual(res.body.credits, { used: 0, cap: 1000, period_end: null });
    assert.ok(["sharpen", "plus", "ultra", "ultra2x"].includes(res.body.sharpen_tier), "[\"sharpen\", \"plus\", \"ultra\", \"ultra2x\"].includes(res.body.sharpen_tier)");
    assert.ok(res.body.enabled_capabilities.includes("recipes.search"), "res.body.enabled_capabilities.includes(\"recipes.search\")");
    assert.equal(res.headers.get("cache-control"), "no-store");
  });

  test("a monthly plan has a period end on the anniversary", async () => {
    const pro = await h.account("pro");
    const res = await get("/v1/account", pro.key);
    assert.equal(res.body.status, "active");
    assert.equal(res.body.cadence, "monthly");
    assert.equal(res.body.credits.cap, 20000);
    assert.ok(Date.parse(res.body.credits.period_end) > Date.now(), "Date.parse(res.body.credits.period_end) > Date.now()");
  });

  test("guide is markdown", async () => {
    const res = await get("/v1/guide");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /text\/markdown/);
    assert.match(res.text, /recipes\.search/);
    // What an agent needs for Sharpen: its own family among those configured, and each stage's price.
    assert.match(res.text, /\| `family_b` \| `claude-sonnet-4-20250514` \|/);
    assert.match(res.text, /\| `stage1` \| `sharpen` \| 5 \|/);
    assert.match(res.text, /\| `stage3\+` \| `ultra2x` \| 40 \|/);
  });
});

describe("validation", () => {
  test("unknown keys point at the key; bounds and types are reported", async () => {
    const res = await post("/v1/capabilities/academic.search/execute", { query: "x", num: 99, extra: 1, sort: 3 });
    assertEnvelope(res, 400, "invalid_request");
    const paths = res.body.error.violations.map((v: { path: string }) => v.path).sort();
    assert.deepEqual(paths, ["/extra", "/num", "/sort"]);
  });

  test("a refused name that is a near miss of an accepted one says which was meant", async () => {
    const violation = (res: { body: { error: { violations: { path: string; message: string }[] } } }, path: string) =>
      res.body.error.violations.find((v) => v.path === path)?.message;
    // Its own key: the shared one's 60 calls a minute are spoken for.
    const { key: own } = await h.account("free");
    const typo = await post("/v1/capabilities/recipes.search/execute", { qurey: "Salmon", limit: 3 }, own);
    assertEnvelope(typo, 400, "invalid_request");
    assert.equal(
      violation(typo, "/qurey"),
      'unknown field "qurey" (did you mean "query"?); fields: query, ingredient, category, cuisine, num',
    );
    assert.equal(
      violation(typo, "/limit"),
      'unknown field "limit" (did you mean "num"?); fields: query, ingredient, category, cuisine, num',
    );
    // An enum value in the wrong case.
    const window = await post("/v1/capabilities/markets.quote/execute", { symbol: "GOOGL:NASDAQ", window: "1y" }, own);
    assertEnvelope(window, 400, "invalid_request");
    assert.match(violation(window, "/window") ?? "", /^must be one of "1D", .* \(did you mean "1Y"\?\)$/);
    // Follow-up actions, search and record scope, and a capability id.
    const ex = await post("/v1/capabilities/recipes.search/execute", { query: "Salmon Prawn Risotto" }, own);
    assert.equal(ex.status, 200);
    const more = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "mroe" }, own);
    assertEnvelope(more, 400, "invalid_request");
    assert.equal(violation(more, "/action"), 'unknown action "mroe" for a search (did you mean "more"?); offered: more, update');
    const next = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "next" }, own);
    assert.equal(violation(next, "/action"), 'unknown action "next" for a search (did you mean "more"?); offered: more, update');
    const detail = await post("/v1/follow-up", { record_id: ex.body.results[0].record_id, action: "detail" }, own);
    assertEnvelope(detail, 400, "invalid_request");
    assert.equal(
      violation(detail, "/action"),
      'unknown record action "detail" for recipes.search (did you mean "details"?); offered: details',
    );
    const cap = await get("/v1/capabilities/recipe.search", own);
    assertEnvelope(cap, 404, "capability_unknown");
    assert.equal(cap.body.error.message, 'No capability "recipe.search" (did you mean "recipes.search"?).');
    // Nothing close: no guess.
    const far = await post("/v1/capabilities/recipes.search/execute", { query: "Salmon", colour: "red" }, own);
    assert.equal(
      violation(far, "/colour"),
      'unknown field "colour"; fields: query, ingredient, category, cuisine, num',
    );
  });

  test("missing required field points where it belongs", async () => {
    const res = await post("/v1/capabilities/markets.quote/execute", {});
    assertEnvelope(res, 400, "invalid_request");
    assert.deepEqual(res.body.error.violations.map((v: { path: string }) => v.path), ["/symbol"]);
  });

  test("cross-field rules give violations", async () => {
    const a = await post("/v1/capabilities/academic.search/execute", { query: "x", from_year: 2020, to_year: 2010 });
    assertEnvelope(a, 400, "invalid_request");
    assert.ok(a.body.error.violations.some((v: { path: string }) => v.path === "/from_year"), "a.body.error.violations.some((v: { path: string }) => v.path === \"/from_year\")");
    const r = await post("/v1/capabilities/recipes.search/execute", { query: "a", category: "Seafood" });
    assertEnvelope(r, 400, "invalid_request");
    assert.ok(r.body.error.violations.length > 0, "r.body.error.violations.length > 0");
    const none = await post("/v1/capabilities/recipes.search/execute", {});
    assertEnvelope(none, 400, "invalid_request");
  });

  test("malformed JSON, wrong content type, non-object and oversized bodies are 400", async () => {
    assertEnvelope(await h.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: "{not json" }), 400, "invalid_request");
    assertEnvelope(
      await h.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: "query=x", headers: { "content-type": "text/plain" } }),
      400,
      "invalid_request",
    );
    const arr = await post("/v1/capabilities/recipes.search/execute", [1, 2]);
    assertEnvelope(arr, 400, "invalid_request");
    assert.equal(arr.body.error.violations[0].path, "");
    const big = await post("/v1/capabilities/recipes.search/execute", { query: "x".repeat(h.config.bodyLimitBytes + 10) });
    assertEnvelope(big, 400, "invalid_request");
    const empty = await h.call("POST", "/v1/follow-up", { key, headers: { "content-type": "application/json" }, body: "" });
    assertEnvelope(empty, 400, "invalid_request");
    assert.match(empty.body.error.message, /empty/);
  });

  test("a malformed body's error says where the JSON breaks", async () => {
    const cut = await h.call("POST", "/v1/capabilities/recipes.search/execute", { key, body: '{"query":' });
    assertEnvelope(cut, 400, "invalid_request");
    assert.match(cut.body.error.message, /^The body is not valid JSON: .+/);
    const bad = await h.call("POST", "/v1/follow-up", { key, body: '{"action": more}' });
    assertEnvelope(bad, 400, "invalid_request");
    assert.match(bad.body.error.message, /'m'/);
    assert.deepEqual(bad.body.error.violations, [{ path: "", message: bad.body.error.message }]);
  });

  test("prototype keys are refused with their JSON pointers, escaped spellings too", async () => {
    const proto = await h.call("POST", "/v1/capabilities/recipes.search/execute", {
      key,
      body: '{"query":"Salmon Prawn Risotto","__proto__":{"num":1}}',
    });
    assertEnvelope(proto, 400, "invalid_request");
    assert.deepEqual(proto.body.error.violations, [{ path: "/__proto__", message: 'a key named "__proto__" is refused' }]);
    const escaped = await h.call("POST", "/v1/follow-up", {
      key,
      body: '{"action":"update","search_id":"srch_0123456789abcdef","params":{"a/b":[{"\\u005f_proto__":1}],"constructor":{"prototype":{}}}}',
    });
    assertEnvelope(escaped, 400, "invalid_request");
    assert.deepEqual(
      escaped.body.error.violations.map((v: { path: string }) => v.path),
      ["/params/a~1b/0/__proto__", "/params/constructor/prototype"],
    );
    // A key that merely contains the words is an ordinary unknown key, reported by validation.
    const named = await post("/v1/capabilities/recipes.search/execute", { query: "x", prototype: 1 });
    assertEnvelope(named, 400, "invalid_request");
    assert.deepEqual(named.body.error.violations.map((v: { path: string }) => v.path), ["/prototype"]);
  });

  test("follow-up needs exactly one of search_id or record_id, in their formats", async () => {
    const none = await post("/v1/follow-up", { action: "more" });
    assertEnvelope(none, 400, "invalid_request");
    assert.equal(none.body.error.violations[0].path, "");
    const both = await post("/v1/follow-up", { action: "more", search_id: "srch_0123456789abcdef", record_id: "rec_0123456789abcdef" });
    assertEnvelope(both, 400, "invalid_request");
    assert.ok(both.body.error.violations.some((v: { path: string }) => v.path === "/record_id"), "both.body.error.violations.some((v: { path: string }) => v.path === \"/record_id\")");
    const bad = await post("/v1/follow-up", { action: "", search_id: "srch_short", extra: true });
    assertEnvelope(bad, 400, "invalid_request");
    assert.deepEqual(bad.body.error.violations.map((v: { path: string }) => v.path).sort(), ["/action", "/extra", "/search_id"]);
  });
});

describe("reference capabilities", () => {
  test("academic.search: execute, more (page), details fetched then cached", async () => {
    const ex = await post("/v1/capabilities/academic.search/execute", { query: "state of open access" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.match(ex.body.search_id, /^srch_[0-9A-Za-z]{16}$/);
    assert.equal(ex.body.capability, "academic.search");
    assert.ok(ex.body.result_count >= 1, "ex.body.result_count >= 1");
    assert.equal(ex.body.result_count, ex.body.results.length);
    const rec = ex.body.results[0];
    assert.match(rec.record_id, /^rec_[0-9A-Za-z]{16}$/);
    assert.match(rec.openalex_id, /^W\d+$/);
    assert.equal(ex.body.charged_credits, 0);
    assert.deepEqual(ex.body.record_actions, ["details"]);
    assert.deepEqual(ex.body.next.actions, ["more", "update"]);
    const d1 = await post("/v1/follow-up", { record_id: rec.record_id, action: "details" });
    assert.equal(d1.status, 200, JSON.stringify(d1.body));
    assert.equal(d1.body.cached, false);
    assert.equal(d1.body.charged_credits, 0);
    const d2 = await post("/v1/follow-up", { record_id: rec.record_id, action: "details" });
    assert.equal(d2.body.cached, true);
    assert.deepEqual(d2.body.detail, d1.body.detail);
    const more = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" });
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.search_id, ex.body.search_id);
  });

  test("an empty page with nothing after it has no next.example (re-running it would loop), and a note instead", async () => {
    const { key: own } = await h.account("free");
    // TheMealDB's recording for "xablau" holds no meal.
    const none = await post("/v1/capabilities/recipes.search/execute", { query: "xablau" }, own);
    assert.equal(none.status, 200, JSON.stringify(none.body));
    assert.equal(none.body.result_count, 0);
    assert.equal(none.body.has_more, false);
    assert.equal(none.body.next.example, null);
    assert.deepEqual(none.body.next.actions, ["more", "update"], "the actions the capability accepts are still listed");
    assert.ok(none.body.notes.some((n: string) => /send update with the fields to change/.test(n)), JSON.stringify(none.body.notes));
    // Paging past the end of a search that had results: the same.
    const one = await post("/v1/capabilities/recipes.search/execute", { query: "Salmon Prawn Risotto" }, own);
    assert.equal(one.body.has_more, false);
    assert.equal(one.body.next.example.action, "details", "a page with records suggests a record action");
    const past = await post("/v1/follow-up", { search_id: one.body.search_id, action: "more" }, own);
    assert.equal(past.status, 200, JSON.stringify(past.body));
    assert.equal(past.body.result_count, 0);
    assert.equal(past.body.next.example, null);
    assert.ok(past.body.notes.some((n: string) => /Nothing \(more\) to show/.test(n)), "past.body.notes.some((n: string) => /Nothing \\(more\\) to show/.test(n))");
  });

  test("a search action sent with a record_id says to use the record's search_id", async () => {
    const { key: own } = await h.account("pro");
    const ex = await post("/v1/capabilities/markets.quote/execute", { symbol: "GOOGL:NASDAQ" }, own);
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const res = await post("/v1/follow-up", { record_id: ex.body.results[0].record_id, action: "update" }, own);
    assertEnvelope(res, 400, "invalid_request");
    assert.equal(res.body.error.violations[0].path, "/action");
    assert.match(res.body.error.violations[0].message, new RegExp(`update is a search action; send it with the search_id .*${ex.body.search_id}`));
  });

  test("academic.search: an update inverting the stored year range points at the field it sent", async () => {
    // Its own key: the suite's shared key is near its 60 calls a minute.
    const { key: own } = await h.account("free");
    const body = { query: "state of open access", from_year: 2015 };
    const ex = await post("/v1/capabilities/academic.search/execute", body, own);
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const upd = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { to_year: 2010 } }, own);
    assertEnvelope(upd, 400, "invalid_request");
    assert.deepEqual(
      upd.body.error.violations.map((v: { path: string }) => v.path),
      ["/params/to_year"],
    );
    assert.equal((await get("/v1/account", own)).body.credits.used, 0);
  });

  test("music.search: execute and more (offset) keep the search_id; details fetch the album, free", async () => {
    const ex = await post("/v1/capabilities/music.search/execute", { query: "Soliloquy", num: 5 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.results.length, 5);
    assert.equal(ex.body.results[0].kind, "track");
    assert.equal(ex.body.has_more, true);
    assert.deepEqual(ex.body.next.example, { search_id: ex.body.search_id, action: "more" });
    const more = await post("/v1/follow-up", ex.body.next.example);
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.search_id, ex.body.search_id);
    assert.equal(more.body.charged_credits, 0);
    const requested = h.replay.requests.filter((r) => r.path.startsWith("/deezer/search")).at(-1);
    assert.equal(requested?.query.index, "5");
    // The recording holds items 0-24 of this search; the second page is its items 5-9.
    const recorded = JSON.parse(readFileSync(join(DEFAULT_FIXTURES_DIR, "deezer", "search_simple.json"), "utf8"));
    const titles = (items: { title: string }[]) => items.map((item) => item.title);
    assert.deepEqual(titles(ex.body.results), titles(recorded.data.slice(0, 5)));
    assert.deepEqual(titles(more.body.results), titles(recorded.data.slice(5, 10)));
    // A Deezer track's details ask GET /album/{id} for its release date; this track's album is not
    // recorded (the replay answers 404: a refusal, not retryable), so the call fails as a provider
    // error, charged nothing (test/music-search.e2e.test.ts).
    const usedBefore = (await get("/v1/account")).body.credits.used;
    const det = await post("/v1/follow-up", { record_id: ex.body.results[0].record_id, action: "details" });
    assertEnvelope(det, 502, "provider_error");
    assert.equal(det.body.error.retryable, false);
    assert.equal((await get("/v1/account")).body.credits.used, usedBefore);
  });

  test("recipes.search: local paging is free and served from the session; update keeps the search_id", async () => {
    const before = h.replay.requests.length;
    const ex = await post("/v1/capabilities/recipes.search/execute", { category: "Seafood", num: 10 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.results.length, 10);
    assert.equal(ex.body.has_more, true);
    const afterExecute = h.replay.requests.length;
    assert.equal(afterExecute - before, 1);
    // `params` is optional and for `update`: an empty one is accepted with `more`, keys are refused.
    const withKeys = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more", params: { num: 5 } });
    assertEnvelope(withKeys, 400, "invalid_request");
    assert.equal(withKeys.body.error.violations[0].path, "/params");
    const p2 = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more", params: {} });
    const p3 = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" });
    assert.equal(p2.status, 200, JSON.stringify(p2.body));
    assert.equal(p2.body.results.length, 10);
    assert.equal(p3.body.results.length, 9);
    assert.equal(p3.body.has_more, false);
    assert.equal(h.replay.requests.length, afterExecute, "local more must not call the provider");
    const all = [...ex.body.results, ...p2.body.results, ...p3.body.results].map((r: { record_id: string }) => r.record_id);
    assert.equal(new Set(all).size, 29);
    const upd = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { query: "Salmon Prawn Risotto" } });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal(upd.body.search_id, ex.body.search_id);
    assert.equal(upd.body.results.length, 1);
    // A search.php record's detail is stored (mapped from the page source kept at search time):
    // free, no provider call, the same answer every time.
    const beforeDetails = h.replay.requests.length;
    const det = await post("/v1/follow-up", { record_id: upd.body.results[0].record_id, action: "details" });
    assert.equal(det.status, 200);
    assert.equal(det.body.detail.meal_id, "52823");
    assert.equal(det.body.detail.ingredients.length, 11);
    assert.deepEqual(det.body.detail.ingredients[0], { ingredient: "butter", measure: "50g/2oz" });
    assert.deepEqual(
      det.body.links.map((l: { label: string }) => l.label),
      ["Original recipe", "Video", "Photo", "TheMealDB page"],
    );
    assert.equal(det.body.cached, true);
    assert.equal(det.body.charged_credits, 0);
    const again = await post("/v1/follow-up", { record_id: upd.body.results[0].record_id, action: "details", params: {} });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body.detail, det.body.detail);
    const detailsWithKeys = await post("/v1/follow-up", { record_id: upd.body.results[0].record_id, action: "details", params: { x: 1 } });
    assertEnvelope(detailsWithKeys, 400, "invalid_request");
    assert.equal(detailsWithKeys.body.error.violations[0].path, "/params");
    assert.equal(h.replay.requests.length, beforeDetails, "stored details must not call the provider");
    const badUpdate = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { nope: 1 } });
    assertEnvelope(badUpdate, 400, "invalid_request");
    assert.equal(badUpdate.body.error.violations[0].path, "/params/nope");
    // An unknown key and a bad value together: both reported, as execute does.
    const both = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { nope: 1, num: 0 } });
    assertEnvelope(both, 400, "invalid_request");
    assert.deepEqual(
      both.body.error.violations.map((v: { path: string }) => v.path),
      ["/params/nope", "/params/num"],
    );
  });

  test("markets.quote: single result, billed execute and update, more refused, details stored", async () => {
    const acct = await h.account("free");
    const ex = await post("/v1/capabilities/markets.quote/execute", { symbol: "GOOGL:NASDAQ" }, acct.key);
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.charged_credits, 4);
    assert.equal(ex.body.balance.used, 4);
    assert.equal(ex.body.has_more, false);
    assert.deepEqual(ex.body.next.actions, ["update"]);
    assert.equal(ex.body.results.length, 1);
    assert.equal(ex.body.results[0].source.length > 0, true);
    const more = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" }, acct.key);
    assertEnvelope(more, 400, "invalid_request");
    assert.equal(more.body.error.violations[0].path, "/action");
    // With params too: both problems in one answer.
    const moreWithParams = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more", params: { num: 5 } }, acct.key);
    assertEnvelope(moreWithParams, 400, "invalid_request");
    assert.deepEqual(
      moreWithParams.body.error.violations.map((v: { path: string }) => v.path),
      ["/action", "/params"],
    );
    const upd = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "update", params: { window: "1D" } }, acct.key);
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    assert.equal(upd.body.charged_credits, 4);
    assert.equal(upd.body.balance.used, 8);
    const det = await post("/v1/follow-up", { record_id: upd.body.results[0].record_id, action: "details" }, acct.key);
    assert.equal(det.status, 200);
    assert.equal(det.body.charged_credits, 0);
    assert.equal(await h.store.ledgerTotal(acct.accountId), 8);
  });

  test("markets.quote is unavailable without SERPAPI_API_KEY", async () => {
    const other = await startHarness({ env: { SERPAPI_API_KEY: "" }, replay: h.replay });
    try {
      const { key: k } = await other.account();
      const cat = await other.call("GET", "/v1/catalog", { key: k });
      const m = cat.body.capabilities.find((c: { id: string }) => c.id === "markets.quote");
      assert.equal(m.available, false);
      assert.match(m.unavailable_reason, /SERPAPI_API_KEY/);
      const res = await other.call("POST", "/v1/capabilities/markets.quote/execute", { key: k, body: { symbol: "GOOGL:NASDAQ" } });
      assertEnvelope(res, 503, "capability_unavailable");
    } finally {
      await other.close();
    }
  });
});

describe("sessions and isolation", () => {
  test("another account's ids are record_unknown; unknown ids too", async () => {
    const ex = await post("/v1/capabilities/recipes.search/execute", { query: "Salmon Prawn Risotto" });
    const other = await h.account();
    assertEnvelope(await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" }, other.key), 404, "record_unknown");
    assertEnvelope(await post("/v1/follow-up", { record_id: ex.body.results[0].record_id, action: "details" }, other.key), 404, "record_unknown");
    assertEnvelope(await post("/v1/follow-up", { search_id: "srch_0000000000000000", action: "more" }), 404, "record_unknown");
  });

  test("a session unused past its TTL answers 410 session_expired", async () => {
    const ex = await post("/v1/capabilities/recipes.search/execute", { category: "Seafood" });
    assert.equal(ex.status, 200);
    h.clock.advance(3601 * 1000);
    try {
      assertEnvelope(await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" }), 410, "session_expired");
      assertEnvelope(await post("/v1/follow-up", { record_id: ex.body.results[0].record_id, action: "details" }), 410, "session_expired");
    } finally {
      h.clock.advance(-3601 * 1000);
    }
  });

  test("use extends the session's life", async () => {
    const ex = await post("/v1/capabilities/recipes.search/execute", { category: "Seafood", num: 5 });
    h.clock.advance(3000 * 1000);
    assert.equal((await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" })).status, 200);
    h.clock.advance(3000 * 1000);
    try {
      assert.equal((await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" })).status, 200);
    } finally {
      h.clock.advance(-6000 * 1000);
    }
  });

  test("unknown actions are invalid_request at /action", async () => {
    const ex = await post("/v1/capabilities/recipes.search/execute", { query: "Salmon Prawn Risotto" });
    const r1 = await post("/v1/follow-up", { search_id: ex.body.search_id, action: "details" });
    assertEnvelope(r1, 400, "invalid_request");
    assert.equal(r1.body.error.violations[0].path, "/action");
    const r2 = await post("/v1/follow-up", { record_id: ex.body.results[0].record_id, action: "transcript" });
    assertEnvelope(r2, 400, "invalid_request");
  });
});

describe("plans, credits and limits", () => {
  test("a capability off on the plan is 403 capability_disabled", async () => {
    const narrow = await h.account("narrow");
    assertEnvelope(await post("/v1/capabilities/recipes.search/execute", { query: "x" }, narrow.key), 403, "capability_disabled");
    const cat = await get("/v1/catalog", narrow.key);
    const recipes = cat.body.capabilities.find((c: { id: string }) => c.id === "recipes.search");
    assert.equal(recipes.enabled, false);
  });

  test("a canceled account: every capability and Sharpen are 403 capability_disabled, naming the cancellation", async () => {
    const acct = await h.account("free");
    await h.services.accounts.update(acct.accountId, { status: "canceled" });
    const refusals = [
      await post("/v1/capabilities/recipes.search/execute", { query: "x" }, acct.key),
      await post("/v1/sharpen", { task: "t", draft: "d", caller_provider: "family_a" }, acct.key),
    ];
    for (const res of refusals) {
      assertEnvelope(res, 403, "capability_disabled");
      assert.match(res.body.error.message, /^The account is canceled; (recipes\.search|Sharpen) cannot be used\.$/);
      assert.doesNotMatch(res.body.error.hint, /[Uu]pgrade/, "the plan is not the reason");
    }
    const cat = await get("/v1/catalog", acct.key);
    assert.ok(cat.body.capabilities.every((c: { enabled: boolean }) => c.enabled === false), "cat.body.capabilities.every((c: { enabled: boolean }) => c.enabled === false)");
    assert.equal((await get("/v1/account", acct.key)).body.credits.used, 0);
  });

  test("concurrent billed calls: exactly the affordable number succeed, the ledger sums to used", async () => {
    const tiny = await h.account("tiny"); // 40 credits: ten 4-credit quotes
    const results = await Promise.all(
      Array.from({ length: 25 }, () => post("/v1/capabilities/markets.quote/execute", { symbol: "GOOGL:NASDAQ" }, tiny.key)),
    );
    const ok = results.filter((r) => r.status === 200).length;
    const refused = results.filter((r) => r.status === 402);
    assert.equal(ok, 10);
    assert.equal(refused.length, 15);
    for (const r of refused) assert.equal(r.body.error.code, "credits_exhausted");
    const account = await h.store.getAccount(tiny.accountId);
    assert.equal(account!.creditsUsed, 40);
    assert.equal(account!.creditsReserved, 0);
    assert.equal(await h.store.ledgerTotal(tiny.accountId), 40);
    // Once the cap is reached, an execute is refused even where it would cost nothing (SPEC 3.1:
    // execute needs credits available; 7: credits_exhausted is "period cap reached").
    assertEnvelope(await post("/v1/capabilities/recipes.search/execute", { query: "Salmon Prawn Risotto" }, tiny.key), 402, "credits_exhausted");
  });

  test("over the rate limit: 429 rate_limited with Retry-After and RateLimit headers", async () => {
    const slow = await h.account("slow");
    for (let i = 0; i < 3; i++) {
      const r = await get("/v1/account", slow.key);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get("ratelimit-limit"), "3");
      assert.equal(r.headers.get("ratelimit-remaining"), String(2 - i));
    }
    const over = await get("/v1/account", slow.key);
    assertEnvelope(over, 429, "rate_limited");
    assert.equal(over.body.error.retryable, true);
    assert.ok(Number(over.headers.get("retry-after")) >= 1, "Number(over.headers.get(\"retry-after\")) >= 1");
    // The public document is not rate limited.
    assert.equal((await h.call("GET", "/v1/openapi.public.json")).status, 200);
  });

  test("the key and the rate limit are checked before the body is read: 401 and 429 win over a bad body", async () => {
    const execute = "/v1/capabilities/recipes.search/execute";
    const bad = { body: "{not json" };
    assertEnvelope(await h.call("POST", execute, bad), 401, "unauthorized");
    assertEnvelope(await h.call("POST", execute, { ...bad, key: `qk_live_${"A".repeat(32)}` }), 401, "unauthorized");
    assertEnvelope(
      await h.call("POST", "/v1/follow-up", { body: "<x/>", headers: { "content-type": "application/xml" } }),
      401,
      "unauthorized",
    );
    const slow = await h.account("slow");
    // A refused body is a request like any other: answered with the limit's headers and counted.
    const first = await h.call("POST", execute, { ...bad, key: slow.key });
    assertEnvelope(first, 400, "invalid_request");
    assert.equal(first.headers.get("ratelimit-remaining"), "2");
    assert.equal((await h.call("POST", execute, { ...bad, key: slow.key })).headers.get("ratelimit-remaining"), "1");
    assert.equal((await get("/v1/account", slow.key)).status, 200);
    assertEnvelope(await h.call("POST", execute, { ...bad, key: slow.key }), 429, "rate_limited");
  });

  test("a failed provider call charges nothing and creates no session", async () => {
    const acct = await h.account("free");
    h.replay.setFault("serpapi", { kind: "status", status: 500 });
    try {
      const res = await post("/v1/capabilities/markets.quote/execute", { symbol: "GOOGL:NASDAQ" }, acct.key);
      assertEnvelope(res, 502, "provider_error");
      assert.equal(res.body.error.retryable, true);
    } finally {
      h.replay.setFault("serpapi", null);
    }
    const account = await h.store.getAccount(acct.accountId);
    assert.equal(account!.creditsUsed, 0);
    assert.equal(account!.creditsReserved, 0);
    assert.equal(await h.store.ledgerTotal(acct.accountId), 0);
  });

  test("every account's ledger sums to its used credits", async () => {
    const account = await h.store.getAccount(accountId);
    assert.equal(await h.store.ledgerTotal(accountId), account!.creditsUsed);
  });

  test("paid credits reset on the subscription's anniversary, not the account's creation", async () => {
    const DAY = 24 * 3600 * 1000;
    const start = h.clock.now();
    const acct = await h.account("free"); // day X
    const quote = () => post("/v1/capabilities/markets.quote/execute", { symbol: "GOOGL:NASDAQ" }, acct.key);
    const account = async () => (await get("/v1/account", acct.key)).body;
    const iso = (ms: number) => new Date(ms).toISOString();
    try {
      assert.equal((await quote()).body.balance.used, 4);

      h.clock.advance(40 * DAY); // day Y
      const y = h.clock.now();
      await h.services.accounts.setPlan(acct.accountId, "pro");
      let body = await account();
      assert.deepEqual(body.credits, { used: 0, cap: 20000, period_end: iso(addMonths(y, 1)) });
      assert.equal(body.status, "active");
      assert.equal("period_anchor" in body, false, "the anchor is not part of the Account resource");

      const charged = await quote();
      assert.equal(charged.body.balance.used, 4);
      assert.equal(charged.body.balance.period_end, iso(addMonths(y, 1)));
      // The same plan again changes nothing about the period.
      h.clock.advance(2 * DAY);
      await h.services.accounts.setPlan(acct.accountId, "pro");
      assert.deepEqual((await account()).credits, { used: 4, cap: 20000, period_end: iso(addMonths(y, 1)) });

      // Once Y + 1 month has passed, the next billable call starts the period ending Y + 2 months.
      h.clock.set(addMonths(y, 1) + 1000);
      const rolled = await quote();
      assert.equal(rolled.status, 200, JSON.stringify(rolled.body));
      assert.equal(rolled.body.balance.used, 4);
      assert.equal(rolled.body.balance.period_end, iso(addMonths(y, 2)));

      assert.equal((await quote()).body.balance.used, 8);

      // Back to free: used is what the one-time grant had used before (it is not given again),
      // not the paid period's 8; no period end.
      await h.services.accounts.setPlan(acct.accountId, "free");
      body = await account();
      assert.deepEqual(body.credits, { used: 4, cap: 1000, period_end: null });
      assert.equal(body.status, "free");
      // Paid and back once more: the grant's usage carries on from where it was.
      assert.equal((await quote()).body.balance.used, 8);
      await h.services.accounts.setPlan(acct.accountId, "pro");
      assert.equal((await account()).credits.used, 0);
      await h.services.accounts.setPlan(acct.accountId, "free");
      assert.deepEqual((await account()).credits, { used: 8, cap: 1000, period_end: null });
    } finally {
      h.clock.set(start);
    }
  });
});

describe("concurrent follow-ups on one session", () => {
  test("record actions running beside `more` never rewind the paging state", async () => {
    const acct = await h.account("free");
    // Seafood: 29 results, 3 a page. The 20th (position 19) is the one meal whose lookup is recorded.
    const ex = await post("/v1/capabilities/recipes.search/execute", { category: "Seafood", num: 3 }, acct.key);
    assert.equal(ex.status, 200);
    const pages = [ex.body];
    for (let i = 0; i < 6; i++) pages.push((await post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" }, acct.key)).body);
    const recordId: string = pages[6].results[1].record_id;
    assert.equal((await post("/v1/follow-up", { record_id: recordId, action: "details" }, acct.key)).body.cached, false);
    const seen = new Set<string>(pages.flatMap((p) => p.results.map((r: { record_id: string }) => r.record_id)));
    assert.equal(seen.size, 21);
    // Now `more` (local, no provider call) and cached record actions race on the same session.
    for (let round = 0; round < 4; round++) {
      const [more, ...details] = await Promise.all([
        post("/v1/follow-up", { search_id: ex.body.search_id, action: "more" }, acct.key),
        ...Array.from({ length: 4 }, () => post("/v1/follow-up", { record_id: recordId, action: "details" }, acct.key)),
      ]);
      assert.equal(more!.status, 200, JSON.stringify(more!.body));
      for (const d of details) assert.equal(d.body.cached, true);
      for (const r of more!.body.results) {
        assert.ok(!seen.has(r.record_id), `round ${round}: ${r.record_id} served twice`);
        seen.add(r.record_id);
      }
    }
    assert.equal(seen.size, 29, "every record served exactly once");
  });
});
