/**
 * patents.search declaration (Quarry's design, spec "not shown"): 4 credits per SerpApi read, 40 s,
 * page paging, num 10/25, SERPAPI_API_KEY required, the rules at their pointers (also with an update's
 * sent fields), and the search and details glue through a fake upstream that runs the client's checks.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, fixtureText, response, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject } from "../types.ts";
import { patentsSearch } from "./capability.ts";

const search = () => fixture("serpapi-google_patents", "search_coffee_documented.json");
const details = () => fixture("serpapi-google_patents", "details_us8110241b2_documented.json");
const description = () => fixtureText("serpapi-google_patents", "description_us8110241b2_documented.html");
const Q = { query: "(Coffee)", sort: "relevance" as const, num: 10 };

test("metadata", () => {
  assert.equal(patentsSearch.topic, "research and reading");
  assert.equal(patentsSearch.paging, "page");
  assert.equal(patentsSearch.deadlineMs, 40_000);
  assert.equal(patentsSearch.typicalCredits, 4);
  assert.equal(patentsSearch.maxCredits({ query: "x", num: 10 }), 4);
  assert.equal(patentsSearch.maxCredits({ query: "x", num: 5 }), 8, "under 10 a call may cross a SerpApi page");
  assert.deepEqual(patentsSearch.availability(new Set()), { missing: "SERPAPI_API_KEY" });
  assert.deepEqual(patentsSearch.availability(new Set(["SERPAPI_API_KEY"])), {});
  assert.deepEqual(patentsSearch.recordKeys.required, ["patent_id"]);
  assert.deepEqual(
    Object.values(patentsSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 4]],
  );
  assert.ok(patentsSearch.ruleTexts.length === 5, "patentsSearch.ruleTexts.length === 5");
  assert.match(patentsSearch.description, /Not offered/);
});

test("defaults and rules", () => {
  const body = { query: "patch" };
  assert.deepEqual(violationsOf(patentsSearch, body), []);
  assert.deepEqual(body, { query: "patch", sort: "relevance", num: 10 });
  const at = (b: JsonObject) => violationsOf(patentsSearch, b).map((v) => v.path);
  assert.deepEqual(at({}), [""]);
  assert.deepEqual(at({ to_date: "2000-01-01" }), []);
  assert.deepEqual(at({ inventor: "x", match: "all" }), ["/match"]);
  assert.deepEqual(at({ from_date: "2000-02-30" }), ["/from_date"]);
  assert.deepEqual(at({ from_date: "2001-01-01", to_date: "2000-01-01" }), ["/from_date"]);
  assert.deepEqual(at({ query: "   " }), ["/query"]);
  assert.deepEqual(at({ query: "x", country: "US,EP,WO" }), []);
  assert.deepEqual(at({ query: "x", country: "USA" }), ["/country"]);
  assert.deepEqual(at({ query: "x", status: "pending" }), ["/status"]);
  assert.deepEqual(at({ query: "x", sort: "cited" }), ["/sort"]);
  const stored = { query: "x", from_date: "2001-01-01", to_date: "2000-01-01", sort: "newest", num: 10 };
  assert.deepEqual(patentsSearch.checkRules(stored, new Set(["to_date"])).map((v) => v.path), ["/to_date"]);
  for (const e of patentsSearch.examples) assert.deepEqual(violationsOf(patentsSearch, structuredClone(e.body)), [], e.title);
});

test("search: one SerpApi read of max(10, num), records cut to num, the cursor continues in the same page", async () => {
  const { ctx, requests } = fakeContext(() => response(200, search()));
  const first = await patentsSearch.search(ctx, { ...Q, num: 2 }, null);
  assert.equal(requests.length, 1);
  assert.deepEqual(requests[0]?.query, {
    engine: "google_patents",
    q: "(Coffee)",
    page: 1,
    num: 10,
    sort: undefined,
    after: undefined,
    before: undefined,
    assignee: undefined,
    inventor: undefined,
    country: undefined,
    status: undefined,
  });
  assert.deepEqual(
    first.records.map((r) => r.summary.patent_id),
    ["US8110241B2", "RU2766609C2"],
  );
  assert.equal(first.credits, 4);
  assert.deepEqual(first.next, { page: null, skip: 2 });
  // The rest of the documented page, then SerpApi's next page (serpapi_pagination.next).
  const second = await patentsSearch.search(ctx, { ...Q, num: 2 }, first.next);
  assert.deepEqual(
    second.records.map((r) => r.summary.patent_id),
    ["US8495950B2", "US8110241B2"],
  );
  assert.deepEqual(
    requests.slice(1).map((r) => r.query?.page),
    [1, 2],
  );
  assert.equal(second.credits, 8, "two SerpApi reads, each billed");
  assert.deepEqual(second.next, { page: 2, skip: 1 });
});

test("search: SerpApi's no-results answer is an empty billed page; its refusals and a drifted answer are errors", async () => {
  const none = fakeContext(() => response(200, { search_metadata: { status: "Success" }, error: "Google Patents hasn't returned any results for this query." }));
  const empty = await patentsSearch.search(none.ctx, Q, null);
  assert.deepEqual(empty.records, []);
  assert.equal(empty.next, null);
  assert.equal(empty.credits, 4);
  const refused = fakeContext(() => response(400, { error: "Invalid `country` parameter." }));
  await assert.rejects(patentsSearch.search(refused.ctx, Q, null), (e: unknown) => e instanceof ApiError && /SerpApi reported: Invalid `country`/.test(e.message));
  const drifted = search() as { organic_results: Record<string, unknown>[] };
  drifted.organic_results[1]!.name = drifted.organic_results[1]!.title;
  delete drifted.organic_results[1]!.title;
  const drift = fakeContext(() => response(200, drifted));
  await assert.rejects(patentsSearch.search(drift.ctx, Q, null), (e: unknown) => e instanceof ProviderDrift && e.message.includes("/organic_results/1/title"));
});

test("details: one google_patents_details read by SerpApi's patent id, then the description page on serpapi.com", async () => {
  const { ctx, requests } = fakeContext((request: UpstreamRequest) => (request.responseType === "text" ? response(200, description()) : response(200, details())));
  const record = {
    summary: { title: "Foaming soluble coffee powder containing pressurized gas", patent_id: "US8110241B2" },
    ref: { patent_id: "patent/US8110241B2/en" },
    detail: null,
    query: Q,
  };
  const action = patentsSearch.actions.details!;
  assert.equal(action.appliesTo(record), true);
  const out = await action.run!(ctx, record);
  assert.deepEqual(requests[0]?.query, { engine: "google_patents_details", patent_id: "patent/US8110241B2/en" });
  assert.equal(requests[1]?.path, "/searches/5c1d9e7a2b3f4a60/64b0f1c2a3d4e5f60718293a/google_patents_details/description.html");
  const detail = out.detail as JsonObject;
  assert.equal(detail.patent_id, "US8110241B2");
  assert.match(String(detail.description_excerpt), /^BACKGROUND OF THE INVENTION\nThe present invention relates to an instant coffee powder/);
  assert.equal(out.credits, 4);
  // A record without SerpApi's id cannot be acted on: refused, nothing charged.
  const bare = { ...record, ref: { patent_id: "US8110241B2" } };
  assert.equal(action.appliesTo(bare), false);
  await assert.rejects(action.run!(ctx, bare), (e: unknown) => e instanceof ApiError && e.code === "invalid_request");
  // A description page SerpApi no longer has (404) is left out.
  const gone = fakeContext((request: UpstreamRequest) => (request.responseType === "text" ? response(404, "") : response(200, details())));
  const without = await action.run!(gone.ctx, record);
  assert.equal("description_excerpt" in (without.detail as JsonObject), false);
});
