/**
 * OpenAlex mapper tests: recorded bodies (a real work and a list envelope built around it)
 * replayed through the pure request/response mappers, plus hand-made bodies for edge cases.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import {
  type AcademicQuery,
  bareDoi,
  bareOpenAlexId,
  type OpenAlexList,
  type OpenAlexWork,
  openAlexList,
  openAlexWork,
  rebuildAbstract,
  SNIPPET_MAX_CHARS,
  toDetail,
  toFilter,
  toPage,
  toRecord,
  toRequest,
  truncateAtWord,
} from "./openalex.ts";

function fixture<T>(name: string): T {
  const url = new URL(`../../../fixtures/providers/openalex/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as T;
}

const work = fixture<OpenAlexWork>("work_W2741809807.json");
const list = fixture<OpenAlexList>("works_list_synthetic_envelope.json");

function query(overrides: Partial<AcademicQuery> = {}): AcademicQuery {
  return { query: "open access", open_access_only: false, sort: "relevance", num: 10, ...overrides };
}

/** A list body of `n` minimal works with the given total. */
function listOf(n: number, count: number): OpenAlexList {
  return {
    meta: { count },
    results: Array.from({ length: n }, (_, i) => ({
      id: `https://openalex.org/W${i + 1}`,
      display_name: `W ${i}`,
    })),
  };
}

test("toRequest: default query sends search, per_page, page and no filter or sort", () => {
  const req = toRequest(query(), 1);
  assert.equal(req.provider, "openalex");
  assert.equal(req.method, "GET");
  assert.equal(req.path, "/works");
  assert.equal(req.query?.search, "open access");
  assert.equal(req.query?.per_page, 10);
  assert.equal(req.query?.page, 1);
  assert.equal(req.query?.filter, undefined);
  assert.equal(req.query?.sort, undefined);
  assert.match(String(req.query?.select), /abstract_inverted_index/);
});

test("toRequest: sort values map to OpenAlex sort keys", () => {
  assert.equal(toRequest(query({ sort: "cited" }), 1).query?.sort, "cited_by_count:desc");
  assert.equal(toRequest(query({ sort: "recent" }), 1).query?.sort, "publication_date:desc");
  assert.equal(toRequest(query({ sort: "relevance" }), 1).query?.sort, undefined);
});

test("toRequest: page comes from the argument and per_page from num", () => {
  const req = toRequest(query({ num: 25 }), 4);
  assert.equal(req.query?.page, 4);
  assert.equal(req.query?.per_page, 25);
});

test("toFilter: years become publication-date bounds, open access becomes is_oa:true", () => {
  assert.equal(
    toFilter(query({ from_year: 2015, to_year: 2020, open_access_only: true })),
    "from_publication_date:2015-01-01,to_publication_date:2020-12-31,is_oa:true",
  );
  assert.equal(toFilter(query({ from_year: 2015 })), "from_publication_date:2015-01-01");
  assert.equal(toFilter(query({ to_year: 1999 })), "to_publication_date:1999-12-31");
  assert.equal(toFilter(query({ open_access_only: true })), "is_oa:true");
  assert.equal(toFilter(query()), undefined);
});

test("rebuildAbstract: words are put back in position order", () => {
  assert.equal(rebuildAbstract({ world: [1], hello: [0, 2] }), "hello world hello");
  assert.equal(rebuildAbstract(null), "");
  assert.equal(rebuildAbstract(undefined), "");
  assert.equal(rebuildAbstract({}), "");
  const text = rebuildAbstract(work.abstract_inverted_index);
  assert.ok(text.startsWith("Despite growing interest in Open Access (OA) to scholarly literature,"), "text.startsWith(\"Despite growing interest in Open Access (OA) to scholarly literature,\")");
  const positions = Object.values(work.abstract_inverted_index ?? {}).flat();
  assert.equal(text.split(" ").length, positions.length);
});

test("toRecord: the recorded work maps to every spec key", () => {
  const record = toRecord(work);
  assert.ok(record, "record");
  const s = record.summary;
  assert.equal(
    s.title,
    "The state of OA: a large-scale analysis of the prevalence and impact of Open Access articles",
  );
  assert.equal(s.url, "https://doi.org/10.7717/peerj.4375");
  assert.equal(s.year, 2018);
  assert.equal(s.venue, "PeerJ");
  assert.deepEqual((s.authors as string[]).slice(0, 2), ["Heather Piwowar", "Jason Priem"]);
  assert.equal(s.cited_by, 962);
  assert.equal(s.type, "article");
  assert.equal(s.open_access, true);
  assert.equal(s.oa_url, "https://peerj.com/articles/4375.pdf");
  assert.equal(s.doi, "10.7717/peerj.4375");
  assert.equal(s.openalex_id, "W2741809807");
  assert.deepEqual(record.ref, { openalex_id: "W2741809807" });
  assert.equal(record.detail, undefined, "details are fetched, not stored");
});

test("toRecord: the snippet is the bounded start of the abstract", () => {
  const snippet = String(toRecord(work)?.summary.snippet);
  assert.ok(snippet.length <= SNIPPET_MAX_CHARS, "snippet.length <= SNIPPET_MAX_CHARS");
  assert.ok(snippet.endsWith("…"), "snippet.endsWith(\"…\")");
  assert.ok(snippet.startsWith("Despite growing interest in Open Access"), "snippet.startsWith(\"Despite growing interest in Open Access\")");
});

test("toRecord: missing values are omitted, never null; url falls back to the OpenAlex page", () => {
  const record = toRecord({
    id: "https://openalex.org/W42",
    display_name: null,
    doi: null,
    publication_year: null,
    primary_location: null,
    open_access: null,
    authorships: [],
    abstract_inverted_index: null,
  });
  assert.ok(record, "record");
  assert.deepEqual(record.summary, {
    title: "Untitled work",
    url: "https://openalex.org/W42",
    openalex_id: "W42",
  });
});

test("toRecord: without a DOI the url is the landing page", () => {
  const record = toRecord({
    id: "https://openalex.org/W7",
    display_name: "A preprint",
    primary_location: {
      landing_page_url: "https://arxiv.org/abs/1234.5678",
      source: { display_name: "arXiv" },
    },
  });
  assert.equal(record?.summary.url, "https://arxiv.org/abs/1234.5678");
  assert.equal(record?.summary.venue, "arXiv");
});

test("toRecord: a work whose id is not a works-index id is dropped; a work without one does not fit the schema", () => {
  assert.equal(toRecord({ id: "https://openalex.org/A123", display_name: "an author" }), null);
  assert.throws(
    () => checkShape("openalex", openAlexList, { meta: { count: 1 }, results: [{ id: null, display_name: "x" }] }),
    (err: unknown) => err instanceof ProviderDrift && err.pointer === "/results/0/id" && err.code === "provider_error",
  );
});

test("toRecord: summary authors are capped, details keep them all", () => {
  const many: OpenAlexWork = {
    id: "W9",
    display_name: "Big collaboration",
    authorships: Array.from({ length: 60 }, (_, i) => ({ author: { display_name: `Author ${i}` } })),
  };
  const record = toRecord(many);
  assert.ok(record, "record");
  assert.equal((record.summary.authors as string[]).length, 25);
  assert.equal((toDetail(many, "W9").detail.authors as string[]).length, 60);
});

test("toPage: the list envelope yields its work and no next page (count reached)", () => {
  const page = toPage(list, 1, 10);
  assert.equal(page.records.length, 1);
  assert.equal(page.records[0]?.summary.openalex_id, "W2741809807");
  assert.equal(page.next, null);
});

test("toPage: next page while the page is full and the total goes beyond it", () => {
  assert.deepEqual(toPage(listOf(10, 100), 1, 10).next, { page: 2 });
  assert.deepEqual(toPage(listOf(10, 21), 2, 10).next, { page: 3 });
  assert.equal(toPage(listOf(10, 20), 2, 10).next, null, "exactly exhausted");
  assert.equal(toPage(listOf(7, 100), 1, 10).next, null, "short page");
  assert.equal(toPage({ meta: { count: null }, results: listOf(10, 0).results }, 1, 10).next, null, "no meta.count");
});

test("toPage: no next page beyond basic paging's 10,000-result limit", () => {
  assert.deepEqual(toPage(listOf(25, 50_000), 399, 25).next, { page: 400 });
  assert.equal(toPage(listOf(25, 50_000), 400, 25).next, null);
});

test("toPage: never more records than per_page", () => {
  assert.equal(toPage(listOf(30, 100), 1, 25).records.length, 25);
});

test("toPage: empty results are an empty page, not an error", () => {
  const page = toPage({ meta: { count: 0 }, results: [] }, 1, 10);
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
});

test("the recordings fit the declared schemas; a list without results is drift at /results, naming OpenAlex", () => {
  assert.equal(checkShape("openalex", openAlexList, list), list);
  assert.equal(checkShape("openalex", openAlexWork, work), work);
  assert.throws(
    () => checkShape("openalex", openAlexList, { error: "Invalid query parameters error." }),
    (err: unknown) => err instanceof ProviderDrift && err.pointer === "/meta" && /^OpenAlex answered in a shape/.test(err.message),
  );
  const renamed = { meta: list.meta, works: list.results };
  assert.throws(
    () => checkShape("openalex", openAlexList, renamed),
    (err: unknown) => err instanceof ProviderDrift && err.pointer === "/results" && /\/results is missing/.test(err.message) && err.retryable === false,
  );
});

test("toDetail: abstract, citation counts, open-access PDF, landing page and links", () => {
  const { detail, links } = toDetail(work, "W2741809807");
  assert.equal(detail.openalex_id, "W2741809807");
  assert.ok(String(detail.abstract).startsWith("Despite growing interest"), "String(detail.abstract).startsWith(\"Despite growing interest\")");
  assert.ok(String(detail.abstract).length > SNIPPET_MAX_CHARS, "the whole abstract, not the snippet");
  assert.equal(detail.cited_by_count, 962);
  assert.deepEqual((detail.counts_by_year as unknown[])[0], { year: 2025, cited_by_count: 30 });
  assert.equal((detail.counts_by_year as unknown[]).length, 9);
  assert.equal(detail.pdf_url, "https://peerj.com/articles/4375.pdf");
  assert.equal(detail.landing_page_url, "https://doi.org/10.7717/peerj.4375");
  assert.deepEqual(detail.open_access, {
    is_oa: true,
    oa_status: "gold",
    oa_url: "https://peerj.com/articles/4375.pdf",
  });
  assert.equal(detail.doi, "10.7717/peerj.4375");
  assert.deepEqual(
    links.map((l) => l.label),
    ["OpenAlex record", "DOI", "Open-access PDF"],
    "the landing page equals the DOI URL here, so it is listed once",
  );
  assert.equal(new Set(links.map((l) => l.url)).size, links.length);
});

test("details: a body that is not a work is drift at /id, before the mapper reads it", () => {
  assert.throws(
    () => checkShape("openalex", openAlexWork, { error: "not found" }),
    (err: unknown) => err instanceof ProviderDrift && err.pointer === "/id",
  );
});

test("id and DOI helpers", () => {
  assert.equal(bareOpenAlexId("https://openalex.org/W2741809807"), "W2741809807");
  assert.equal(bareOpenAlexId("W123"), "W123");
  assert.equal(bareOpenAlexId("https://openalex.org/A5048491430"), null);
  assert.equal(bareOpenAlexId("W12/../x"), null);
  assert.equal(bareOpenAlexId(undefined), null);
  assert.equal(bareDoi("https://doi.org/10.7717/peerj.4375"), "10.7717/peerj.4375");
  assert.equal(bareDoi("10.1000/xyz"), "10.1000/xyz");
  assert.equal(bareDoi(""), undefined);
  assert.equal(bareDoi(null), undefined);
});

test("truncateAtWord: short text unchanged, long text cut at a space with an ellipsis", () => {
  assert.equal(truncateAtWord("short", 10), "short");
  assert.equal(truncateAtWord("alpha beta gamma delta", 12), "alpha beta…");
});
