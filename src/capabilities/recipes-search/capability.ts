/**
 * recipes.search (spec 4.6): recipes from TheMealDB by name, main ingredient, category or cuisine.
 * Local paging (the whole result set is held in the session), free, details stored at search time;
 * filter results are partial, so their details are looked up again (free) on the first `details`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { pointer, STORED_DETAIL_GONE, sessionExpired, unknownRecordAction, type Violation } from "../../errors.ts";
import { NOT_BLANK_PATTERN } from "../../validation.ts";
import type { ActionResult, Capability, CapabilityContext, JsonObject, StoredRecordView } from "../types.ts";
import {
  givenSelectors,
  lookupRequest,
  mealDetail,
  NOT_INFERRED,
  parseMeals,
  SELECTORS,
  storedMealDetail,
  toPage,
  toRequest,
} from "./themealdb.ts";

const ONE_OF = "Give exactly one of `query`, `ingredient`, `category`, `cuisine`; they cannot be combined.";
const NONE = "No selector given: add exactly one of `query`, `ingredient`, `category` or `cuisine`.";

/** 1-120 characters, not blank (at least one visible character; see NOT_BLANK_PATTERN). */
function selectorField(description: string) {
  return Type.Optional(Type.String({ minLength: 1, maxLength: 120, pattern: NOT_BLANK_PATTERN, description }));
}

export const recipesSearchSchema = Type.Object(
  {
    query: selectorField(`Meal name or part of it, e.g. "Risotto". ${ONE_OF}`),
    ingredient: selectorField(`Main ingredient, e.g. "chicken breast". ${ONE_OF}`),
    category: selectorField(`Meal category, e.g. "Seafood", "Dessert", "Vegetarian". ${ONE_OF}`),
    cuisine: selectorField(`Cuisine (area), e.g. "Italian", "Japanese". ${ONE_OF}`),
    num: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, default: 10, description: "Results per page (1-20)." }),
    ),
  },
  { additionalProperties: false, description: ONE_OF },
);

export type RecipesSearchQuery = Static<typeof recipesSearchSchema>;

/** Exactly one selector: none names the body; each one after the first names its own field. */
export function checkRecipeRules(query: RecipesSearchQuery): Violation[] {
  const given = givenSelectors(query);
  const first = given[0];
  if (first === undefined) return [{ path: "", message: NONE }];
  return given.slice(1).map((field) => ({
    path: pointer(field),
    message: `\`${field}\` cannot be combined with \`${first}\`. ${ONE_OF}`,
  }));
}

/**
 * Update rule of spec 4.6: a supplied selector replaces the stored one (all stored selectors are
 * dropped first), `num` is kept unless supplied, and empty params re-run the stored query. As in the
 * service's default merge, a `null` value removes that field.
 */
export function mergeRecipeUpdate(stored: RecipesSearchQuery, params: JsonObject): JsonObject {
  const merged: JsonObject = { ...(stored as JsonObject) };
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
async function lookUpAgain(
  ctx: CapabilityContext,
  action: string,
  record: StoredRecordView,
): Promise<ActionResult> {
  if (action !== "details") throw unknownRecordAction("recipes.search", action, ["details"]);
  const mealId = record.ref?.meal_id;
  if (typeof mealId !== "string" || mealId === "") {
    throw sessionExpired(STORED_DETAIL_GONE);
  }
  const response = await ctx.upstream.send<unknown>(lookupRequest(mealId), ctx.signal);
  const meal = parseMeals(response.body)[0];
  if (meal === undefined) {
    throw sessionExpired(`TheMealDB no longer has meal ${mealId}; execute the search again.`);
  }
  const { detail, links } = mealDetail(meal);
  return { detail, links, credits: 0, costUsd: 0 };
}

/** Record keys of spec 4.6: `category` and `cuisine` when present, `attribution` always. */
const recipesRecordKeys = Type.Object({
  category: Type.Optional(Type.String()),
  cuisine: Type.Optional(Type.String()),
  attribution: Type.String({ description: "Credit to the source (TheMealDB)." }),
});

export const recipesSearch: Capability<RecipesSearchQuery> = {
  id: "recipes.search",
  title: "Recipe search",
  summary:
    "Recipes from TheMealDB by name, main ingredient, category or cuisine, with ingredients and steps.",
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
  recordKeys: recipesRecordKeys,
  paging: "local",
  deadlineMs: 15_000,
  typicalCredits: 0,
  costBasis: "Free: TheMealDB's public API has no per-call cost.",
  requiredKeys: [],
  offersUpdate: true,
  maxCredits: () => 0,
  pageSize: (query) => query.num ?? 10,
  checkRules: checkRecipeRules,
  mergeUpdate: mergeRecipeUpdate,
  updateRule:
    "A selector supplied (query, ingredient, category or cuisine) replaces the stored one; num is kept unless " +
    "supplied (null restores its default); empty params run the stored query again.",
  async search(ctx, query) {
    const response = await ctx.upstream.send<unknown>(toRequest(query), ctx.signal);
    return toPage(response.body, response.text ?? JSON.stringify(response.body), query);
  },
  detailFromSource: (source, record) => storedMealDetail(source, record.ref?.meal_id),
  recordActions: [
    {
      name: "details",
      description:
        "Ingredients with measures, instructions, source/video/photo links. Stored and free; a recipe " +
        "listed by a filter is looked up once at no charge.",
      mode: "stored",
      credits: 0,
    },
  ],
  runAction: lookUpAgain,
  examples: [
    { title: "A recipe by name", body: { query: "Salmon Prawn Risotto" } },
    { title: "Seafood recipes, 20 a page", body: { category: "Seafood", num: 20 } },
  ],
  updateExample: { title: "Seafood recipes instead (the selector is replaced)", params: { category: "Seafood" } },
};
