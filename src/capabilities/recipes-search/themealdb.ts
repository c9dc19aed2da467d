/**
 * TheMealDB adapter for recipes.search: pure mappers from a validated query to the upstream request
 * (search.php / filter.php / lookup.php, each declaring the answer it reads) and from TheMealDB
 * bodies to records and stored details. `{"meals": null}` is TheMealDB's "no match": its refusal
 * hook passes it on as "no results" (an empty page, never drift), so the declared answer is the list
 * itself and a changed meal is drift at its own field. No I/O here; `capability.ts` glues these to
 * the upstream client.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { checkShape, nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";

/** The four selectors, in the order used to name the "first" one when several are given. */
export const SELECTORS = ["query", "ingredient", "category", "cuisine"] as const;
export type Selector = (typeof SELECTORS)[number];

export interface RecipesQuery {
  query?: string;
  ingredient?: string;
  category?: string;
  cuisine?: string;
  num?: number;
}

export const ATTRIBUTION = "TheMealDB (themealdb.com)";
export const NOT_INFERRED = "Nutrition, allergy safety and storage suitability are not inferred.";
const MEAL_PAGE = "https://www.themealdb.com/meal/";
const SNIPPET_CHARS = 240;

/** A TheMealDB text field: a string, "" or null for none (TheMealDB mixes them). */
const text_ = nullish(Type.String());

/**
 * strIngredientN / strMeasureN (N = 1..20) paired; slots whose ingredient is empty or null are
 * dropped (TheMealDB mixes "" and null for unused slots), and a blank measure is left out.
 */
const INGREDIENT_FIELDS = Array.from({ length: 20 }, (_, i) => [`strIngredient${i + 1}`, `strMeasure${i + 1}`] as const);

/**
 * A meal: flat strings or nulls. `idMeal` (a string) and `strMeal` are always there; filter.php's
 * meals carry only them and the picture; search.php and lookup.php's carry every field. The 40
 * ingredient and measure slots are checked (a string or null when present) but read by name.
 */
export const mealDbMeal = Type.Object({
  idMeal: Type.String(),
  strMeal: Type.String(),
  strInstructions: text_,
  strCategory: text_,
  strArea: text_,
  strTags: text_,
  strSource: text_,
  strYoutube: text_,
  strMealThumb: text_,
  ...(Object.fromEntries(INGREDIENT_FIELDS.flat().map((field) => [field, text_])) as Record<never, never>),
});

/** A TheMealDB meal answer that found meals (`{"meals": null}`, no match, is read by `mealDbRefusal`). */
export const mealDbMeals = Type.Object({ meals: Type.Array(mealDbMeal) });

export type Meal = Static<typeof mealDbMeal>;
/** What a meal request's mapper gets: the checked list, or TheMealDB's no-match answer passed on unchecked. */
export type MealDbMeals = Static<typeof mealDbMeals> | { meals: null };

/** TheMealDB's "no match" (`{"meals": null}`, HTTP 200): no results, an empty page (refusal hook). */
export function mealDbRefusal(body: unknown, _status: number): "no_results" | undefined {
  return typeof body === "object" && body !== null && "meals" in body && (body as { meals: unknown }).meals === null ? "no_results" : undefined;
}

/** A meal's field by name (the ingredient and measure slots). */
function field(meal: Meal, name: string): unknown {
  return (meal as Record<string, unknown>)[name];
}

/** The selectors present in a query, in SELECTORS order. */
export function givenSelectors(query: RecipesQuery): Selector[] {
  return SELECTORS.filter((s) => query[s] !== undefined);
}

/**
 * search.php for `query`; filter.php with `i` / `c` / `a` for ingredient / category / cuisine.
 * The path carries the literal `{api_key}`: the upstream client substitutes the key (default `1`).
 */
export function toRequest(query: RecipesQuery): JsonRequest<typeof mealDbMeals> {
  const selector = givenSelectors(query)[0];
  if (selector === undefined) throw new ApiError("internal_error", "recipes.search ran without a selector.");
  const value = (query[selector] ?? "").trim();
  if (selector === "query") return mealDbGet("search.php", { s: value });
  if (selector === "ingredient") {
    // TheMealDB documents multi-word ingredients with underscores (filter.php?i=chicken_breast).
    return mealDbGet("filter.php", { i: value.replace(/\s+/g, "_") });
  }
  return mealDbGet("filter.php", selector === "category" ? { c: value } : { a: value });
}

/** lookup.php?i=<idMeal>: the full meal, used to re-fetch a detail that was not stored. */
export function lookupRequest(mealId: string): JsonRequest<typeof mealDbMeals> {
  return mealDbGet("lookup.php", { i: mealId });
}

function mealDbGet(file: string, query: Record<string, string>): JsonRequest<typeof mealDbMeals> {
  return { provider: "themealdb", method: "GET", path: `/api/json/v1/{api_key}/${file}`, query, refusal: mealDbRefusal, response: mealDbMeals };
}

/** The meals of an answer: `{"meals": null}` is TheMealDB's "no match" (zero meals); a meal with a blank id is left out. */
export function parseMeals(body: MealDbMeals): Meal[] {
  return (body.meals ?? []).filter((m) => text(m.idMeal) !== undefined);
}

/**
 * All meals of the body as records (local paging: the service slices by `num`). `text` is the body
 * as TheMealDB sent it: when the page holds full meals (search.php, lookup.php) it is the page's
 * source, from which `storedMealDetail` maps each record's detail when `details` asks for it.
 */
export function toPage(body: MealDbMeals, text?: string, filtered?: Pick<RecipesQuery, "category" | "cuisine">): SourcePage {
  const meals = parseMeals(body);
  const records = meals.map((meal) => mealToRecord(meal, filtered));
  const notes: string[] = [];
  if (meals.some((m) => !isFullMeal(m))) {
    notes.push(
      "Ingredient, category and cuisine filters list names only; `details` looks each recipe up at no charge.",
    );
  }
  const source = text !== undefined && meals.some(isFullMeal) ? { source: text } : {};
  return { records, next: null, ...(notes.length > 0 ? { notes } : {}), ...source };
}

/**
 * The stored detail of meal `mealId` mapped from its page's source (the body `toPage` was given, as
 * TheMealDB sent it and as its answer was checked), or null when the source holds no full meal of
 * that id (or is not a TheMealDB answer: details then look the meal up again).
 */
export function storedMealDetail(source: string, mealId: unknown): { detail: JsonObject; links: Link[] } | null {
  if (typeof mealId !== "string" || mealId === "") return null;
  let meals: Meal[];
  try {
    const parsed: unknown = JSON.parse(source);
    if (mealDbRefusal(parsed, 200) === "no_results") return null;
    meals = parseMeals(checkShape("themealdb", mealDbMeals, parsed));
  } catch {
    return null;
  }
  const meal = meals.find((m) => text(m.idMeal) === mealId && isFullMeal(m));
  return meal === undefined ? null : mealDetail(meal);
}

/**
 * One meal as a record: its summary and the id `details` needs (the detail comes from the page source).
 * filter.php's meals carry no category or cuisine; listed for a category or cuisine filter, that is
 * theirs (`filtered`: the filter the page answers, as the caller spelled it).
 */
export function mealToRecord(meal: Meal, filtered?: Pick<RecipesQuery, "category" | "cuisine">): RecordDraft {
  const id = text(meal.idMeal) ?? "";
  const title = text(meal.strMeal) ?? `Meal ${id}`;
  const summary: RecordDraft["summary"] = { title, url: httpUrl(meal.strSource) ?? mealPage(id) };
  const snippet = snippetOf(text(meal.strInstructions));
  if (snippet !== undefined) summary.snippet = snippet;
  const category = text(meal.strCategory) ?? asListed(filtered?.category);
  if (category !== undefined) summary.category = category;
  const cuisine = cuisineOf(meal) ?? areaAsCuisine(asListed(filtered?.cuisine));
  if (cuisine !== undefined) summary.cuisine = cuisine;
  summary.attribution = ATTRIBUTION;
  return { summary, ref: { meal_id: id } };
}

/** The stored detail: paired ingredients and measures, instructions, source links. */
export function mealDetail(meal: Meal): { detail: JsonObject; links: Link[] } {
  const id = text(meal.idMeal) ?? "";
  const detail: JsonObject = { meal_id: id, name: text(meal.strMeal) ?? `Meal ${id}` };
  const category = text(meal.strCategory);
  if (category !== undefined) detail.category = category;
  const cuisine = cuisineOf(meal);
  if (cuisine !== undefined) detail.cuisine = cuisine;
  const tags = (text(meal.strTags) ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
  if (tags.length > 0) detail.tags = tags;
  detail.ingredients = ingredientsOf(meal);
  const instructions = instructionsOf(text(meal.strInstructions));
  if (instructions !== undefined) detail.instructions = instructions;

  const links: Link[] = [];
  const source = httpUrl(meal.strSource);
  const video = httpUrl(meal.strYoutube);
  const image = httpUrl(meal.strMealThumb);
  if (source !== undefined) {
    detail.source_url = source;
    links.push({ label: "Original recipe", url: source });
  }
  if (video !== undefined) {
    detail.video_url = video;
    links.push({ label: "Video", url: video });
  }
  if (image !== undefined) {
    detail.image_url = image;
    links.push({ label: "Photo", url: image });
  }
  detail.meal_page = mealPage(id);
  links.push({ label: "TheMealDB page", url: mealPage(id) });
  detail.attribution = ATTRIBUTION;
  detail.caveat = NOT_INFERRED;
  return { detail, links };
}

export function ingredientsOf(meal: Meal): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [ingredientField, measureField] of INGREDIENT_FIELDS) {
    const ingredient = text(field(meal, ingredientField));
    if (ingredient === undefined) continue;
    const measure = text(field(meal, measureField));
    out.push(measure === undefined ? { ingredient } : { ingredient, measure });
  }
  return out;
}

/** Search results carry the whole meal; filter.php results carry only name, thumbnail and id. */
export function isFullMeal(meal: Meal): boolean {
  return typeof meal.strInstructions === "string" || "strIngredient1" in meal;
}

export function mealPage(id: string): string {
  return MEAL_PAGE + encodeURIComponent(id);
}

/** TheMealDB uses area "Unknown" for meals without one; that is not a cuisine. */
function cuisineOf(meal: Meal): string | undefined {
  return areaAsCuisine(text(meal.strArea));
}

function areaAsCuisine(area: string | undefined): string | undefined {
  return area === undefined || area.toLowerCase() === "unknown" ? undefined : area;
}

/**
 * A filter value as TheMealDB names its categories and areas ("Seafood", "Italian": each word
 * capitalized), whatever case the caller used (TheMealDB's filters ignore it).
 */
function asListed(value: string | undefined): string | undefined {
  const t = text(value);
  return t === undefined ? undefined : t.toLowerCase().replace(/(^|[\s-])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase());
}

function instructionsOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  // Most instructions need neither pass; the checks are cheaper than the regular expressions.
  const unix = raw.includes("\r") ? raw.replace(/\r\n?/g, "\n") : raw;
  return (unix.includes("\n\n\n") ? unix.replace(/\n{3,}/g, "\n\n") : unix).trim();
}

/** The start of the instructions on one line, cut at a word boundary. */
export function snippetOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const flat = flatPrefix(raw);
  if (flat.length <= SNIPPET_CHARS) return flat;
  const cut = flat.slice(0, SNIPPET_CHARS);
  const space = cut.lastIndexOf(" ");
  return (space > SNIPPET_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd() + "…";
}

/**
 * The whitespace runs that flattening changes: two or more whitespace characters, or one that is
 * not a plain space. Replacing these with one space gives the same text as replacing every `\s+`,
 * without a match (and its allocations) for each single space between two words: in a recipe's
 * first 304 characters 3 matches instead of 55, 0.5 µs instead of 2.9 (docs/performance.md).
 */
const WHITESPACE_TO_FLATTEN = /\s{2,}|[^\S ]/g;

/**
 * `raw` on one line (whitespace runs as one space, trimmed), or a prefix of that longer than a
 * snippet: only as much of a long text is flattened as the snippet can use.
 */
function flatPrefix(raw: string): string {
  for (let take = SNIPPET_CHARS + 64; ; take *= 2) {
    if (take >= raw.length) return raw.replace(WHITESPACE_TO_FLATTEN, " ").trim();
    // Cut inside the text: a whitespace run at the cut would continue past it, so the end is not trimmed.
    const flat = raw.slice(0, take).replace(WHITESPACE_TO_FLATTEN, " ").trimStart();
    if (flat.length > SNIPPET_CHARS + 1) return flat;
  }
}

/** A trimmed non-empty string, else undefined (TheMealDB uses "" and null interchangeably). */
function text(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const t = value.trim();
  return t === "" ? undefined : t;
}

function httpUrl(value: unknown): string | undefined {
  const t = text(value);
  return t !== undefined && /^https?:\/\//i.test(t) ? t : undefined;
}

/** The live check's probe: one meal by id (a free lookup; TheMealDB's documented example meal). */
export const themealdbProbe: ProviderProbe = {
  provider: "themealdb",
  what: "one meal by id (free)",
  request: lookupRequest("52772"),
};
