/**
 * academic.search capability tests: schema bounds and defaults, the year rule, and the search /
 * details glue run against an in-memory upstream that serves recorded OpenAlex bodies.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv } from "ajv";
import { fakeContext as kitContext, fixture as recorded } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, StoredRecordView } from "../types.ts";
import { academicSearch, academicSearchSchema } from "./capability.ts";
import type { AcademicQuery } from "./openalex.ts";

const fixture = (name: string) => recorded("openalex", name);
const details = academicSearch.actions.details!;

const validate = new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(academicSearchSchema);

/** Validate a body as the service does; returns the body with defaults applied, or null. */
function accept(body: JsonObject): AcademicQuery | null {
  const copy = structuredClone(body);
  return validate(copy) ? (copy as AcademicQuery) : null;
}

/** An upstream that answers with `answer(request)` and remembers every request. */
function fakeContext(answer: (req: UpstreamRequest) => unknown) {
  const { ctx, requests } = kitContext(answer);
  return { ctx, sent: requests };
}

function storedRecord(ref: JsonObject | null): StoredRecordView {
  return { summary: { title: "x" }, ref, detail: null, query: { query: "x" } };
}

test("capability metadata follows spec 4.6", () => {
  assert.equal(academicSearch.id, "academic.search");
  assert.equal(academicSearch.topic, "research and reading");
  assert.equal(academicSearch.paging, "page");
  assert.equal(academicSearch.deadlineMs, 15_000);
  assert.equal(academicSearch.typicalCredits, 0);
  assert.equal(academicSearch.offersUpdate, true);
  assert.deepEqual(academicSearch.availability(new Set()), {});
  assert.deepEqual(
    Object.values(academicSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 0]],
  );
  const q = accept({ query: "x", num: 7 });
  assert.ok(q, "q");
  assert.equal(academicSearch.maxCredits(q), 0);
  assert.equal(academicSearch.pageSize(q), 7);
});

test("schema applies the defaults", () => {
  assert.deepEqual(accept({ query: "graphene" }), {
    query: "graphene",
    open_access_only: false,
    sort: "relevance",
    num: 10,
  });
});

test("schema accepts the bounds", () => {
  assert.ok(accept({ query: "x".repeat(500), from_year: 1000, to_year: 2100, num: 25, sort: "recent" }), "accept({ query: \"x\".repeat(500), from_year: 1000, to_year: 2100, num: 25, sort: \"recent...");
  assert.ok(accept({ query: "x", num: 1, sort: "cited", open_access_only: true }), "accept({ query: \"x\", num: 1, sort: \"cited\", open_access_only: true })");
});

test("schema refuses out-of-bound, mistyped and unknown fields", () => {
  const refused: JsonObject[] = [
    {},
    { query: "" },
    { query: "x".repeat(501) },
    { query: "x", num: 0 },
    { query: "x", num: 26 },
    { query: "x", num: 2.5 },
    { query: "x", from_year: 999 },
    { query: "x", to_year: 2101 },
    { query: "x", from_year: "2015" },
    { query: "x", sort: "newest" },
    { query: "x", open_access_only: "yes" },
    { query: "x", page: 2 },
  ];
  for (const body of refused) assert.equal(accept(body), null, JSON.stringify(body));
});

test("rule: from_year must not exceed to_year", () => {
  const check = (q: JsonObject, sent?: Set<string>) => academicSearch.checkRules(q, sent);
  const inverted = accept({ query: "x", from_year: 2021, to_year: 2020 });
  assert.ok(inverted, "inverted");
  assert.deepEqual(
    check(inverted).map((v) => v.path),
    ["/from_year"],
  );
  // On update, the pointer names a field the caller sent: to_year when only that was.
  const paths = (sent: string[]) => check(inverted, new Set(sent)).map((v) => v.path);
  assert.deepEqual(paths(["to_year"]), ["/to_year"]);
  assert.deepEqual(paths(["from_year"]), ["/from_year"]);
  assert.deepEqual(paths(["from_year", "to_year"]), ["/from_year"]);
  assert.match(check(inverted, new Set(["to_year"]))[0]!.message, /from_year \(2021, from the search\)/);
  const fine: JsonObject[] = [
    { query: "x", from_year: 2020, to_year: 2020 },
    { query: "x", from_year: 2021 },
    { query: "x", to_year: 1900 },
  ];
  for (const body of fine) {
    const q = accept(body);
    assert.ok(q, "q");
    assert.deepEqual(check(q), []);
  }
});

test("examples are valid bodies that pass the rules", () => {
  assert.ok(academicSearch.examples.length >= 2 && academicSearch.examples.length <= 3, "academicSearch.examples.length >= 2 && academicSearch.examples.length <= 3");
  for (const example of academicSearch.examples) {
    const q = accept(example.body);
    assert.ok(q, example.title);
    assert.deepEqual(academicSearch.checkRules(q), []);
  }
});

test("search: first page maps the query and the recorded list", async () => {
  const { ctx, sent } = fakeContext(() => fixture("works_list_synthetic_envelope.json"));
  const q = accept({ query: "state of open access", from_year: 2015, open_access_only: true, sort: "cited" });
  assert.ok(q, "q");
  const page = await academicSearch.search(ctx, q, null);
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.path, "/works");
  assert.equal(sent[0]?.query?.search, "state of open access");
  assert.equal(sent[0]?.query?.filter, "from_publication_date:2015-01-01,is_oa:true");
  assert.equal(sent[0]?.query?.sort, "cited_by_count:desc");
  assert.equal(sent[0]?.query?.page, 1);
  assert.equal(sent[0]?.query?.per_page, 10);
  assert.equal(page.records[0]?.summary.openalex_id, "W2741809807");
  assert.equal(page.next, null);
  assert.equal(page.credits, 0);
});

test("search: a page cursor asks for that page and yields the following one", async () => {
  const full = {
    meta: { count: 95 },
    results: Array.from({ length: 10 }, (_, i) => ({
      id: `https://openalex.org/W${i + 1}`,
      display_name: "t",
    })),
  };
  const { ctx, sent } = fakeContext(() => full);
  const q = accept({ query: "x" });
  assert.ok(q, "q");
  const page = await academicSearch.search(ctx, q, { page: 3 });
  assert.equal(sent[0]?.query?.page, 3);
  assert.deepEqual(page.next, { page: 4 });
});

test("search: upstream failures propagate as they are", async () => {
  const { ctx } = fakeContext(() => {
    throw new ApiError("provider_timeout", "deadline");
  });
  const q = accept({ query: "x" });
  assert.ok(q, "q");
  await assert.rejects(
    academicSearch.search(ctx, q, null),
    (e: unknown) => e instanceof ApiError && e.code === "provider_timeout",
  );
});

test("details: fetches /works/{openalex_id} and returns the detail for free", async () => {
  const { ctx, sent } = fakeContext(() => fixture("work_W2741809807.json"));
  const result = await details.run!(ctx, storedRecord({ openalex_id: "W2741809807" }));
  assert.ok(result, "result");
  assert.equal(sent.length, 1);
  assert.equal(sent[0]?.method, "GET");
  assert.equal(sent[0]?.path, "/works/W2741809807");
  assert.equal(result.credits, 0);
  const detail = result.detail as JsonObject;
  assert.ok(String(detail.abstract).startsWith("Despite growing interest"), "String(detail.abstract).startsWith(\"Despite growing interest\")");
  assert.equal(detail.cited_by_count, 962);
  assert.ok(result.links.some((l) => l.url === "https://peerj.com/articles/4375.pdf"), "result.links.some((l) => l.url === \"https://peerj.com/articles/4375.pdf\")");
});

test("details: a record without the stored works-index id is refused before any call", async () => {
  const { ctx, sent } = fakeContext(() => fixture("work_W2741809807.json"));
  const refs: (JsonObject | null)[] = [null, {}, { openalex_id: 42 }, { openalex_id: "../authors/A1" }];
  for (const ref of refs) {
    await assert.rejects(
      details.run!(ctx, storedRecord(ref)),
      (e: unknown) =>
        e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/record_id",
      JSON.stringify(ref),
    );
  }
  assert.equal(sent.length, 0);
});

