// jobs.search's google_jobs mappers with the recorded (2024, no pagination) and documented-example
// (token-paged) bodies: the request, the records and their stored details, the next token.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import { readSerpApi, serpApiRefusal } from "../shared/serpapi.ts";
import type { JsonObject } from "../types.ts";
import { JOBS_PER_PAGE, jobsAnswer, SOURCE, toProviderPage, toRequest } from "./serpapi-jobs.ts";

/** An answer as the upstream client passes it (SerpApi's refusal, then the schema), read and mapped. */
const read = (body: unknown) => {
  checkJsonAnswer(toRequest({ query: "x", num: 10 }, null), 200, body);
  return toProviderPage(readSerpApi(body));
};
const page = (file: string) => read(fixture("serpapi-google_jobs", file));

test("request: engine, q, lowercased gl, hl, location and the page token; nothing undefined invented", () => {
  const first = toRequest(
    {
      query: "barista",
      country: "US",
      language: "en",
      location: "New York, New York, United States",
      num: 10,
    },
    null,
  );
  assert.equal(first.provider, "serpapi");
  assert.equal(first.path, "/search.json");
  assert.deepEqual(first.query, {
    engine: "google_jobs",
    q: "barista",
    gl: "us",
    hl: "en",
    location: "New York, New York, United States",
    next_page_token: undefined,
  });
  assert.equal(first.response, jobsAnswer);
  assert.equal(first.refusal, serpApiRefusal);
  const next = toRequest({ query: "barista", num: 10 }, "TOKEN");
  assert.equal(next.query?.next_page_token, "TOKEN");
  assert.equal(next.query?.gl, undefined);
});

test("recorded page: ten listings, keys from the listing only, no next page", () => {
  const got = page("search_jobs.json");
  assert.equal(got.items.length, JOBS_PER_PAGE);
  assert.equal(got.next, null, "the 2024 recording carries no next_page_token");
  const first = got.items[0]!;
  assert.deepEqual(
    { ...first.summary, snippet: undefined },
    {
      title: "Python Developer",
      snippet: undefined,
      company: "codesbright",
      location: "Los Angeles, CA",
      schedule: "Full-time, Part-time, and Contractor",
      salary: "103K–104K a year",
      source: SOURCE,
    },
  );
  assert.ok(String(first.summary.snippet).startsWith("Requirment 5+ years"), "String(first.summary.snippet).startsWith(\"Requirment 5+ years\")");
  assert.equal("posted_at" in first.summary, false, "the listing has no posted_at");
  assert.equal("url" in first.summary, false, "no share link nor apply option in the 2024 format");
  const detail = first.detail as JsonObject;
  assert.equal(detail.via, "via OPTnation");
  assert.match(String(detail.description), /Familiarity with Python Libraries$/);
  assert.deepEqual((detail.highlights as JsonObject[])[0]!.title, "Qualifications");
  assert.deepEqual(first.links, []);
});

test("documented token page: share link as url, apply options as links, next token", () => {
  const got = page("search_jobs_token_page1.json");
  assert.equal(got.items.length, 10);
  assert.match(String(got.next), /^eyJmYyI6/);
  const first = got.items[0]!;
  assert.equal(first.summary.title, "Barista");
  assert.equal(first.summary.posted_at, "2 days ago");
  assert.equal(first.summary.salary, "$17–$19 an hour");
  assert.match(String(first.summary.url), /^https:\/\/www\.google\.com\/search\?ibp=htl;jobs/);
  assert.deepEqual(first.links?.[0], {
    label: "Corner Coffee Careers",
    url: "https://careers.cornercoffee.example/jobs/barista-nyc-1042",
  });
  assert.equal(first.links?.[1]?.label, "Listing on Google Jobs");
  assert.deepEqual((first.detail as JsonObject).apply_options, [
    { title: "Corner Coffee Careers", link: "https://careers.cornercoffee.example/jobs/barista-nyc-1042" },
  ]);
  const last = page("search_jobs_token_page2.json");
  assert.equal(last.items.length, 3);
  assert.equal(last.next, null);
});

test("SerpApi's no-results answer is an empty page; a blank title is skipped", () => {
  const none = read({
    search_metadata: { status: "Success" },
    error: "Google hasn't returned any results for this query.",
  });
  assert.deepEqual(none, { items: [], next: null });
  assert.deepEqual(read({ jobs_results: [{ title: "  " }] }).items, []);
});

test("schema: the recordings fit; a renamed or retyped field the mapper reads is drift", () => {
  for (const file of ["search_jobs.json", "search_jobs_token_page1.json", "search_jobs_token_page2.json"]) {
    checkShape("serpapi", jobsAnswer, fixture("serpapi-google_jobs", file));
  }
  assert.throws(
    () => read({ jobs_results: [{ company_name: "X" }] }),
    (e: unknown) => e instanceof ProviderDrift && /\/jobs_results\/0\/title is missing/.test(e.message),
  );
  assert.throws(() => read({ jobs: [] }), /\/jobs_results is missing/);
  assert.throws(
    () => read({ jobs_results: [], serpapi_pagination: { next_page_token: 7 } }),
    /\/serpapi_pagination\/next_page_token/,
  );
});
