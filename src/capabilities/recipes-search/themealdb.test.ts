// Pure TheMealDB mappers replayed against recorded bodies (fixtures/providers/themealdb).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import fc from "fast-check";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import {
  ATTRIBUTION,
  ingredientsOf,
  lookupRequest,
  type Meal,
  mealDbMeals,
  type MealDbMeals,
  mealDbRefusal,
  mealDetail,
  parseMeals,
  snippetOf,
  storedMealDetail,
  toPage,
  themealdbProbe,
  toRequest,
} from "./themealdb.ts";

function fixtureText(name: string): string {
  return readFileSync(new URL(`../../../fixtures/providers/themealdb/${name}`, import.meta.url), "utf8");
}

/** A body as the upstream client hands it over: the no-match answer passed on, anything else checked against the declared answer. */
function body(text: string): MealDbMeals {
  const parsed: unknown = JSON.parse(text);
  checkJsonAnswer(lookupRequest("1"), 200, parsed);
  return parsed as MealDbMeals;
}

function fixture(name: string) {
  return body(fixtureText(name));
}

test("query maps to search.php?s= with the literal {api_key} path segment, trimmed", () => {
  const req = toRequest({ query: "  Salmon Prawn Risotto ", num: 10 });
  assert.equal(req.provider, "themealdb");
  assert.equal(req.method, "GET");
  assert.equal(req.path, "/api/json/v1/{api_key}/search.php");
  assert.deepEqual(req.query, { s: "Salmon Prawn Risotto" });
});

test("ingredient, category and cuisine map to filter.php i / c / a", () => {
  assert.deepEqual(toRequest({ ingredient: "chicken  breast" }).query, { i: "chicken_breast" });
  assert.equal(toRequest({ ingredient: "salmon" }).path, "/api/json/v1/{api_key}/filter.php");
  assert.deepEqual(toRequest({ category: "Seafood" }).query, { c: "Seafood" });
  assert.deepEqual(toRequest({ cuisine: "Italian" }).query, { a: "Italian" });
});

test("lookupRequest targets lookup.php?i=", () => {
  const req = lookupRequest("52772");
  assert.equal(req.path, "/api/json/v1/{api_key}/lookup.php");
  assert.deepEqual(req.query, { i: "52772" });
});

test("a full meal from search.php becomes a record; its stored detail is mapped from the page source", () => {
  const text = fixtureText("search_single_result.json");
  const page = toPage(body(text), text);
  assert.equal(page.source, text, "the body as sent is the page's source");
  assert.equal(page.next, null);
  assert.equal(page.records.length, 1);
  assert.equal(page.notes, undefined);
  const [rec] = page.records;
  assert.ok(rec, "rec");
  assert.equal(rec.summary.title, "Salmon Prawn Risotto");
  assert.match(rec.summary.url ?? "", /^http:\/\/www\.rangemaster\.co\.uk\//);
  assert.equal(rec.summary.category, "Seafood");
  assert.equal(rec.summary.cuisine, "Italian");
  assert.equal(rec.summary.attribution, ATTRIBUTION);
  assert.match(rec.summary.snippet ?? "", /^Melt the butter in a thick-based pan/);
  assert.ok(!(rec.summary.snippet ?? "").includes("\r"), "!(rec.summary.snippet ?? \"\").includes(\"\\r\")");
  assert.deepEqual(rec.ref, { meal_id: "52823" });
  assert.equal(rec.detail, undefined, "not built at search time");
  const stored = storedMealDetail(text, "52823");
  assert.ok(stored, "stored");
  const { detail, links } = stored;
  assert.equal(detail.meal_id, "52823");
  assert.deepEqual(detail.tags, ["Fish"]);
  assert.equal(detail.video_url, "https://www.youtube.com/watch?v=V2PMvBv52IE");
  assert.equal(detail.meal_page, "https://www.themealdb.com/meal/52823");
  assert.match(String(detail.caveat), /not inferred/);
  assert.ok(!String(detail.instructions).includes("\r"), "!String(detail.instructions).includes(\"\\r\")");
  assert.deepEqual(
    links.map((l) => l.label),
    ["Original recipe", "Video", "Photo", "TheMealDB page"],
  );
  // The same detail as mapping the meal directly; nothing for an id the source does not hold.
  const [meal] = parseMeals(body(text));
  assert.ok(meal, "meal");
  assert.deepEqual(stored, mealDetail(meal));
  assert.equal(storedMealDetail(text, "52772"), null);
  assert.equal(storedMealDetail(text, undefined), null);
  assert.equal(storedMealDetail("not json", "52823"), null);
  assert.equal(storedMealDetail('{"meals":null}', "52823"), null);
});

test("filter.php pages keep no source (partial meals: their details are looked up)", () => {
  const text = fixtureText("filter_by_category.json");
  assert.equal(toPage(body(text), text).source, undefined);
  // A partial meal of that id is not a stored detail.
  assert.equal(storedMealDetail(text, "52823"), null);
});

test("ingredients are paired with trimmed measures and empty slots are dropped", () => {
  const [meal] = parseMeals(fixture("search_single_result.json"));
  assert.ok(meal, "meal");
  const ingredients = ingredientsOf(meal);
  assert.equal(ingredients.length, 11);
  assert.deepEqual(ingredients[0], { ingredient: "butter", measure: "50g/2oz" });
  assert.deepEqual(ingredients[1], { ingredient: "onions", measure: "1 finely chopped" });
  assert.deepEqual(ingredients[10], { ingredient: "Parmesan", measure: "50g shavings" });
});

test("mixed empty-string and null slots (lookup.php body) are both dropped; a blank measure is omitted", () => {
  const [meal] = parseMeals(fixture("lookup_by_id.json"));
  assert.ok(meal, "meal");
  const { detail, links } = mealDetail(meal);
  assert.equal((detail.ingredients as unknown[]).length, 9);
  assert.equal(detail.source_url, undefined);
  assert.equal(detail.cuisine, "Japanese");
  assert.deepEqual(detail.tags, ["Meat", "Casserole"]);
  assert.ok(!links.some((l) => l.label === "Original recipe"), "!links.some((l) => l.label === \"Original recipe\")");
  const lone = ingredientsOf({ idMeal: "1", strMeal: "Salt", strIngredient1: "salt", strMeasure1: " ", strIngredient2: null } as Meal);
  assert.deepEqual(lone, [{ ingredient: "salt" }]);
});

test("without a source URL the record links to the meal page", () => {
  const page = toPage(fixture("lookup_by_id.json"));
  assert.equal(page.records[0]?.summary.url, "https://www.themealdb.com/meal/52772");
});

test("filter.php partial meals: all kept, no stored detail, meal-page url, note about details", () => {
  const page = toPage(fixture("filter_by_category.json"));
  assert.equal(page.records.length, 29);
  assert.equal(page.next, null);
  const rec = page.records[19];
  assert.ok(rec, "rec");
  assert.equal(rec.summary.title, "Salmon Prawn Risotto");
  assert.equal(rec.summary.url, "https://www.themealdb.com/meal/52823");
  assert.equal(rec.summary.attribution, ATTRIBUTION);
  assert.equal(rec.summary.snippet, undefined);
  assert.equal(rec.summary.category, undefined);
  assert.equal(rec.detail, undefined);
  assert.deepEqual(rec.ref, { meal_id: "52823" });
  assert.equal(page.notes?.length, 1);
});

test("filter.php meals listed for a category or cuisine filter carry it; an ingredient filter adds nothing", () => {
  const body = fixture("filter_by_category.json");
  // [category, cuisine] of every record (29 in the recording), so an empty page cannot pass.
  const labels = (filtered: { category?: string; cuisine?: string }) =>
    toPage(body, undefined, filtered).records.map((r) => [r.summary.category, r.summary.cuisine]);
  const all = (category: string | undefined, cuisine: string | undefined) => Array(29).fill([category, cuisine]);
  assert.deepEqual(labels({ category: "Seafood" }), all("Seafood", undefined));
  assert.deepEqual(labels({ cuisine: "Italian" }), all(undefined, "Italian"));
  // Named as TheMealDB lists them, whatever case the caller used; "Unknown" is no cuisine.
  assert.deepEqual(labels({ category: "seafood" }), all("Seafood", undefined));
  assert.deepEqual(labels({ cuisine: "unknown" }), all(undefined, undefined));
  assert.deepEqual(labels({}), all(undefined, undefined));
  // A full meal keeps its own (search.php answers for a name, not a filter).
  const full = toPage(fixture("lookup_by_id.json"), undefined, { category: "Other" });
  assert.equal(full.records[0]?.summary.category, "Chicken");
});

test('{"meals": null} is zero records, not an error', () => {
  const page = toPage(fixture("search_no_results.json"));
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
});

test("area Unknown is not reported as a cuisine; blank values are omitted, never empty", () => {
  const page = toPage({
    meals: [
      { idMeal: "9", strMeal: "Mystery", strArea: "Unknown", strCategory: "", strInstructions: "Cook." },
    ],
  });
  const summary = page.records[0]?.summary;
  assert.ok(summary, "summary");
  assert.equal("cuisine" in summary, false);
  assert.equal("category" in summary, false);
  assert.equal(summary.snippet, "Cook.");
});

test("every request declares the meals answer; every recording fits it, {\"meals\": null} included", () => {
  for (const req of [toRequest({ query: "x" }), toRequest({ category: "Seafood" }), lookupRequest("1"), themealdbProbe.request]) {
    assert.equal(req.response, mealDbMeals);
  }
  assert.deepEqual(themealdbProbe.request.query, { i: "52772" });
  for (const f of ["lookup_by_id.json", "filter_by_category.json", "search_single_result.json"]) checkShape("themealdb", mealDbMeals, JSON.parse(fixtureText(f)));
  // The recorded no-match answer is TheMealDB's "no results", passed on to the mapper, not drift.
  assert.equal(mealDbRefusal(JSON.parse(fixtureText("search_no_results.json")), 200), "no_results");
  assert.doesNotThrow(() => checkJsonAnswer(toRequest({ query: "xablau" }), 200, { meals: null }));
  assert.equal(mealDbRefusal({ meals: [] }, 200), undefined);
  assert.equal(toRequest({ query: "x" }).refusal, mealDbRefusal);
});

test("unexpected bodies are drift naming TheMealDB and the field", () => {
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^TheMealDB answered in a shape/.test(e.message);
  for (const [value, pointer] of [
    ["html", ""],
    [[], ""],
    [{ categories: [] }, "/meals"],
    [{ meals: "x" }, "/meals"],
    [{ meals: [{ strMeal: "No id" }] }, "/meals/0/idMeal"],
    [{ meals: [{ idMeal: 52772, strMeal: "Numeric id" }] }, "/meals/0/idMeal"],
    [{ meals: [{ idMeal: "1", strMeal: "x", strIngredient3: 4 }] }, "/meals/0/strIngredient3"],
  ] as const) {
    assert.throws(() => checkShape("themealdb", mealDbMeals, value), drift(pointer), JSON.stringify(value));
  }
});

test("long instructions are cut at a word boundary with an ellipsis", () => {
  const long = "word ".repeat(100);
  const snippet = snippetOf(long) ?? "";
  assert.ok(snippet.length <= 241, "snippet.length <= 241");
  assert.ok(snippet.endsWith("word…"), "snippet.endsWith(\"word…\")");
});

test("snippets flatten only what they need and match flattening the whole text", () => {
  // The reference: flatten everything, then cut (what snippetOf did before it flattened a prefix).
  const reference = (raw: string): string => {
    const flat = raw.replace(/\s+/g, " ").trim();
    if (flat.length <= 240) return flat;
    const cut = flat.slice(0, 240);
    const space = cut.lastIndexOf(" ");
    return (space > 120 ? cut.slice(0, space) : cut).trimEnd() + "…";
  };
  const piece = fc.oneof(
    fc.constantFrom(" ", "  ", "\n", "\r\n", "\t", " \n \n ", "   \t\t   ", "\v\f", "\u00a0", "\u2003", "\u2028", "\u3000", "\ufeff", "\u200b"),
    fc.string({ minLength: 1, maxLength: 12 }),
    fc.constantFrom("word", "Salmon", "é", "…", "x".repeat(300), " ".repeat(1500)),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 400 }), (pieces) => {
      const raw = pieces.join("");
      assert.equal(snippetOf(raw), reference(raw));
    }),
    { numRuns: 2000 },
  );
});
