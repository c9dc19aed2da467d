// Pure SerpApi google_finance mappers replayed against the recorded quote
// (fixtures/providers/serpapi-google_finance/quote.json) and hand-written error bodies, which go
// through the same answer check as the upstream client (SerpApi's refusal, then the schema).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import { serpApiRefusal, serpTime } from "../shared/serpapi.ts";
import { currencyOf, type FinanceAnswer, financeAnswer, financeProbe, graphTime, sample, toPage as mapPage, toRequest } from "./serpapi-finance.ts";

type Body = Record<string, unknown>;

/** The answer as the client passes it (checked), then mapped. */
function toPage(status: number, body: unknown, query: { symbol: string; window: "1D" }) {
  checkJsonAnswer(toRequest(query), status, body);
  return mapPage(body as FinanceAnswer, query);
}

function quote(): Body {
  const url = new URL("../../../fixtures/providers/serpapi-google_finance/quote.json", import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as Body;
}

const QUERY = { symbol: "GOOGL:NASDAQ", window: "1D" as const };

function isProviderError(e: unknown): boolean {
  return e instanceof ApiError && e.code === "provider_error";
}

test("request: GET /search.json engine=google_finance q window hl (hl=en when language is omitted), no key", () => {
  const req = toRequest({ symbol: "GOOGL:NASDAQ", window: "5D", language: "en" });
  assert.equal(req.provider, "serpapi");
  assert.equal(req.method, "GET");
  assert.equal(req.path, "/search.json");
  assert.deepEqual(req.query, { engine: "google_finance", q: "GOOGL:NASDAQ", window: "5D", hl: "en" });
  assert.equal(req.response, financeAnswer);
  assert.equal(req.refusal, serpApiRefusal);
  assert.equal(req.acceptStatus, undefined, "every status is read by SerpApi's refusal hook");
  assert.deepEqual(toRequest({ symbol: "EUR-USD", window: "1D" }).query, {
    engine: "google_finance",
    q: "EUR-USD",
    window: "1D",
    hl: "en",
  });
});

test("the recorded quote maps to one record with the spec keys", () => {
  const page = toPage(200, quote(), QUERY);
  assert.equal(page.next, null);
  assert.equal(page.records.length, 1);
  const s = page.records[0]?.summary;
  assert.ok(s, "s");
  assert.equal(s.title, "Alphabet Inc Class A");
  assert.equal(s.url, "https://www.google.com/finance/quote/GOOGL:NASDAQ?hl=en");
  assert.equal(s.symbol, "GOOGL");
  assert.equal(s.exchange, "NASDAQ");
  assert.equal(s.price, 89.23);
  assert.equal(s.currency, "USD");
  assert.equal(s.observed_at, "2022-12-24T12:13:15Z");
  assert.deepEqual(s.change, { value: 1.4700012, percentage: 1.6750242, movement: "Up" });
  assert.equal(s.source, "Google Finance via SerpApi");
  assert.match(s.snippet ?? "", /^Alphabet Inc Class A \(GOOGL, NASDAQ\): 89\.23 USD, up 1\.47 \(1\.68%\)/);
  assert.match(s.snippet ?? "", /Closed: Dec 23, 7:59:31 PM GMT-5/);
  assert.match(s.snippet ?? "", /After Hours: 89\.05, down 0\.18 \(0\.2%\)/);
});

test("the stored detail is bounded and shaped", () => {
  const rec = toPage(200, quote(), QUERY).records[0];
  const d = rec?.detail;
  assert.ok(d, "d");
  assert.equal(d.window, "1D");
  assert.equal(d.price_display, "$89.23");
  assert.deepEqual(d.market_status, ["Closed: Dec 23, 7:59:31 PM GMT-5"]);
  assert.deepEqual(d.extended_hours, {
    price: 89.05,
    session: "After Hours",
    change: { value: 0.18, percentage: 0.2, movement: "Down" },
  });
  const graph = d.graph as JsonObject;
  assert.equal(graph.point_count, 3);
  assert.equal(graph.first_price, 87.09);
  assert.equal(graph.last_price, 88.19);
  assert.equal(graph.low, 87.09);
  assert.equal(graph.high, 88.19);
  assert.deepEqual((graph.points as JsonObject[])[0], {
    time: "2022-12-23T09:30:00-05:00",
    price: 87.09,
    volume: 4819,
  });
  assert.deepEqual(d.key_stats, [
    { label: "Previous close", value: "$87.76" },
    { label: "Day range", value: "$87.07 - $89.55" },
    { label: "Year range", value: "$83.34 - $151.55" },
  ]);
  assert.deepEqual(d.tags, ["Most active", "Stock", "US listed security"]);
  const about = d.about as JsonObject;
  assert.equal(about.source_url, "https://en.wikipedia.org/wiki/Alphabet_Inc.");
  assert.ok((about.description as string).length <= 1500, "(about.description as string).length <= 1500");
  assert.equal((about.facts as JsonObject[])[0]?.label, "CEO");
  const news = d.news as JsonObject[];
  assert.equal(news.length, 3, "grouped and plain news entries are flattened");
  assert.equal(news[1]?.source, "The Economic Times");
  assert.equal("snippet" in d, false);
  assert.equal(rec?.links?.[0]?.label, "Google Finance");
  assert.equal(rec?.links?.length, 5);
});

test("graph points are sampled to at most 60, keeping first and last", () => {
  const body = quote();
  body.graph = Array.from({ length: 391 }, (_, i) => ({
    price: 100 + i,
    currency: "USD",
    date: "Dec 23 2022, 09:30 AM UTC-05:00",
  }));
  const graph = toPage(200, body, QUERY).records[0]?.detail?.graph as JsonObject;
  const points = graph.points as JsonObject[];
  assert.equal(points.length, 60);
  assert.equal(points[0]?.price, 100);
  assert.equal(points[59]?.price, 490);
  assert.equal(graph.point_count, 391);
  assert.equal(graph.high, 490);
  assert.deepEqual(sample([1, 2, 3], 60), [1, 2, 3]);
});

test("keys the body lacks are omitted, never null", () => {
  const body = quote();
  body.summary = { title: "Some Index", stock: ".XYZ" };
  delete body.graph;
  delete body.search_metadata;
  delete body.knowledge_graph;
  delete body.news_results;
  const rec = toPage(200, body, { symbol: ".XYZ:IDX", window: "1D" }).records[0];
  assert.ok(rec, "rec");
  assert.deepEqual(Object.keys(rec.summary).sort(), ["snippet", "source", "symbol", "title"]);
  assert.equal(rec.detail?.window, "1D");
  assert.deepEqual(rec.links, []);
});

test("currency: ISO code from graph or extensions, never a bare sign; exchange names are not currencies", () => {
  assert.equal(currencyOf({}, { extensions: ["Closed", "ASX", "AUD"], currency: "$" }, "ASX"), "AUD");
  assert.equal(currencyOf({}, { extensions: ["ASX"], currency: "$" }, "ASX"), undefined);
  assert.equal(currencyOf({}, { currency: "€" }, undefined), "EUR");
  assert.equal(currencyOf({ graph: [{ currency: "$" }, { currency: "EUR" }] }, {}, undefined), "EUR");
});

test("time parsing: SerpApi created_at and graph dates become ISO 8601", () => {
  assert.equal(serpTime("2022-12-24 12:13:15 UTC"), "2022-12-24T12:13:15Z");
  assert.equal(serpTime("yesterday"), undefined);
  assert.equal(graphTime("Dec 23 2022, 12:05 PM UTC-05:00"), "2022-12-23T12:05:00-05:00");
  assert.equal(graphTime("Jan 2 2023, 12:00 AM UTC+01:00"), "2023-01-02T00:00:00+01:00");
  assert.equal(graphTime("23/12/2022"), undefined);
});

test('a "no results" error body is zero records, still billed (SerpApi bills empty searches)', () => {
  const body = {
    search_metadata: { status: "Success" },
    error: "Google hasn't returned any results for this query.",
  };
  const page = toPage(200, body, { symbol: "NOPE:NOWHERE", window: "1D" });
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
  assert.match(page.notes?.[0] ?? "", /NOPE:NOWHERE/);
});

test("a body without summary is zero records (SerpApi answers some instruments so)", () => {
  const page = toPage(200, { search_metadata: { status: "Success" }, markets: {} }, QUERY);
  assert.equal(page.records.length, 0);
});

test("schema: the recorded quote fits; a renamed or retyped field the mapper reads is drift", () => {
  checkShape("serpapi", financeAnswer, quote());
  const untitled = quote();
  const summary = untitled.summary as Body;
  summary.name = summary.title;
  delete summary.title;
  assert.throws(() => toPage(200, untitled, QUERY), (e: unknown) => e instanceof ProviderDrift && /\/summary\/title is missing/.test(e.message));
  const retyped = quote();
  (retyped.summary as Body).extracted_price = "89.23";
  assert.throws(() => toPage(200, retyped, QUERY), (e: unknown) => e instanceof ProviderDrift && e.message.includes("/summary/extracted_price"));
  const graph = quote();
  graph.graph = { points: [] };
  assert.throws(() => toPage(200, graph, QUERY), ProviderDrift);
});

test("the provider probe is one google_finance quote with this adapter's schema", () => {
  assert.equal(financeProbe.provider, "serpapi");
  assert.deepEqual(financeProbe.request.query, { engine: "google_finance", q: "GOOGL:NASDAQ", window: "1D", hl: "en" });
  assert.equal(financeProbe.request.response, financeAnswer);
});

test("SerpApi error bodies are provider errors with the provider's message", () => {
  assert.throws(
    () => toPage(400, { error: "Unsupported `window` parameter." }, QUERY),
    (e: unknown) => isProviderError(e) && /Unsupported `window` parameter/.test((e as Error).message),
  );
  assert.throws(
    () => toPage(400, { error: "Google hasn't returned any results for this query." }, QUERY),
    isProviderError,
  );
  assert.throws(() => toPage(200, { search_metadata: { status: "Error" } }, QUERY), isProviderError);
  assert.throws(() => toPage(200, "<html>", QUERY), (e: unknown) => isProviderError(e) && e instanceof ProviderDrift);
});

test("errors about the deployment's SerpApi account reach the log, not the caller", () => {
  // As SerpApi sends them (serpapi.com/api-status-and-error-codes): 401 for the key, 403 for the
  // account, and a searches-run-out text in a body of another status.
  for (const [status, error] of [
    [401, "Invalid API key. Your API key should be here: https://serpapi.com/manage-api-key"],
    [403, "The account associated with this API key doesn't have permission to perform the request."],
    [400, "Your searches for the month have run out. You can upgrade your plan at https://serpapi.com/pricing"],
    [200, "Your account has run out of searches."],
  ] as const) {
    assert.throws(
      () => toPage(status, { error }, QUERY),
      (e: unknown) => {
        const api = e as ApiError;
        assert.ok(isProviderError(e), error);
        assert.doesNotMatch(api.message, /run out|Invalid API key|manage-api-key|plan does not/, error);
        assert.match(api.message, /refused this deployment's account/);
        assert.equal((api.cause as Error).message, `SerpApi (HTTP ${status}): ${error}`);
        return true;
      },
    );
  }
  // A 401 without an error text is the same refusal.
  assert.throws(() => toPage(401, {}, QUERY), /refused this deployment's account/);
  // A refusal of the request itself keeps SerpApi's words, even when they quote a symbol like PLAN:NYSE.
  assert.throws(
    () => toPage(400, { error: "Unsupported symbol: PLAN:NYSE." }, QUERY),
    (e: unknown) => isProviderError(e) && /SerpApi reported: Unsupported symbol: PLAN:NYSE/.test((e as Error).message),
  );
});
