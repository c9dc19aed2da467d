/**
 * SerpApi Google Patents mappers of patents.search against the documented-example bodies
 * (fixtures/providers/serpapi-google_patents): the request each field builds, the answer schemas
 * (every body fits; a renamed or retyped field the mapper reads is drift), records (keys Google
 * Patents has, entities decoded), the next page, details and the description page.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import { readSerpApi, serpApiRefusal } from "../shared/serpapi.ts";
import type { JsonObject } from "../types.ts";
import type { PatentsSearchQuery } from "./schema.ts";
import {
  DESCRIPTION_EXCERPT_CHARS,
  descriptionExcerpt,
  detailPatentId,
  type PatentDetailsAnswer,
  patentDetailsAnswer,
  type PatentsAnswer,
  patentsAnswer,
  publicationNumberOf,
  toDescriptionRequest,
  toDetail,
  toDetailRequest,
  toProviderPage,
  toQ,
  toSearchRequest,
} from "./google-patents.ts";

const file = (name: string) => readFileSync(new URL(`../../../fixtures/providers/serpapi-google_patents/${name}`, import.meta.url), "utf8");
const search = () => JSON.parse(file("search_coffee_documented.json")) as Record<string, unknown>;
const details = () => JSON.parse(file("details_us8110241b2_documented.json")) as Record<string, unknown>;
const q = (over: Partial<PatentsSearchQuery>): PatentsSearchQuery => ({ sort: "relevance", num: 10, ...over });

/** An answer as the upstream client passes it (SerpApi's refusal, then the schema), read and mapped. */
function page(body: unknown, at = 1) {
  checkJsonAnswer(toSearchRequest(q({ query: "x" }), at), 200, body);
  const { root, noResults } = readSerpApi(body);
  return toProviderPage({ root: root as PatentsAnswer, noResults }, at);
}

test("request: engine, q by match, page, num of at least 10, sort, publication bounds, filters", () => {
  const r = toSearchRequest(
    q({ query: "foaming coffee", from_date: "2010-01-01", to_date: "2015-12-31", assignee: "Kraft Foods", inventor: "Bary Lyn Zeller", country: "US,EP", status: "granted", sort: "oldest", num: 5 }),
    3,
  );
  assert.equal(r.provider, "serpapi");
  assert.equal(r.path, "/search.json");
  assert.equal(r.response, patentsAnswer);
  assert.equal(r.refusal, serpApiRefusal);
  assert.deepEqual(r.query, {
    engine: "google_patents",
    q: "foaming coffee",
    page: 3,
    num: 10,
    sort: "old",
    after: "publication:20100101",
    before: "publication:20151231",
    assignee: "Kraft Foods",
    inventor: "Bary Lyn Zeller",
    country: "US,EP",
    status: "GRANT",
  });
  assert.equal(toSearchRequest(q({ query: "x", num: 25, sort: "newest", status: "application" }), 1).query?.num, 25);
  assert.equal(toSearchRequest(q({ query: "x", sort: "newest" }), 1).query?.sort, "new");
  assert.equal(toSearchRequest(q({ query: "x", status: "application" }), 1).query?.status, "APPLICATION");
  assert.equal(toSearchRequest(q({ assignee: "Kraft" }), 1).query?.q, undefined);
  assert.equal(toQ("(Coffee) OR (Tea)", "all"), "(Coffee) OR (Tea)");
  assert.equal(toQ(" foam  froth ", "any"), "foam OR froth");
  assert.equal(toQ('soluble "coffee" powder', "phrase"), '"soluble coffee powder"');
  assert.equal(toQ("coffee", undefined), "coffee");
});

test("schemas: the documented bodies fit", () => {
  checkShape("serpapi", patentsAnswer, search());
  checkShape("serpapi", patentDetailsAnswer, details());
});

test("records of the documented page: publication number, entities decoded, dates, first assignee and inventor", () => {
  const got = page(search());
  assert.equal(got.items.length, 3);
  assert.equal(got.next, 2, "serpapi_pagination.next: SerpApi has a next page");
  const first = got.items[0]!;
  assert.deepEqual(first.summary, {
    title: "Foaming soluble coffee powder containing pressurized gas",
    url: "https://patents.google.com/patent/US8110241B2/en",
    snippet:
      "An instant coffee powder has dried soluble coffee in the form of particles or granules having internal voids filled with entrapped pressurized gas. Advantageously, when the coffee powder is dissolved in a beverage, the instant coffee powder produces a foam on the top surface of the beverage.",
    patent_id: "US8110241B2",
    priority_date: "2004-08-17",
    filing_date: "2010-04-27",
    grant_date: "2012-02-07",
    publication_date: "2012-02-07",
    assignee: "Kraft Foods Global Brands Llc",
    inventor: "Bary Lyn Zeller",
    language: "en",
    pdf_url: "https://patentimages.storage.googleapis.com/86/1c/bd/89a41d9faca215/US8110241.pdf",
  });
  assert.ok(String(first.summary.snippet).length <= 300, "String(first.summary.snippet).length <= 300");
  assert.deepEqual(first.ref, { patent_id: "patent/US8110241B2/en" });
  const third = got.items[2]!;
  assert.equal(third.summary.title, "Method and apparatus for brewing coffee via universal coffee brewing chart …");
  assert.doesNotMatch(String(third.summary.snippet), /&hellip;/);
  assert.equal(got.items[1]!.summary.assignee, "Сосьете Де Продюи Нестле С.А.");
});

test("records keep only what the result has; the last page has no next; no results is an empty page", () => {
  const body = { organic_results: [{ patent_id: "patent/EP1627568A1/en", title: "Foaming coffee" }] };
  const got = page(body, 4);
  assert.deepEqual(got.items[0]?.summary, {
    title: "Foaming coffee",
    url: "https://patents.google.com/patent/EP1627568A1/en",
    patent_id: "EP1627568A1",
  });
  assert.equal(got.next, null);
  const none = page({ search_metadata: { status: "Success" }, error: "Google Patents hasn't returned any results for this query." });
  assert.deepEqual(none, { items: [], next: null });
  // A result whose id is not a patent id (a scholar result) is not listed.
  assert.deepEqual(page({ organic_results: [{ patent_id: "scholar/6497879044063343659", title: "A paper" }] }).items, []);
});

test("drift: a renamed results list, result id or title, or a retyped field the records read", () => {
  const renamed = search();
  renamed.results = renamed.organic_results;
  delete renamed.organic_results;
  assert.throws(() => page(renamed), (e: unknown) => e instanceof ProviderDrift && /\/organic_results is missing/.test(e.message));
  const noId = search() as { organic_results: Record<string, unknown>[] };
  delete noId.organic_results[0]!.patent_id;
  assert.throws(() => page(noId), /\/organic_results\/0\/patent_id is missing/);
  const retyped = search() as { organic_results: Record<string, unknown>[] };
  retyped.organic_results[2]!.assignee = ["Voice Systems Technology, Inc."];
  assert.throws(() => page(retyped), (e: unknown) => e instanceof ProviderDrift && e.message.includes("/organic_results/2/assignee"));
  const detail = details();
  detail.patent_claims = detail.claims;
  detail.claims = "1. A foaming soluble coffee powder";
  assert.throws(() => checkJsonAnswer(toDetailRequest("patent/US8110241B2/en"), 200, detail), /\/claims/);
  const untitled = details();
  delete untitled.publication_number;
  assert.throws(() => checkJsonAnswer(toDetailRequest("patent/US8110241B2/en"), 200, untitled), /\/publication_number is missing/);
});

test("patent ids: SerpApi's `patent/<number>[/<language>]` only", () => {
  assert.equal(publicationNumberOf("patent/US8110241B2/en"), "US8110241B2");
  assert.equal(publicationNumberOf("patent/US11734097B1"), "US11734097B1");
  assert.equal(detailPatentId("patent/WO2018015433A1/en"), "patent/WO2018015433A1/en");
  for (const bad of ["US8110241B2", "patent/../secret/en", "scholar/6497879044063343659", "patent/us8110241b2/en", 7, undefined]) {
    assert.equal(detailPatentId(bad), undefined, String(bad));
  }
});

test("details of the documented patent: claims, family, citations, events, links; bounded", () => {
  const request = toDetailRequest("patent/US8110241B2/en");
  assert.deepEqual(request.query, { engine: "google_patents_details", patent_id: "patent/US8110241B2/en" });
  assert.equal(request.response, patentDetailsAnswer);
  const { detail, links } = toDetail(details() as PatentDetailsAnswer, "patent/US8110241B2/en", "An excerpt.");
  assert.equal(detail.patent_id, "US8110241B2");
  assert.equal(detail.title, "Foaming soluble coffee powder containing pressurized gas");
  assert.deepEqual(detail.inventors, ["Bary Lyn Zeller"]);
  assert.deepEqual(detail.assignees, ["Kraft Foods Global Brands Llc"]);
  assert.equal(detail.application_number, "US12/768,015");
  assert.equal(detail.claim_count, 2);
  assert.match(String((detail.claims as string[])[0]), /^1\. A foaming soluble coffee powder/);
  assert.equal(detail.description_excerpt, "An excerpt.");
  assert.deepEqual((detail.classifications as JsonObject[])[0], {
    code: "A23F5/36",
    description: "Further treatment of dried coffee extract; Preparations produced thereby, e.g. instant coffee",
  });
  const family = detail.family as JsonObject;
  assert.equal(family.family_id, "34940354");
  assert.deepEqual((family.applications as JsonObject[])[1], {
    country: "EP",
    application_number: "EP05255058A",
    publication: "EP1627568A1",
    filing_date: "2005-08-16",
    legal_status: "Active",
  });
  assert.deepEqual(detail.citations, {
    count: 1,
    family_to_family_count: 1,
    first: [{ publication_number: "US3749378A", title: "Producing a foamed liquid", publication_date: "1973-07-31", assignee: "General Foods Corporation", examiner_cited: true }],
  });
  assert.equal((detail.cited_by as JsonObject).count, 1);
  assert.deepEqual((detail.legal_events as JsonObject[])[1], { date: "2012-02-07", code: "STCF", title: "Information on status: patent grant" });
  assert.equal((detail.events as JsonObject[]).length, 3);
  assert.deepEqual(links, [
    { label: "Google Patents", url: "https://patents.google.com/patent/US8110241B2/en" },
    { label: "PDF", url: "https://patentimages.storage.googleapis.com/86/1c/bd/89a41d9faca215/US8110241.pdf" },
  ]);
  // A sparse answer: only what it has.
  const sparse = toDetail({ publication_number: "USD912345S", title: "Cup" }, "patent/USD912345S/en");
  assert.deepEqual(sparse.detail, { patent_id: "USD912345S", title: "Cup" });
  // Claims are bounded.
  const many = toDetail({ publication_number: "X1", title: "t", claims: Array.from({ length: 150 }, (_, i) => `${i + 1}. claim`) }, "patent/X1/en");
  assert.equal((many.detail.claims as string[]).length, 100);
  assert.equal(many.detail.claim_count, 150);
});

test("the description page: only on SerpApi's host, read as HTML, 404 accepted; its text cut to an excerpt", () => {
  const link = String(details().description_link);
  const request = toDescriptionRequest(link);
  assert.deepEqual(request, {
    provider: "serpapi",
    method: "GET",
    path: "/searches/5c1d9e7a2b3f4a60/64b0f1c2a3d4e5f60718293a/google_patents_details/description.html",
    responseType: "text",
    response: "html",
    acceptStatus: [404],
    optionalPart: true,
  });
  for (const other of ["https://example.org/description.html", "http://serpapi.com/x.html", "https://serpapi.com.evil.example/x", "not a url", undefined]) {
    assert.equal(toDescriptionRequest(other), undefined, String(other));
  }
  const text = descriptionExcerpt(file("description_us8110241b2_documented.html"));
  assert.match(String(text), /^BACKGROUND OF THE INVENTION\nThe present invention relates to/);
  assert.match(String(text), /forms a foam on the surface of the beverage\.$/);
  const long = descriptionExcerpt(`<p>${"word ".repeat(2000)}</p>`);
  assert.ok(long !== undefined && long.length <= DESCRIPTION_EXCERPT_CHARS && long.endsWith("…"), "long !== undefined && long.length <= DESCRIPTION_EXCERPT_CHARS && long.endsWith(\"…\")");
  assert.equal(descriptionExcerpt("<html><body></body></html>"), undefined);
});
