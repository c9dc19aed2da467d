/**
 * Open Library mappers of books.search against recorded bodies: the search request (explicit
 * fields, offset paging), records without snippet and with only the keys the source has, the next
 * page rule, and details from a recorded work plus the documented editions example.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded } from "../../../test/helpers/capability-kit.ts";
import { UpstreamError } from "../../upstream/faults.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import type { BooksSearchQuery } from "./schema.ts";
import {
  type OpenLibraryWork,
  openLibraryEditions,
  openLibraryProbe,
  openLibraryRefusal,
  openLibrarySearch,
  openLibraryWork,
  redirectTarget,
  SEARCH_FIELDS,
  toDetail,
  toEditionsRequest,
  toRecord,
  toSearchPage,
  toSearchRequest,
  toWorkRequest,
  workId,
} from "./openlibrary.ts";

const fixture = (name: string) => recorded("openlibrary", name);
const search = (name: string) => checkShape("openlibrary", openLibrarySearch, fixture(name));
const work = (name: string) => checkShape("openlibrary", openLibraryWork, fixture(name));
const isDrift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^Open Library answered in a shape/.test(e.message);
const query = (q: Partial<BooksSearchQuery>): BooksSearchQuery => ({ num: 10, ...q });

test("search request: q/author/subject as given, explicit fields, page as offset/limit", () => {
  const req = toSearchRequest(query({ query: "quiet", author: "Susan Cain", num: 5 }), 3);
  assert.equal(req.provider, "openlibrary");
  assert.equal(req.method, "GET");
  assert.equal(req.path, "/search.json");
  assert.deepEqual(req.query, {
    q: "quiet",
    author: "Susan Cain",
    subject: undefined,
    fields: "key,title,author_name,first_publish_year,edition_count,ratings_average,subject,isbn,cover_i",
    limit: 5,
    offset: 10,
  });
  assert.equal(SEARCH_FIELDS.split(",").length, 9);
  assert.equal(toSearchRequest(query({ subject: "maps" }), 1).query?.offset, 0);
});

test("recorded search: records carry the spec keys the docs have, never a snippet", () => {
  const page = toSearchPage(search("search_denver.json"), 1, 5);
  assert.equal(page.records.length, 5);
  assert.deepEqual(page.next, { page: 2 });
  const [dunning, gift, cereal, now] = page.records;
  assert.deepEqual(dunning?.summary, {
    title: "Denver **",
    url: "https://openlibrary.org/works/OL7919260W",
    authors: ["John Dunning"],
    first_published: 1982,
    editions: 2,
    isbn: "9780449047118",
  });
  assert.deepEqual(dunning?.ref, { work_id: "OL7919260W" });
  assert.equal(gift?.summary.title, "Denver Gift");
  assert.equal(cereal?.summary.cover_url, "https://covers.openlibrary.org/b/id/8010520-M.jpg");
  assert.deepEqual(cereal?.summary.subjects, ["Fiction", "Fiction, romance, general", "Accessible book", "Protected DAISY"]);
  assert.deepEqual(now?.summary.authors, ["Bruce W. Most", "Ken Freed", "Steve Perez", "Joe Chirichigno", "T. W. Gaddy"]);
  assert.equal(Array.isArray(now?.summary.subjects) && now.summary.subjects.length, 7);
  for (const r of page.records) {
    assert.equal("snippet" in r.summary, false);
    assert.equal("rating" in r.summary, false, "no ratings_average in these docs");
  }
});

test("next page: only while numFound reaches past this page", () => {
  const body = (numFound: number, n: number) => ({ numFound, docs: Array.from({ length: n }, (_, i) => ({ key: `/works/OL${i + 1}W`, title: "t" })) });
  assert.deepEqual(toSearchPage(body(25, 10), 2, 10).next, { page: 3 });
  assert.equal(toSearchPage(body(20, 10), 2, 10).next, null);
  assert.equal(toSearchPage(body(0, 0), 1, 10).next, null);
  assert.equal(toSearchPage(body(500, 0), 60, 10).next, null, "an empty page ends the paging");
});

test("a doc whose key is not a work key is dropped; a doc without key or title, or an answer without docs, is drift", () => {
  assert.equal(toRecord({ key: "/books/OL1M", title: "an edition" }), undefined);
  assert.equal(toRecord({ key: "/works/OL9W", title: "  " })?.summary.title, "Untitled work");
  assert.deepEqual(toRecord({ key: "/works/OL9W", title: "x", ratings_average: 3.888888 })?.summary.rating, 3.89);
  assert.throws(() => checkShape("openlibrary", openLibrarySearch, { error: "boom" }), isDrift("/numFound"));
  assert.throws(() => checkShape("openlibrary", openLibrarySearch, { numFound: 1, docs: [{ title: "no key" }] }), isDrift("/docs/0/key"));
  assert.throws(() => checkShape("openlibrary", openLibrarySearch, { numFound: 1, docs: [{ key: "/works/OL9W" }] }), isDrift("/docs/0/title"));
  assert.throws(() => checkShape("openlibrary", openLibrarySearch, { numFound: 1, docs: [{ key: "/works/OL9W", title: "x", cover_i: "8010520" }] }), isDrift("/docs/0/cover_i"));
});

test("every recording fits its declared answer", () => {
  for (const f of ["search_denver.json", "search_denver_co.json", "search_quiet_constructed.json"]) search(f);
  for (const f of ["works_OL16484595W_quiet.json", "works_OL155455W_dorsai.json", "works_OL21417594W_legend.json"]) work(f);
  checkShape("openlibrary", openLibraryEditions, fixture("editions_OL45804W_documented.json"));
});

test("Open Library's refusal hook: a 403 is its bot policy, naming QUARRY_CONTACT; other answers pass", () => {
  const refused = openLibraryRefusal(undefined, 403);
  assert.ok(refused instanceof UpstreamError && refused.code === "provider_error" && refused.fault === "refused" && refused.retryable === false, "refused instanceof UpstreamError && refused.code === \"provider_error\" && refused.fault ...");
  assert.match(refused.hint ?? "", /QUARRY_CONTACT/);
  assert.equal(openLibraryRefusal(fixture("search_denver.json"), 200), undefined);
  assert.equal(openLibraryRefusal({ error: "notfound" }, 404), undefined);
  assert.equal(toSearchRequest(query({ query: "x" }), 1).refusal, openLibraryRefusal);
  assert.equal(openLibraryProbe.request.path, "/works/OL16484595W.json");
  assert.equal(openLibraryProbe.request.response, openLibraryWork);
});

test("workId: keys and bare ids only", () => {
  assert.equal(workId("/works/OL45804W"), "OL45804W");
  assert.equal(workId("OL45804W"), "OL45804W");
  assert.equal(workId("/books/OL1M"), undefined);
  assert.equal(workId("../OL1W"), undefined);
  assert.equal(workId(42), undefined);
});

test("work and editions requests: 404 is an answer (the editions list an optional part of the details)", () => {
  assert.deepEqual(toWorkRequest("OL1W"), {
    provider: "openlibrary",
    method: "GET",
    path: "/works/OL1W.json",
    acceptStatus: [404],
    refusal: openLibraryRefusal,
    response: openLibraryWork,
  });
  assert.deepEqual(toEditionsRequest("OL1W"), {
    provider: "openlibrary",
    method: "GET",
    path: "/works/OL1W/editions.json",
    query: { limit: 20 },
    acceptStatus: [404],
    optionalPart: true,
    refusal: openLibraryRefusal,
    response: openLibraryEditions,
  });
});

test("details from the recorded work Quiet: subjects deduplicated, links, no description (the work has none)", () => {
  const { detail, links } = toDetail("OL16484595W", work("works_OL16484595W_quiet.json"), undefined);
  assert.equal(detail.work_id, "OL16484595W");
  assert.equal(detail.title, "Quiet");
  assert.equal("description" in detail, false);
  assert.equal("editions" in detail, false);
  const subjects = detail.subjects as string[];
  assert.equal(subjects.length, 20, "25 recorded, 5 repeat another's words in another case");
  assert.equal(subjects.filter((s) => s === "Temperament").length, 1);
  assert.equal(detail.cover_url, "https://covers.openlibrary.org/b/id/7079753-L.jpg");
  assert.deepEqual(links, [
    { label: "Open Library work page", url: "https://openlibrary.org/works/OL16484595W" },
    { label: "New York Times review", url: "https://www.nytimes.com/2012/02/12/books/review/susan-cains-quiet-argues-for-the-power-of-introverts.html" },
  ]);
});

test("details: a {type, value} description and free-text first publish date (Dorsai!)", () => {
  const { detail } = toDetail("OL155455W", work("works_OL155455W_dorsai.json"), undefined);
  assert.equal(detail.title, "Dorsai!");
  assert.equal(detail.first_publish_date, "February 1983");
  assert.ok(Array.isArray(detail.subjects), "Array.isArray(detail.subjects)");
  const minimal = toDetail("OL21417594W", work("works_OL21417594W_legend.json"), undefined).detail;
  assert.equal("cover_url" in minimal, false);
  const typed = checkShape("openlibrary", openLibraryWork, { key: "/works/OL1W", description: { type: "/type/text", value: "A story." } });
  assert.equal(toDetail("OL1W", typed, undefined).detail.description, "A story.");
});

test("details: editions with their ISBNs from the documented editions example", () => {
  const editions = checkShape("openlibrary", openLibraryEditions, fixture("editions_OL45804W_documented.json"));
  const { detail } = toDetail("OL45804W", { key: "/works/OL45804W", title: "Fantastic Mr Fox" }, editions);
  assert.equal(detail.edition_count, 1);
  assert.deepEqual(detail.editions, [
    {
      edition_id: "OL7353617M",
      title: "Fantastic Mr. Fox",
      publish_date: "October 1, 1988",
      publishers: ["Puffin"],
      isbn_13: ["9780140328721"],
      isbn_10: ["0140328726"],
      pages: 96,
      url: "https://openlibrary.org/books/OL7353617M",
    },
  ] satisfies JsonObject[]);
});

test("details: a body that is not a work is drift at /key; a retyped description too; a redirect names its target", () => {
  assert.throws(() => checkShape("openlibrary", openLibraryWork, { error: "notfound" }), isDrift("/key"));
  assert.throws(() => checkShape("openlibrary", openLibraryWork, { key: "/works/OL1W", subjects: "Fiction" }), isDrift("/subjects"));
  const redirect: OpenLibraryWork = { key: "/works/OL1W", type: { key: "/type/redirect" }, location: "/works/OL2W" };
  assert.equal(redirectTarget(redirect), "OL2W");
  assert.equal(redirectTarget(work("works_OL16484595W_quiet.json")), undefined);
  assert.throws(() => checkShape("openlibrary", openLibraryEditions, { size: 1, works: [] }), isDrift("/entries"));
});
