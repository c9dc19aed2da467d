// recipes.search: schema bounds, the one-selector rule, update merging, and search / re-lookup glue
// through a fake upstream client that serves recorded TheMealDB bodies.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv } from "ajv";
import { fakeContext, fixture as recorded } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { JsonObject } from "../types.ts";
import { type RecipesSearchQuery, recipesSearch } from "./capability.ts";

const fixture = (name: string) => recorded("themealdb", name);
const details = recipesSearch.actions.details!;

const validate = new Ajv({ allErrors: true, useDefaults: true, strict: false }).compile(recipesSearch.schema);

function valid(body: JsonObject): boolean {
  return validate(structuredClone(body)) === true;
}

test("schema applies num default 10 and accepts each selector alone", () => {
  const body: JsonObject = { query: "Risotto" };
  assert.equal(validate(body), true);
  assert.equal(body.num, 10);
  for (const key of ["query", "ingredient", "category", "cuisine"]) assert.ok(valid({ [key]: "x" }), key);
  assert.ok(valid({ query: "a".repeat(120), num: 20 }), "valid({ query: \"a\".repeat(120), num: 20 })");
  assert.ok(valid({ category: "Seafood", num: 1 }), "valid({ category: \"Seafood\", num: 1 })");
  // One visible character is enough, whatever surrounds it; letters outside ASCII and emoji count.
  for (const visible of ["\u200bx", "é", "寿司", "😀", " - "]) assert.ok(valid({ query: visible }), visible);
});

test("schema refuses bounds, blank selectors, wrong types and unknown keys", () => {
  assert.equal(valid({ query: "" }), false);
  assert.equal(valid({ query: "   " }), false);
  assert.equal(valid({ cuisine: "\t\n" }), false);
  // Invisible characters are blank too: zero-width space, BOM, word joiner, soft hyphen, Hangul filler,
  // a direction mark, a variation selector.
  for (const blank of ["\u200b", "\ufeff", "\u2060\u00ad", " \u3164 ", "\u200e", "\ufe0f", "\u0085\u00a0"]) {
    assert.equal(valid({ query: blank }), false, JSON.stringify(blank));
  }
  assert.equal(valid({ query: "a".repeat(121) }), false);
  assert.equal(valid({ query: "x", num: 0 }), false);
  assert.equal(valid({ query: "x", num: 21 }), false);
  assert.equal(valid({ query: "x", num: 2.5 }), false);
  assert.equal(valid({ query: 5 }), false);
  assert.equal(valid({ query: "x", area: "Italian" }), false);
});

test("one-selector rule: none given names the body", () => {
  const violations = recipesSearch.checkRules({ num: 10 }) ?? [];
  assert.equal(violations.length, 1);
  assert.equal(violations[0]?.path, "");
  assert.match(violations[0]?.message ?? "", /^No selector given: .*query.*ingredient.*category.*cuisine/);
  assert.doesNotMatch(violations[0]?.message ?? "", /combined/, "nothing was combined");
});

test("one-selector rule: each extra selector gets its own violation", () => {
  const violations = recipesSearch.checkRules({ query: "a", category: "b", cuisine: "c", num: 10 }) ?? [];
  assert.deepEqual(
    violations.map((v) => v.path),
    ["/category", "/cuisine"],
  );
  assert.match(violations[0]?.message ?? "", /cannot be combined with `query`/);
  assert.deepEqual(recipesSearch.checkRules({ ingredient: "egg", num: 10 }), []);
});

test("update: a supplied selector replaces the stored one, num kept", () => {
  const merge = recipesSearch.mergeUpdate;
  const session = { query: {}, filters: [] };
  assert.ok(merge, "merge");
  const stored: RecipesSearchQuery = { category: "Seafood", num: 5 };
  assert.deepEqual(merge(stored, { cuisine: "Italian" }, session), { cuisine: "Italian", num: 5 });
  assert.deepEqual(merge(stored, { category: "Dessert" }, session), { category: "Dessert", num: 5 });
});

test("update: num alone changes num and keeps the selector; empty params refresh", () => {
  const merge = recipesSearch.mergeUpdate;
  const session = { query: {}, filters: [] };
  assert.ok(merge, "merge");
  const stored: RecipesSearchQuery = { query: "Risotto", num: 10 };
  assert.deepEqual(merge(stored, { num: 3 }, session), { query: "Risotto", num: 3 });
  assert.deepEqual(merge(stored, {}, session), stored);
  assert.deepEqual(merge(stored, { ingredient: "rice", num: 4 }, session), { ingredient: "rice", num: 4 });
});

test("update: null removes a field, as in the default merge", () => {
  const merge = recipesSearch.mergeUpdate;
  const session = { query: {}, filters: [] };
  assert.ok(merge, "merge");
  assert.deepEqual(merge({ query: "Risotto", num: 5 }, { query: null, cuisine: "Thai" }, session), {
    num: 5,
    cuisine: "Thai",
  });
  const cleared = merge({ query: "Risotto", num: 5 }, { query: null }, session);
  assert.deepEqual(cleared, { num: 5 });
  assert.equal(recipesSearch.checkRules(cleared as RecipesSearchQuery)[0]?.path, "");
  // Through update, the selector the caller removed is named (under /params in the answer).
  assert.equal(recipesSearch.checkRules(cleared as RecipesSearchQuery, new Set(["query"]))[0]?.path, "/query");
});

test("update: two supplied selectors survive the merge so the rule refuses them", () => {
  const merged = recipesSearch.mergeUpdate?.({ query: "x", num: 10 }, { category: "a", cuisine: "b" }, { query: {}, filters: [] });
  assert.deepEqual(merged, { num: 10, category: "a", cuisine: "b" });
  const violations = recipesSearch.checkRules(merged as RecipesSearchQuery);
  assert.deepEqual(
    violations.map((v) => v.path),
    ["/cuisine"],
  );
});

test("search sends one request and returns every meal with next null (local paging)", async () => {
  const { ctx, requests } = fakeContext(fixture("filter_by_category.json"));
  const page = await recipesSearch.search(ctx, { category: "Seafood", num: 10 }, null);
  assert.equal(requests.length, 1);
  assert.equal(requests[0]?.path, "/api/json/v1/{api_key}/filter.php");
  assert.deepEqual(requests[0]?.query, { c: "Seafood" });
  assert.equal(page.records.length, 29);
  assert.equal(page.next, null);
  assert.equal(page.credits, 0);
  assert.equal(recipesSearch.pageSize({ category: "Seafood", num: 7 }), 7);
  assert.equal(recipesSearch.maxCredits({ category: "Seafood", num: 7 }), 0);
});

test("search with no match yields zero records", async () => {
  const { ctx } = fakeContext(fixture("search_no_results.json"));
  const page = await recipesSearch.search(ctx, { query: "xablau", num: 10 }, null);
  assert.equal(page.records.length, 0);
});

test("runAction looks a missing detail up again via lookup.php at no charge", async () => {
  const { ctx, requests } = fakeContext(fixture("lookup_by_id.json"));
  const result = await details.run!(ctx, {
    summary: { title: "Teriyaki Chicken Casserole" },
    ref: { meal_id: "52772" },
    detail: null,
    query: { category: "Chicken", num: 10 },
  });
  assert.ok(result, "result");
  assert.equal(result.credits, 0);
  assert.equal(requests[0]?.path, "/api/json/v1/{api_key}/lookup.php");
  assert.deepEqual(requests[0]?.query, { i: "52772" });
  const detail = result.detail as JsonObject;
  assert.equal(detail.name, "Teriyaki Chicken Casserole");
  assert.equal((detail.ingredients as unknown[]).length, 9);
  assert.ok(result.links.some((l) => l.url === "https://www.themealdb.com/meal/52772"), "result.links.some((l) => l.url === \"https://www.themealdb.com/meal/52772\")");
});

test("runAction: a meal TheMealDB no longer has, or a record without id, is session_expired", async () => {
  const { ctx } = fakeContext({ meals: null });
  const view = { summary: { title: "Gone" }, ref: { meal_id: "1" }, detail: null, query: {} };
  await assert.rejects(
    details.run!(ctx, view),
    (e: unknown) => e instanceof ApiError && e.code === "session_expired",
  );
  await assert.rejects(
    details.run!(ctx, { ...view, ref: null }) ?? Promise.resolve(),
    (e: unknown) => e instanceof ApiError && e.code === "session_expired",
  );
});

test("capability metadata follows spec 4.6", () => {
  assert.equal(recipesSearch.id, "recipes.search");
  assert.equal(recipesSearch.paging, "local");
  assert.equal(recipesSearch.deadlineMs, 15_000);
  assert.equal(recipesSearch.typicalCredits, 0);
  assert.equal(recipesSearch.offersUpdate, true);
  assert.deepEqual(recipesSearch.availability(new Set()), {});
  assert.deepEqual(
    Object.values(recipesSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "stored", 0]],
  );
  assert.match(
    recipesSearch.description,
    /Nutrition, allergy safety and storage suitability are not inferred/,
  );
});

test("examples are valid bodies that pass the rules", () => {
  assert.ok(recipesSearch.examples.length >= 2, "recipesSearch.examples.length >= 2");
  for (const { body } of recipesSearch.examples) {
    const copy = structuredClone(body);
    assert.equal(validate(copy), true, JSON.stringify(body));
    assert.deepEqual(recipesSearch.checkRules(copy), []);
  }
});
