// trends.search's google_trends mappers: the request (data type by term count, property, offset
// sign, worldwide), each data type's record from the recorded and documented-example bodies, zero
// records for SerpApi's no-results answer, and SerpApi's error shapes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import { serpApiRefusal } from "../shared/serpapi.ts";
import type { JsonObject } from "../types.ts";
import type { TrendsSearchQuery } from "./schema.ts";
import { SOURCE, TRENDS_ANSWERS, type TrendsAnswer, toPage as mapPage, toRequest } from "./serpapi-trends.ts";

/** The answer as the upstream client passes it (SerpApi's refusal, then the data type's schema), then mapped. */
function toPage(status: number, answer: unknown, query: TrendsSearchQuery, now: Date) {
  checkJsonAnswer(toRequest(query), status, answer);
  return mapPage(answer as TrendsAnswer, query, now);
}

const NOW = new Date("2030-01-01T00:00:00Z");
const body = (file: string) => fixture("serpapi-google_trends", file);
const q = (over: Partial<TrendsSearchQuery>): TrendsSearchQuery => ({
  query: "Klima",
  data_type: "TIMESERIES",
  property: "web",
  time_range: "2004-01-01 2022-12-31",
  timezone_offset_minutes: -60,
  geo: "CH",
  ...over,
});

test("request: the recorded search's parameters, tz counted behind UTC", () => {
  const r = toRequest(q({}));
  assert.equal(r.provider, "serpapi");
  assert.deepEqual(r.query, {
    engine: "google_trends",
    q: "Klima",
    data_type: "TIMESERIES",
    geo: "CH",
    region: undefined,
    cat: undefined,
    gprop: undefined,
    date: "2004-01-01 2022-12-31",
    tz: "60",
  });
  assert.equal(r.response, TRENDS_ANSWERS.TIMESERIES);
  assert.equal(r.refusal, serpApiRefusal);
  assert.equal(toRequest(q({ data_type: "GEO_MAP", region: "REGION" })).response, TRENDS_ANSWERS.GEO_MAP_0);
  assert.equal(toRequest(q({ data_type: "RELATED_TOPICS" })).response, TRENDS_ANSWERS.RELATED_TOPICS);
  assert.equal(toRequest(q({ timezone_offset_minutes: 0 })).query?.tz, "0");
  assert.equal(toRequest(q({ timezone_offset_minutes: 330 })).query?.tz, "-330");
});

test("request: GEO_MAP by term count, property names, worldwide geography, category", () => {
  assert.equal(toRequest(q({ data_type: "GEO_MAP", region: "REGION" })).query?.data_type, "GEO_MAP_0");
  assert.equal(toRequest(q({ query: "Klima, Wetter", data_type: "GEO_MAP" })).query?.data_type, "GEO_MAP");
  const gprop = (property: TrendsSearchQuery["property"]) => toRequest(q({ property })).query?.gprop;
  assert.deepEqual(["web", "images", "news", "shopping", "video"].map((p) => gprop(p as TrendsSearchQuery["property"])), [
    undefined,
    "images",
    "news",
    "froogle",
    "youtube",
  ]);
  assert.equal(toRequest(q({ geo: "" })).query?.geo, undefined);
  assert.equal(toRequest(q({ geo: undefined, region: "COUNTRY", data_type: "GEO_MAP" })).query?.region, "COUNTRY");
  assert.equal(toRequest(q({ category: 71 })).query?.cat, 71);
});

test("TIMESERIES (recorded): one record, its always keys, the series stored", () => {
  const page = toPage(200, body("timeseries.json"), q({}), NOW);
  assert.equal(page.records.length, 1);
  assert.equal(page.next, null);
  const { summary, detail, links } = page.records[0]!;
  assert.deepEqual(summary, {
    title: "Interest over time: Klima",
    snippet: '25 points from Jan 2004 to Jan 2006; peak 100 for "Klima" in Mar 2004.',
    data_type: "TIMESERIES",
    time_range: "2004-01-01 2022-12-31",
    source: SOURCE,
    fetched_at: "2022-11-26T09:43:09Z",
  });
  const dataset = (detail as JsonObject).dataset as JsonObject;
  assert.equal((dataset.timeline_data as JsonObject[]).length, 25);
  assert.equal(dataset.timeline_truncated, false);
  assert.equal((detail as JsonObject).geo, "CH");
  assert.match(links?.[0]?.url ?? "", /^https:\/\/trends\.google\.com\/trends\/api\/explore/);
});

test("GEO_MAP, RELATED_QUERIES and RELATED_TOPICS (documented examples)", () => {
  const geo0 = toPage(200, body("geo_map_0_region.json"), q({ data_type: "GEO_MAP", region: "REGION" }), NOW).records[0]!;
  assert.equal(geo0.summary.title, "Interest by region: Klima");
  assert.equal(geo0.summary.snippet, "10 regions; first: Basel City, Zurich, Bern.");
  const compared = toPage(200, body("geo_map_compared_region.json"), q({ query: "Klima,Wetter", data_type: "GEO_MAP", region: "REGION" }), NOW);
  assert.equal(compared.records[0]!.summary.title, "Compared breakdown by region: Klima, Wetter");
  const rq = toPage(200, body("related_queries.json"), q({ data_type: "RELATED_QUERIES" }), NOW).records[0]!;
  assert.equal(rq.summary.snippet, "5 top and 3 rising; first: klima schweiz, klimawandel, klimaanlage.");
  assert.equal(rq.summary.data_type, "RELATED_QUERIES");
  const rt = toPage(200, body("related_topics.json"), q({ data_type: "RELATED_TOPICS" }), NOW).records[0]!;
  assert.equal(rt.summary.snippet, "3 top and 2 rising; first: Climate, Climate change, Air conditioning.");
  // A body without the data type asked for is drift (SerpApi says "no results" when it has none), not zero records.
  assert.throws(
    () => toPage(200, body("related_topics.json"), q({ data_type: "RELATED_QUERIES" }), NOW),
    (e: unknown) => e instanceof ProviderDrift && /\/related_queries is missing/.test(e.message),
  );
});

test("schemas: every recording fits its data type's; a renamed or retyped field the mapper reads is drift", () => {
  checkShape("serpapi", TRENDS_ANSWERS.TIMESERIES, body("timeseries.json"));
  checkShape("serpapi", TRENDS_ANSWERS.GEO_MAP_0, body("geo_map_0_region.json"));
  checkShape("serpapi", TRENDS_ANSWERS.GEO_MAP, body("geo_map_compared_region.json"));
  checkShape("serpapi", TRENDS_ANSWERS.RELATED_QUERIES, body("related_queries.json"));
  checkShape("serpapi", TRENDS_ANSWERS.RELATED_TOPICS, body("related_topics.json"));
  const series = structuredClone(body("timeseries.json")) as { interest_over_time: { timeline_data: { values: { extracted_value: unknown }[] }[] } };
  series.interest_over_time.timeline_data[0]!.values[0]!.extracted_value = "90";
  assert.throws(
    () => toPage(200, series, q({}), NOW),
    (e: unknown) => e instanceof ProviderDrift && e.message.includes("/interest_over_time/timeline_data/0/values/0/extracted_value"),
  );
  const topics = structuredClone(body("related_topics.json")) as { related_topics: { top: { topic: Record<string, unknown> }[] } };
  topics.related_topics.top[0]!.topic.name = topics.related_topics.top[0]!.topic.title;
  delete topics.related_topics.top[0]!.topic.title;
  assert.throws(() => toPage(200, topics, q({ data_type: "RELATED_TOPICS" }), NOW), /\/related_topics\/top\/0\/topic\/title is missing/);
});

test("no results: zero records and a note (billed by SerpApi, so not an error)", () => {
  const page = toPage(200, body("no_results.json"), q({ query: "qzxwvjk flurbo", geo: undefined, time_range: "today 12-m", timezone_offset_minutes: 0 }), NOW);
  assert.deepEqual(page.records, []);
  assert.match(page.notes?.[0] ?? "", /no TIMESERIES data/);
});

test("SerpApi's error shapes: the account's key or searches, a refused parameter, a failed search", () => {
  const refused = (status: number, b: unknown, message: RegExp) =>
    assert.throws(
      () => toPage(status, b, q({}), NOW),
      (e: unknown) => e instanceof ApiError && e.code === "provider_error" && message.test(e.message),
    );
  refused(401, body("error_invalid_key.json"), /refused this deployment's account/);
  refused(200, body("error_out_of_searches.json"), /refused this deployment's account/);
  refused(400, { error: "Invalid `date` parameter." }, /SerpApi reported: Invalid `date` parameter/);
  refused(200, { search_metadata: { status: "Error" } }, /reported the search as failed/);
});
