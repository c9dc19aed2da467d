/**
 * classics.search capability tests: declaration, schema bounds and the `query`/`author` rule, and
 * the glue run against a fake upstream serving recorded bodies: Gutendex slices (two requests when
 * a slice crosses a Gutendex page), the Wikisource fallback and its notes, and `details` (the
 * excerpt fetched once per book, Wikisource details without a call). End to end over HTTP:
 * test/classics-search.e2e.test.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, fixtureText, response, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, RecordDraft, StoredRecordView } from "../types.ts";
import { type ClassicsSearchQuery, classicsSearch } from "./capability.ts";

const details = classicsSearch.actions.details!;

function q(body: JsonObject): ClassicsSearchQuery {
  const copy = structuredClone(body);
  assert.deepEqual(violationsOf(classicsSearch, copy), [], JSON.stringify(body));
  return copy as ClassicsSearchQuery;
}

const gutendexDown = () => {
  throw new ApiError("provider_error", "gutendex answered HTTP 503.");
};

test("declaration follows spec 4.6", () => {
  assert.equal(classicsSearch.id, "classics.search");
  assert.equal(classicsSearch.paging, "page");
  assert.equal(classicsSearch.deadlineMs, 15_000);
  assert.equal(classicsSearch.typicalCredits, 0);
  assert.equal(classicsSearch.offersUpdate, true);
  assert.deepEqual(classicsSearch.availability(new Set()), {});
  assert.deepEqual(
    Object.values(classicsSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 0]],
  );
  assert.equal(classicsSearch.maxCredits(q({ query: "x", num: 25 })), 0);
  assert.deepEqual((classicsSearch.recordKeys as { required?: string[] }).required, ["source"]);
});

test("schema: defaults, bounds and patterns", () => {
  const body: JsonObject = { query: "Frankenstein" };
  assert.deepEqual(violationsOf(classicsSearch, body), []);
  assert.deepEqual(body, { query: "Frankenstein", num: 10 });
  const accepted: JsonObject[] = [{ query: "x".repeat(300), num: 25 }, { author: "x".repeat(200), num: 1 }, { author: "A", language: "FR" }];
  for (const fine of accepted) {
    assert.deepEqual(violationsOf(classicsSearch, { ...fine }), [], JSON.stringify(fine));
  }
  const refused: [JsonObject, string][] = [
    [{ query: "" }, "/query"],
    [{ query: "x".repeat(301) }, "/query"],
    [{ author: "" }, "/author"],
    [{ author: "x".repeat(201) }, "/author"],
    [{ query: "x", language: "eng" }, "/language"],
    [{ query: "x", language: "e" }, "/language"],
    [{ query: "x", language: "e1" }, "/language"],
    [{ query: "x", num: 0 }, "/num"],
    [{ query: "x", num: 26 }, "/num"],
    [{ query: "x", page: 2 }, ""],
  ];
  for (const [bad, pointer] of refused) {
    const violations = violationsOf(classicsSearch, { ...bad });
    assert.ok(
      violations.some((v) => v.path === pointer || (pointer === "" && /page/.test(v.message))),
      `${JSON.stringify(bad)}: ${JSON.stringify(violations)}`,
    );
  }
});

test("rule: query or author, at the body on execute, at the removed field on update", () => {
  assert.deepEqual(violationsOf(classicsSearch, { language: "en" }), [{ path: "", message: "Give `query` or `author` (or both)." }]);
  assert.deepEqual(violationsOf(classicsSearch, { author: "Poe" }), []);
  const updated = classicsSearch.checkRules({ language: "en", num: 10 }, new Set(["query"]));
  assert.deepEqual(updated.map((v) => v.path), ["/query"]);
  assert.match(classicsSearch.ruleTexts[0]!, /At least one of `query` or `author`/);
});

test("examples are valid bodies", () => {
  for (const example of classicsSearch.examples) q(example.body as JsonObject);
});

test("search: one Gutendex request for a slice inside a page; the cursor names the source", async () => {
  const { ctx, requests } = fakeContext(fixture("gutendex", "books_page1.json"));
  const page = await classicsSearch.search(ctx, q({ query: "Frankenstein", language: "en" }), null);
  assert.equal(requests.length, 1);
  assert.deepEqual(requests[0]?.query, { search: "Frankenstein", languages: "en", page: 1 });
  assert.equal(page.records.length, 10);
  assert.equal(page.records[0]?.summary.title, "Frankenstein; Or, The Modern Prometheus");
  assert.deepEqual(page.next, { source: "gutendex", cursor: { page: 1, skip: 10 } });
  assert.equal(page.notes, undefined);
  assert.equal(page.credits, 0);
});

test("search: a slice crossing a Gutendex page asks for the next page and continues exactly after it", async () => {
  const body = fixture("gutendex", "books_page1.json") as { results: { id: number }[] };
  const page2 = { count: 64, next: null, previous: "p1", results: body.results.map((b) => ({ ...b, id: b.id + 100000 })) };
  const { ctx, requests } = fakeContext((r: UpstreamRequest) => (r.query?.page === 2 ? page2 : body));
  const query = q({ author: "Austen", num: 25 });
  const second = await classicsSearch.search(ctx, query, { source: "gutendex", cursor: { page: 1, skip: 25 } });
  assert.deepEqual(requests.map((r) => r.query?.page), [1, 2]);
  assert.equal(second.records.length, 25);
  assert.deepEqual(
    second.records.slice(6, 8).map((r) => r.summary.url),
    ["https://www.gutenberg.org/ebooks/844", "https://www.gutenberg.org/ebooks/100084"],
    "the last book of page 1, then the first of page 2",
  );
  assert.deepEqual(second.next, { source: "gutendex", cursor: { page: 2, skip: 18 } });
});

test("fallback: Gutendex failing is answered by Wikisource, with the notes, the smaller key set and a pinned cursor", async () => {
  const { ctx, requests } = fakeContext((r: UpstreamRequest) =>
    r.provider === "gutendex" ? gutendexDown() : fixture("wikisource", "search_albert_einstein.json"),
  );
  const query = q({ query: "Albert Einstein", language: "de" });
  const page = await classicsSearch.search(ctx, query, null);
  assert.deepEqual(requests.map((r) => r.provider), ["gutendex", "wikisource"]);
  assert.equal(page.records.length, 10);
  for (const r of page.records) {
    assert.deepEqual(Object.keys(r.summary).filter((k) => !["title", "url", "source", "words"].includes(k)), []);
    assert.equal(r.summary.source, "wikisource");
  }
  assert.equal(page.notes?.length, 2);
  assert.match(page.notes![0]!, /absent/);
  assert.match(page.notes![1]!, /language filter/);
  assert.deepEqual(page.next, { source: "wikisource", cursor: { offset: 10 } });
  // `more` stays on Wikisource, and its pages carry the notes too.
  const more = await classicsSearch.search(ctx, query, page.next);
  assert.equal(requests.length, 3);
  assert.equal(requests[2]?.provider, "wikisource");
  assert.equal(requests[2]?.query?.sroffset, 10);
  assert.equal(more.notes?.length, 2);
});

test("both sources failing is a provider error naming both", async () => {
  const { ctx } = fakeContext((r: UpstreamRequest) => (r.provider === "gutendex" ? gutendexDown() : response(200, { error: { info: "down" } })));
  await assert.rejects(
    classicsSearch.search(ctx, q({ query: "x" }), null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /Gutendex/.test(e.message) && /Wikisource reported down/.test(e.message),
  );
});

function stored(draft: RecordDraft | undefined): StoredRecordView {
  assert.ok(draft, "draft");
  return { summary: draft.summary, ref: draft.ref ?? null, detail: draft.detail ?? null, query: { query: "x", num: 10 } };
}

test("details of a Gutenberg book: the excerpt fetched once per book, then from the bounded cache; links; free", async () => {
  const search = fakeContext(fixture("gutendex", "books_page1.json"));
  const page = await classicsSearch.search(search.ctx, q({ query: "Frankenstein" }), null);
  const { ctx, requests } = fakeContext(() => response(206, fixtureText("gutenberg", "pg84.txt")));
  const out = await details.run!(ctx, stored(page.records[0]));
  assert.deepEqual(requests.map((r) => r.path), ["/cache/epub/84/pg84.txt"]);
  assert.equal(out.credits, 0);
  const detail = out.detail as JsonObject;
  assert.match(String(detail.excerpt), /^Frankenstein;\n\nor, the Modern Prometheus/);
  assert.equal(detail.title, "Frankenstein; Or, The Modern Prometheus");
  assert.deepEqual(out.links.map((l) => l.label), ["Project Gutenberg page", "Plain text", "EPUB", "HTML"]);
  // A second record of the same book (another search) is answered from the cache.
  await details.run!(ctx, stored(page.records[0]));
  assert.equal(requests.length, 1);
});

test("details of a Wikisource page: the stored excerpt and page link, no provider call", async () => {
  const page = await classicsSearch.search(
    fakeContext((r: UpstreamRequest) => (r.provider === "gutendex" ? gutendexDown() : fixture("wikisource", "search_albert_einstein.json"))).ctx,
    q({ query: "Albert Einstein" }),
    null,
  );
  const { ctx, requests } = fakeContext(() => {
    throw new Error("no call expected");
  });
  const out = await details.run!(ctx, stored(page.records[0]));
  assert.equal(requests.length, 0);
  assert.equal((out.detail as JsonObject).source, "wikisource");
  assert.match(String((out.detail as JsonObject).excerpt), /redirects here/);
  assert.deepEqual(out.links, [{ label: "Read on Wikisource (HTML)", url: "https://en.wikisource.org/wiki/Albert_Einstein" }]);
});

test("details: a failed text fetch is a provider error and is not cached; a record without a book id is refused", async () => {
  const page = await classicsSearch.search(fakeContext(fixture("gutendex", "books_page1.json")).ctx, q({ query: "x" }), null);
  const { ctx, requests } = fakeContext([new ApiError("provider_error", "gutenberg answered HTTP 404."), response(200, fixtureText("gutenberg", "pg84.txt"))]);
  await assert.rejects(details.run!(ctx, stored(page.records[0])), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  const retried = await details.run!(ctx, stored(page.records[0]));
  assert.equal(requests.length, 2);
  assert.match(String((retried.detail as JsonObject).excerpt), /Prometheus/);
  await assert.rejects(
    details.run!(ctx, { summary: { title: "x" }, ref: { source: "other" }, detail: {}, query: {} }),
    (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/record_id",
  );
});
