/**
 * legal.search end to end over HTTP against the replay upstream: both jurisdictions (CourtListener's
 * recorded search; CELLAR SPARQL answers built from documented examples), the requests they send,
 * 4 credits a search and a `more` page, paging to the end, every field's bounds and patterns in each
 * branch (execute and update), the year rule, update, stored details (and 410 when a stored candidate
 * has lost them), provider failures as provider_error with nothing charged, and the missing
 * CourtListener key making only `us` unavailable.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Store } from "../src/store/types.ts";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { openTestStore, startHarness } from "./helpers/harness.ts";

let kit: CapabilityKit;
/** Record ids whose stored detail the store "loses" (a stored candidate without details). */
const lost = new Set<string>();
let cleanup: () => Promise<void>;

before(async () => {
  const opened = await openTestStore();
  cleanup = opened.cleanup;
  const store = new Proxy(opened.store, {
    get(target, prop, receiver) {
      if (prop === "getRecord") {
        return async (id: string) => {
          const found = await target.getRecord(id);
          return found && lost.has(id) ? { ...found, record: { ...found.record, detail: null } } : found;
        };
      }
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Store;
  kit = await startCapabilityKit("legal.search", { store });
});
after(async () => {
  await kit.close();
  await cleanup();
});

const US = { search: { jurisdiction: "us", query: "foo" } };
const PRIVACY = { search: { jurisdiction: "eu", query: "privacy electronic communications", kind: "legislation" } };
const calls = (prefix: string, from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === prefix);

test("us: CourtListener's case-law search, records without snippet with the legal.read request; 4 credits", async () => {
  const from = kit.h.replay.requests.length;
  const used = await kit.used();
  const res = await kit.execute(US);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const [req] = calls("courtlistener", from);
  assert.equal(req?.path, "/courtlistener/api/rest/v4/search/");
  assert.deepEqual(req?.query, { type: "o", q: "foo", order_by: "score desc" });
  assert.equal(req?.headers.authorization, "Token demo-key", "the key as CourtListener documents it");
  assert.equal(res.body.charged_credits, 4);
  assert.equal((await kit.used()) - used, 4);
  assert.deepEqual(res.body.record_actions, ["details"]);
  const [r] = res.body.results;
  assert.equal(r.title, "Foo v. Foo");
  assert.equal(r.identifier, "courtlistener-cluster:6613686");
  assert.equal(r.source, "case_index");
  assert.equal(r.source_class, "institutional_transcription");
  assert.equal(r.snippet, undefined);
  assert.deepEqual(r.full_text, { capability: "legal.read", params: { document: { source: "case_index", caselaw_id: "6613686" } } });
});

test("us paging: `more` follows CourtListener's cursor to the end, each page a search; past the end, free and empty", async () => {
  const first = await kit.execute(US);
  assert.equal(first.body.has_more, true);
  assert.deepEqual(first.body.next.example, { search_id: first.body.search_id, action: "more" });
  const from = kit.h.replay.requests.length;
  const used = await kit.used();
  const more = await kit.more(first.body.search_id);
  assert.equal(more.status, 200, JSON.stringify(more.body));
  assert.equal(calls("courtlistener", from)[0]?.query.cursor, "cz0yMzUuODcxMjUmcz04MDUzNTUzJnQ9byZkPTIwMjQtMDktMTY=");
  assert.equal(more.body.charged_credits, 4);
  assert.equal((await kit.used()) - used, 4);
  assert.deepEqual(more.body.results.map((r: { title: string }) => r.title), ["Noem v. Abrego Garcia"]);
  assert.equal(more.body.has_more, false);
  const past = await kit.more(first.body.search_id);
  assert.equal(past.status, 200);
  assert.deepEqual([past.body.result_count, past.body.charged_credits, past.body.has_more], [0, 0, false]);
});

test("us filters: courts as CourtListener court ids, years as filing dates", async () => {
  const from = kit.h.replay.requests.length;
  const res = await kit.execute({ search: { jurisdiction: "us", query: "foo", courts: "state", from_year: 1990, to_year: 2005 }, num: 1 });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const q = calls("courtlistener", from)[0]!.query;
  assert.equal(q.filed_after, "1990-01-01");
  assert.equal(q.filed_before, "2005-12-31");
  assert.ok(q.court!.split(" ").includes("hawapp"), "q.court!.split(\" \").includes(\"hawapp\")");
  assert.ok(!q.court!.split(" ").includes("scotus"), "!q.court!.split(\" \").includes(\"scotus\")");
  const fed = kit.h.replay.requests.length;
  await kit.execute({ search: { jurisdiction: "us", query: "foo", courts: "federal" } });
  assert.ok(calls("courtlistener", fed)[0]!.query.court!.split(" ").includes("scotus"), "calls(\"courtlistener\", fed)[0]!.query.court!.split(\" \").includes(\"scotus\")");
});

test("eu: CELLAR SPARQL as a GET, records with CELEX, kind and full_text; paged to the end at 4 credits a page", async () => {
  const from = kit.h.replay.requests.length;
  const used = await kit.used();
  const first = await kit.execute({ ...PRIVACY, num: 1 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  const [req] = calls("eu_publications", from);
  assert.equal(req?.method, "GET");
  assert.equal(req?.path, "/eu_publications/webapi/rdf/sparql");
  assert.equal(req?.query.format, "application/sparql-results+json");
  assert.match(req!.query.query!, /LIMIT 2 OFFSET 0$/);
  assert.deepEqual(first.body.results.map((r: { identifier: string }) => r.identifier), ["CELEX:32009L0136"]);
  assert.equal(first.body.results[0].document_kind, "legislation");
  assert.equal(first.body.results[0].language, "EN");
  assert.equal(first.body.has_more, true);
  const more = await kit.more(first.body.search_id);
  assert.equal(more.status, 200, JSON.stringify(more.body));
  assert.deepEqual(more.body.results.map((r: { identifier: string }) => r.identifier), ["CELEX:32002L0058"]);
  assert.deepEqual(more.body.results[0].full_text, { capability: "legal.read", params: { document: { source: "eu_official", celex: "32002L0058", language: "EN" } } });
  assert.equal(more.body.has_more, false);
  assert.equal((await kit.used()) - used, 8);
  const judgments = await kit.execute({ search: { jurisdiction: "eu", query: "data retention", kind: "judgment" }, num: 2 });
  assert.deepEqual(judgments.body.results.map((r: { ecli: string }) => r.ecli), ["ECLI:EU:C:2016:970", "ECLI:EU:C:2014:238"]);
});

test("details: the stored candidate with its legal.read request, free and without a provider call; lost → 410", async () => {
  const res = await kit.execute(PRIVACY);
  const record = res.body.results[1];
  const from = kit.h.replay.requests.length;
  const used = await kit.used();
  const details = await kit.action(record.record_id, "details");
  assert.equal(details.status, 200, JSON.stringify(details.body));
  assert.equal(details.body.charged_credits, 0);
  assert.equal(details.body.cached, true);
  assert.equal(details.body.detail.celex, "32002L0058");
  assert.equal(details.body.detail.date, "2002-07-12");
  assert.deepEqual(details.body.detail.full_text, record.full_text);
  assert.deepEqual(details.body.links, [{ label: "EUR-Lex", url: "https://eur-lex.europa.eu/legal-content/EN/TXT/?uri=CELEX:32002L0058" }]);
  assert.equal(kit.h.replay.requests.length, from);
  assert.equal(await kit.used(), used);
  lost.add(record.record_id);
  const gone = await kit.action(record.record_id, "details");
  assert.equal(gone.status, 410, JSON.stringify(gone.body));
  assert.equal(gone.body.error.code, "session_expired");
  assert.equal(kit.h.replay.requests.length, from, "never fetched again");
});

test("each branch's fields: bounds, patterns, the tag, and the other branch's fields refused (nothing charged)", async () => {
  const used = await kit.used();
  await kit.expectViolation({}, "/search", /required/);
  await kit.expectViolation({ search: "us" }, "/search");
  await kit.expectViolation({ search: { query: "x" } }, "/search/jurisdiction", /required/);
  await kit.expectViolation({ search: { jurisdiction: "uk", query: "x" } }, "/search/jurisdiction", /"us", "eu"/);
  await kit.expectViolation({ search: { jurisdiction: "us" } }, "/search/query", /required/);
  await kit.expectViolation({ search: { jurisdiction: "us", query: "" } }, "/search/query");
  await kit.expectViolation({ search: { jurisdiction: "us", query: "x".repeat(501) } }, "/search/query");
  await kit.expectViolation({ search: { jurisdiction: "eu", query: "   " } }, "/search/query", /blank/);
  await kit.expectViolation({ search: { jurisdiction: "us", query: "x", courts: "county" } }, "/search/courts");
  await kit.expectViolation({ search: { jurisdiction: "us", query: "x", from_year: 1599 } }, "/search/from_year");
  await kit.expectViolation({ search: { jurisdiction: "us", query: "x", to_year: 2101 } }, "/search/to_year");
  await kit.expectViolation({ search: { jurisdiction: "us", query: "x", from_year: "1990" } }, "/search/from_year");
  await kit.expectViolation({ search: { jurisdiction: "us", query: "x", language: "EN" } }, "/search/language", /unknown field/);
  await kit.expectViolation({ search: { jurisdiction: "eu", query: "x", kind: "treaty" } }, "/search/kind");
  await kit.expectViolation({ search: { jurisdiction: "eu", query: "x", language: "JP" } }, "/search/language");
  await kit.expectViolation({ search: { jurisdiction: "eu", query: "x", to_year: 2000 } }, "/search/to_year", /unknown field/);
  await kit.expectViolation({ ...US, num: 0 }, "/num");
  await kit.expectViolation({ ...US, num: 11 }, "/num");
  await kit.expectViolation({ ...US, court: "scotus" }, "/court", /unknown field/);
  for (const ok of [{ ...US, num: 10 }, { search: { jurisdiction: "us", query: "foo", from_year: 1600, to_year: 2100 }, num: 1 }]) {
    assert.equal((await kit.execute(ok)).status, 200, JSON.stringify(ok));
  }
  assert.equal((await kit.used()) - used, 8, "only the two accepted searches were charged");
});

test("rule: from_year must not exceed to_year, at /search/from_year; through update at /params/search/from_year", async () => {
  const used = await kit.used();
  const v = await kit.expectViolation({ search: { jurisdiction: "us", query: "x", from_year: 2001, to_year: 2000 } }, "/search/from_year", /must not exceed to_year/);
  assert.equal(v.length, 1);
  const ex = await kit.execute({ search: { jurisdiction: "us", query: "foo", from_year: 1990 } });
  const charged = (await kit.used()) - used;
  await kit.expectUpdateViolation(ex.body.search_id, { search: { jurisdiction: "us", query: "foo", from_year: 2001, to_year: 2000 } }, "/params/search/from_year");
  await kit.expectUpdateViolation(ex.body.search_id, { search: { jurisdiction: "us", query: "foo", courts: "tribal" } }, "/params/search/courts");
  await kit.expectUpdateViolation(ex.body.search_id, { search: { query: "foo" } }, "/params/search/jurisdiction");
  await kit.expectUpdateViolation(ex.body.search_id, { num: 11 }, "/params/num");
  await kit.expectUpdateViolation(ex.body.search_id, { page: 2 }, "/params/page");
  assert.equal((await kit.used()) - used, charged, "refused updates cost nothing");
});

test("update: the search replaced, same search_id, paging reset, billed as a search; across jurisdictions too", async () => {
  const ex = await kit.execute(US);
  const used = await kit.used();
  const from = kit.h.replay.requests.length;
  const up = await kit.update(ex.body.search_id, { num: 2 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.charged_credits, 4);
  assert.equal(calls("courtlistener", from)[0]?.query.cursor, undefined, "paging starts over");
  const eu = await kit.update(ex.body.search_id, { search: PRIVACY.search, num: 3 });
  assert.equal(eu.status, 200, JSON.stringify(eu.body));
  assert.deepEqual(eu.body.results.map((r: { identifier: string }) => r.identifier), ["CELEX:32009L0136", "CELEX:32002L0058"]);
  assert.equal((await kit.used()) - used, 8);
});

test("provider failures are provider_error and charge nothing", async () => {
  const used = await kit.used();
  kit.h.replay.setFault("courtlistener", { kind: "status", status: 503 });
  kit.h.replay.setFault("eu_publications", { kind: "status", status: 500 });
  try {
    for (const body of [US, PRIVACY]) {
      const res = await kit.execute(body);
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
    }
  } finally {
    kit.h.replay.setFault("courtlistener", null);
    kit.h.replay.setFault("eu_publications", null);
  }
  kit.h.replay.setFault("courtlistener", { kind: "invalid_json" });
  try {
    assert.equal((await kit.execute(US)).body.error.code, "provider_error");
  } finally {
    kit.h.replay.setFault("courtlistener", null);
  }
  assert.equal(await kit.used(), used);
});

test("without COURTLISTENER_API_KEY only `us` is unavailable (503 naming it); `eu` keeps working", async () => {
  const h = await startHarness({ env: { COURTLISTENER_API_KEY: "" } });
  try {
    const { key } = await h.account("pro");
    const us = await h.call("POST", "/v1/capabilities/legal.search/execute", { key, body: US });
    assert.equal(us.status, 503, JSON.stringify(us.body));
    assert.equal(us.body.error.code, "capability_unavailable");
    assert.match(us.body.error.message, /COURTLISTENER_API_KEY/);
    const eu = await h.call("POST", "/v1/capabilities/legal.search/execute", { key, body: PRIVACY });
    assert.equal(eu.status, 200, JSON.stringify(eu.body));
    const catalog = await h.call("GET", "/v1/catalog", { key });
    const entry = catalog.body.capabilities.find((c: { id: string }) => c.id === "legal.search");
    assert.equal(entry.available, true);
    assert.match(entry.unavailable_reason, /search\/jurisdiction "us" is unavailable: COURTLISTENER_API_KEY/);
  } finally {
    await h.close();
  }
});
