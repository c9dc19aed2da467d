// markets.quote: schema bounds and defaults, metadata of spec 4.6, and the search glue through a fake
// upstream client serving the recorded SerpApi google_finance quote.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv } from "ajv";
import { fakeContext as kitContext, fixture, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { JsonObject } from "../types.ts";
import { marketsQuote } from "./capability.ts";

function quote(): unknown {
  return fixture("serpapi-google_finance", "quote.json");
}

function fakeContext(status: number, body: unknown) {
  return kitContext(() => response(status, body));
}

const validate = new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(marketsQuote.schema);

function valid(body: JsonObject): boolean {
  return validate(structuredClone(body)) === true;
}

test("schema: window defaults to 1D; symbols of each documented form are accepted", () => {
  const body: JsonObject = { symbol: "GOOGL:NASDAQ" };
  assert.equal(validate(body), true);
  assert.equal(body.window, "1D");
  assert.equal("language" in body, false);
  for (const symbol of [".DJI:INDEXDJX", "EUR-USD", "^GSPC", "BRK.B:NYSE", "X_Y", "a".repeat(80)]) {
    assert.ok(valid({ symbol }), symbol);
  }
  for (const window of ["1D", "5D", "1M", "6M", "YTD", "1Y", "5Y", "MAX"])
    assert.ok(valid({ symbol: "A", window }), "valid({ symbol: \"A\", window })");
  assert.ok(valid({ symbol: "A", language: "en" }), "valid({ symbol: \"A\", language: \"en\" })");
  assert.ok(valid({ symbol: "A", language: "pt-BR" }), "valid({ symbol: \"A\", language: \"pt-BR\" })");
  assert.ok(valid({ symbol: "A", language: "e".repeat(12) }), "valid({ symbol: \"A\", language: \"e\".repeat(12) })");
});

test("schema refuses bad symbols, windows, languages and unknown keys", () => {
  assert.equal(valid({}), false);
  assert.equal(valid({ symbol: "" }), false);
  assert.equal(valid({ symbol: "a".repeat(81) }), false);
  assert.equal(valid({ symbol: "GOOGL NASDAQ" }), false);
  assert.equal(valid({ symbol: "GOOGL/NASDAQ" }), false);
  assert.equal(valid({ symbol: "A", window: "1W" }), false);
  assert.equal(valid({ symbol: "A", window: "1d" }), false);
  assert.equal(valid({ symbol: "A", language: "e" }), false);
  assert.equal(valid({ symbol: "A", language: "e".repeat(13) }), false);
  assert.equal(valid({ symbol: "A", num: 1 }), false);
});

test("search sends one request with window and hl and returns the quote billed 4 credits", async () => {
  const { ctx, requests } = fakeContext(200, quote());
  const page = await marketsQuote.search(ctx, { symbol: "GOOGL:NASDAQ", window: "6M", language: "en" }, null);
  assert.equal(requests.length, 1);
  assert.equal(requests[0]?.provider, "serpapi");
  assert.equal(requests[0]?.path, "/search.json");
  assert.deepEqual(requests[0]?.query, {
    engine: "google_finance",
    q: "GOOGL:NASDAQ",
    window: "6M",
    hl: "en",
  });
  assert.equal(page.records.length, 1);
  assert.equal(page.next, null);
  assert.equal(page.credits, 4);
  assert.ok(page.credits <= marketsQuote.maxCredits({ symbol: "GOOGL:NASDAQ" }), "page.credits <= marketsQuote.maxCredits({ symbol: \"GOOGL:NASDAQ\" })");
  assert.equal(page.records[0]?.detail?.window, "6M");
});

test("search: a SerpApi 400 error body rejects with provider_error", async () => {
  const { ctx } = fakeContext(400, { error: "Invalid `window` value." });
  await assert.rejects(
    marketsQuote.search(ctx, { symbol: "GOOGL:NASDAQ", window: "1D" }, null),
    (e: unknown) =>
      e instanceof ApiError && e.code === "provider_error" && /Invalid `window`/.test(e.message),
  );
});

test("capability metadata follows spec 4.6", () => {
  assert.equal(marketsQuote.id, "markets.quote");
  assert.equal(marketsQuote.paging, "single");
  assert.equal(marketsQuote.deadlineMs, 40_000);
  assert.equal(marketsQuote.typicalCredits, 4);
  assert.equal(marketsQuote.maxCredits({ symbol: "X" }), 4);
  assert.equal(marketsQuote.offersUpdate, true);
  assert.deepEqual(marketsQuote.availability(new Set()), { missing: "SERPAPI_API_KEY" });
  assert.equal(marketsQuote.topic, "money and markets");
  assert.deepEqual(
    Object.values(marketsQuote.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "stored", 0]],
  );
});

test("examples are valid and use the recorded symbol", () => {
  assert.ok(marketsQuote.examples.length >= 2, "marketsQuote.examples.length >= 2");
  for (const { body } of marketsQuote.examples) {
    assert.equal(valid(body), true, JSON.stringify(body));
    assert.equal(body.symbol, "GOOGL:NASDAQ");
  }
});
