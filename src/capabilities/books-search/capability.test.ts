/**
 * books.search declaration: spec 4.6's table row (free, 15 s, page paging, num 10/25), defaults,
 * the at-least-one rule as the published schema says it, and its fetched, free `details`.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { violationsOf } from "../../../test/helpers/capability-kit.ts";
import { booksSearch } from "./capability.ts";

test("metadata follows spec 4.6", () => {
  assert.equal(booksSearch.id, "books.search");
  assert.equal(booksSearch.paging, "page");
  assert.equal(booksSearch.deadlineMs, 15_000);
  assert.equal(booksSearch.typicalCredits, 0);
  assert.equal(booksSearch.offersUpdate, true);
  assert.deepEqual(booksSearch.availability(new Set()), {}, "keyless");
  assert.deepEqual(
    Object.values(booksSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 0]],
  );
  assert.deepEqual(booksSearch.recordKeys.required ?? [], [], "every book key is 'when the source has it'");
});

test("defaults and the at-least-one rule (also published as anyOf)", () => {
  const body = { author: "Susan Cain" };
  assert.deepEqual(violationsOf(booksSearch, body), []);
  assert.deepEqual(body, { author: "Susan Cain", num: 10 });
  assert.deepEqual(violationsOf(booksSearch, { num: 3 }), [{ path: "", message: "Provide at least one of `query`, `author` or `subject`." }]);
  assert.deepEqual(booksSearch.publishedSchema.allOf, [{ anyOf: [{ required: ["query"] }, { required: ["author"] }, { required: ["subject"] }] }]);
  for (const e of booksSearch.examples) assert.deepEqual(violationsOf(booksSearch, structuredClone(e.body)), [], e.title);
});

test("details follow one Open Library redirect to the work it points to", async () => {
  const { fakeContext, fixture, response } = await import("../../../test/helpers/capability-kit.ts");
  const { ctx, requests } = fakeContext((req: { path: string }) => {
    if (req.path === "/works/OL1W.json") return { key: "/works/OL1W", type: { key: "/type/redirect" }, location: "/works/OL16484595W" };
    if (req.path === "/works/OL16484595W.json") return fixture("openlibrary", "works_OL16484595W_quiet.json");
    return response(404, { error: "notfound" });
  });
  const record = { summary: { title: "x" }, ref: { work_id: "OL1W" }, detail: null, query: { query: "x", num: 10 } };
  const out = await booksSearch.actions.details!.run!(ctx, record);
  assert.equal((out.detail as { work_id: string }).work_id, "OL16484595W");
  assert.equal(out.credits, 0);
  assert.deepEqual(requests.map((r) => r.path).sort(), [
    "/works/OL16484595W.json",
    "/works/OL16484595W/editions.json",
    "/works/OL1W.json",
    "/works/OL1W/editions.json",
  ]);
  await assert.rejects(booksSearch.actions.details!.run!(ctx, { ...record, ref: null }), (e: { violations?: { path: string }[] }) => e.violations?.[0]?.path === "/record_id");
});
