/**
 * trends.search end to end over HTTP against the replay upstream: the recorded time series, every
 * rule's violation and pointer (at execute and through update), every field's bounds, `more`
 * refused, `update` billed 4 credits, the stored dataset (free, cached), zero records for SerpApi's
 * no-results answer (billed), and SerpApi's account errors as 502 charging nothing.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { trendsSearch } from "../src/capabilities/trends-search/capability.ts";
import type { JsonObject } from "../src/capabilities/types.ts";
import { type CapabilityKit, startCapabilityKit, violationsOf } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("trends.search");
});
after(async () => {
  await kit.close();
});

const KLIMA = { query: "Klima", geo: "CH", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 };

test("execute: the recorded series as one record, 4 credits, update offered, more refused", async () => {
  const before = await kit.used();
  const res = await kit.execute(KLIMA);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result_count, 1);
  assert.equal(res.body.has_more, false);
  assert.deepEqual(res.body.next.actions, ["update"]);
  assert.equal(res.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  const record = res.body.results[0];
  assert.equal(record.title, "Interest over time: Klima");
  assert.equal(record.data_type, "TIMESERIES");
  assert.equal(record.time_range, "2004-01-01 2022-12-31");
  assert.equal(record.source, "Google Trends via SerpApi");
  assert.equal(record.fetched_at, "2022-11-26T09:43:09Z");
  const more = await kit.more(res.body.search_id);
  assert.equal(more.status, 400);
  assert.equal(more.body.error.code, "invalid_request");
  assert.equal(more.body.error.violations[0].path, "/action");
});

test("rules: region requires GEO_MAP; COUNTRY requires worldwide; term counts; date ranges", async () => {
  await kit.expectViolation({ ...KLIMA, region: "REGION" }, "/region", /requires `data_type`: "GEO_MAP"/);
  await kit.expectViolation({ query: "Klima", data_type: "GEO_MAP", region: "COUNTRY", geo: "CH" }, "/geo", /worldwide/);
  await kit.expectViolation({ query: "Klima", data_type: "GEO_MAP", region: "COUNTRY", geo: "" }, "/geo", /worldwide/);
  await kit.expectViolation({ query: "a,b,c,d,e,f" }, "/query", /at most five/);
  await kit.expectViolation({ query: "Klima,Wetter", data_type: "RELATED_QUERIES" }, "/query", /takes one term/);
  await kit.expectViolation({ query: "Klima", time_range: "2022-02-30 2022-03-01" }, "/time_range", /real calendar days/);
  await kit.expectViolation({ query: "Klima", time_range: "2022-03-01 2022-02-01" }, "/time_range", /after it ends/);
  // Worldwide COUNTRY maps and five terms are fine (the rules, not the replay, are checked here).
  const fine: JsonObject[] = [{ query: "Klima", data_type: "GEO_MAP", region: "COUNTRY" }, { query: "a,b,c,d,e" }];
  for (const body of fine) assert.deepEqual(violationsOf(trendsSearch, body), [], JSON.stringify(body));
});

test("rules through update: violations under /params at the field the caller sent", async () => {
  const geo = await kit.execute({ ...KLIMA, data_type: "GEO_MAP", region: "REGION" });
  assert.equal(geo.status, 200, JSON.stringify(geo.body));
  const id = geo.body.search_id;
  await kit.expectUpdateViolation(id, { data_type: "TIMESERIES" }, "/params/data_type", /`region` \(from the search\) requires/);
  await kit.expectUpdateViolation(id, { region: "COUNTRY" }, "/params/region", /worldwide/);
  await kit.expectUpdateViolation(id, { query: "Klima,Wetter", data_type: "RELATED_TOPICS", region: null }, "/params/query", /takes one term/);
  const two = await kit.execute({ ...KLIMA, query: "Klima,Wetter", data_type: "GEO_MAP", region: "REGION" });
  assert.equal(two.status, 200, JSON.stringify(two.body));
  await kit.expectUpdateViolation(two.body.search_id, { data_type: "RELATED_QUERIES", region: null }, "/params/data_type", /takes one term/);
  await kit.expectUpdateViolation(id, { time_range: "last year" }, "/params/time_range");
  await kit.expectUpdateViolation(id, { geo: "ch" }, "/params/geo");
});

test("every field's bounds, patterns and enums", async () => {
  const before = await kit.used();
  const cases: [object, string][] = [
    [{}, "/query"],
    [{ query: "" }, "/query"],
    [{ query: "x".repeat(501) }, "/query"],
    [{ query: "x", data_type: "timeseries" }, "/data_type"],
    [{ query: "x", data_type: "GEO_MAP_0" }, "/data_type"],
    [{ query: "x", geo: "ch" }, "/geo"],
    [{ query: "x", geo: "C".repeat(31) }, "/geo"],
    [{ query: "x", geo: "US_NY" }, "/geo"],
    [{ query: "x", data_type: "GEO_MAP", region: "STATE" }, "/region"],
    [{ query: "x", category: -1 }, "/category"],
    [{ query: "x", category: 1.5 }, "/category"],
    [{ query: "x", property: "youtube" }, "/property"],
    [{ query: "x", property: "froogle" }, "/property"],
    [{ query: "x", time_range: "today 2-y" }, "/time_range"],
    [{ query: "x", time_range: "now 1-h" }, "/time_range"],
    [{ query: "x", time_range: "2022-01-01" }, "/time_range"],
    [{ query: "x", time_range: "2022-01-01  2022-02-01" }, "/time_range"],
    [{ query: "x", timezone_offset_minutes: 1440 }, "/timezone_offset_minutes"],
    [{ query: "x", timezone_offset_minutes: -1440 }, "/timezone_offset_minutes"],
    [{ query: "x", num: 1 }, "/num"],
  ];
  for (const [body, pointer] of cases) await kit.expectViolation(body, pointer);
  assert.equal(await kit.used(), before, "refused calls cost nothing");
});

test("update: fetched again with merged params, same search_id, billed 4 credits", async () => {
  const ex = await kit.execute(KLIMA);
  const before = await kit.used();
  const up = await kit.update(ex.body.search_id, { data_type: "RELATED_QUERIES" });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.equal(up.body.result_count, 1);
  assert.equal(up.body.results[0].title, "Related queries: Klima");
  assert.equal(up.body.results[0].data_type, "RELATED_QUERIES");
  assert.notEqual(up.body.results[0].record_id, ex.body.results[0].record_id);
  // The old record stays valid for record actions.
  const old = await kit.action(ex.body.results[0].record_id, "details");
  assert.equal(old.status, 200);
  assert.equal(old.body.detail.data_type, "TIMESERIES");
});

test("details: the stored dataset, free and cached, no provider call", async () => {
  const ex = await kit.execute({ ...KLIMA, data_type: "RELATED_TOPICS" });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  const from = kit.h.replay.requests.length;
  const before = await kit.used();
  const d = await kit.action(ex.body.results[0].record_id, "details");
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.cached, true);
  assert.equal(d.body.charged_credits, 0);
  assert.equal(d.body.detail.dataset.top[0].topic.title, "Climate");
  assert.equal(d.body.detail.dataset.rising[0].value, "Breakout");
  const again = await kit.action(ex.body.results[0].record_id, "details");
  assert.equal(again.body.charged_credits, 0);
  assert.equal(again.body.cached, true);
  assert.equal(kit.h.replay.requests.length, from);
  assert.equal(await kit.used(), before);
});

test("SerpApi's no-results answer: zero records, billed; its account errors: 502, nothing charged", async () => {
  const before = await kit.used();
  const none = await kit.execute({ query: "qzxwvjk flurbo" });
  assert.equal(none.status, 200, JSON.stringify(none.body));
  assert.equal(none.body.result_count, 0);
  assert.equal(none.body.charged_credits, 4);
  assert.match(none.body.notes[0], /no TIMESERIES data/);
  assert.equal((await kit.used()) - before, 4);
  for (const query of ["invalid key probe", "out of searches probe"]) {
    const res = await kit.execute({ query, time_range: "all" });
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "provider_error");
    assert.doesNotMatch(res.body.error.message, /Invalid API key|run out of searches/, "SerpApi's account words stay in the log");
  }
  assert.equal((await kit.used()) - before, 4);
});
