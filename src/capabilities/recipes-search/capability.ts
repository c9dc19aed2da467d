/**
 * recipes.search (spec 4.6): recipes from TheMealDB by name, main ingredient, category or cuisine.
 * Local paging (the whole result set is held in the session), free, details stored at search time;
 * filter results are partial, so their details are looked up again (free) on the first `details`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { STORED_DETAIL_GONE, sessionExpired } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { defineCapability, type RecordView } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { exactlyOne } from "../framework/rules.ts";
import type { CapabilityContext, JsonObject } from "../types.ts";
import { lookupRequest, mealDetail, NOT_INFERRED, parseMeals, SELECTORS, storedMealDetail, toPage, toRequest } from "./themealdb.ts";
import { DAY } from "../framework/durations.ts";
import { ONE_OF, type RecipesSearchQuery, recipesSearchSchema } from "./schema.ts";

export { type RecipesSearchQuery, recipesSearchSchema } from "./schema.ts";

/** Exactly one selector: none names the body; each one after the first names its own field. */
export const oneSelector = exactlyOne([...SELECTORS], {
  none: "No selector given: add exactly one of `query`, `ingredient`, `category` or `cuisine`.",
  extra: (field, first) => `\`${field}\` cannot be combined with \`${first}\`. ${ONE_OF}`,
});

/**
 * Update rule of spec 4.6: a supplied selector replaces the stored one (all stored selectors are
 * dropped first), `num` is kept unless supplied, and empty params re-run the stored query. As in the
 * service's default merge, a `null` value removes that field.
 */
export function mergeRecipeUpdate(stored: RecipesSearchQuery, params: JsonObject): JsonObject {
  const merged: JsonObject = { ...stored };
  if (SELECTORS.some((s) => params[s] !== undefined && params[s] !== null)) {
    for (const s of SELECTORS) delete merged[s];
  }
  for (const [key, value] of Object.entries(params)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** Re-lookup of a detail that was not stored (filter results): lookup.php, free. */
/** What a look-up reads: the record's TheMealDB meal id; without one the stored detail is simply gone (410). */
const mealRef = Type.Union([Type.Null(), Type.Object({ meal_id: Type.Optional(Type.String()) })]);

async function lookUpAgain(ctx: CapabilityContext<unknown>, record: RecordView<RecipesSearchQuery, Static<typeof mealRef>>) {
  const mealId = record.ref?.meal_id;
  if (mealId === undefined || mealId === "") throw sessionExpired(STORED_DETAIL_GONE);
  const response = await ctx.upstream.send(lookupRequest(mealId), ctx.signal);
  const meal = parseMeals(response.body)[0];
  if (meal === undefined) throw sessionExpired(`TheMealDB no longer has meal ${mealId}; execute the search again.`);
  return mealDetail(meal);
}

export const recipesSearch = defineCapability({
  id: "recipes.search",
  title: "Recipe search",
  summary: "Recipes from TheMealDB by name, main ingredient, category or cuisine, with ingredients and steps.",
  description:
    "Searches TheMealDB, a free crowd-sourced recipe database. Give exactly one selector: `query` " +
    "(meal name), `ingredient` (main ingredient), `category` or `cuisine`; they cannot be combined. " +
    "Records carry `category` and `cuisine` when known and always `attribution`. The whole result set " +
    "is held in the session (local paging, `num` per page, `more` is free). `details` gives the paired " +
    "ingredients and measures, instructions and source, video and photo links; it is stored at search " +
    "time for name searches, and for filter results (which list names only) it is looked up once at " +
    "no charge. `update` replaces the selector with the one supplied and keeps `num` unless changed; " +
    "empty params re-run the search. " +
    NOT_INFERRED,
  topic: "food and fitness",
  schema: recipesSearchSchema,
  recordKeys: Type.Object({
    category: Type.Optional(Type.String()),
    cuisine: Type.Optional(Type.String()),
    attribution: Type.String({ description: "Credit to the source (TheMealDB)." }),
  }),
  paging: "local",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free("Free: TheMealDB's public API has no per-call cost."),
  rules: [oneSelector],
  sources: [
    httpSource({
      id: "themealdb",
      title: "TheMealDB",
      provider: "themealdb",
      request: (query: RecipesSearchQuery) => toRequest(query),
      toPage: (body, query, _cursor, response) => toPage(body, response.text ?? JSON.stringify(body), query),
    }),
  ],
  update: {
    rule:
      "A selector supplied (query, ingredient, category or cuisine) replaces the stored one; num is kept unless " +
      "supplied (null restores its default); empty params run the stored query again.",
    merge: mergeRecipeUpdate,
    example: { title: "Seafood recipes instead (the selector is replaced)", params: { category: "Seafood" } },
  },
  actions: {
    details: {
      description:
        "Ingredients with measures, instructions, source/video/photo links. Stored and free; a recipe " +
        "listed by a filter is looked up once at no charge.",
      mode: "stored",
      needs: { ref: mealRef, refusal: "The record's stored meal id is not readable." },
      run: lookUpAgain,
    },
  },
  detailFromSource: { ref: Type.Object({ meal_id: Type.String({ minLength: 1 }) }), map: (source, record) => storedMealDetail(source, record.ref.meal_id) },
  examples: [
    { title: "A recipe by name", body: { query: "Salmon Prawn Risotto" } },
    { title: "Seafood recipes, 20 a page", body: { category: "Seafood", num: 20 } },
  ],
});
