/**
 * shopping.search's `filters[]` (spec 2.3) and `filter_id` (spec 4.6).
 *
 * Google Shopping offers refinements under SerpApi's `filters[]`: groups (`type`: Price, Brand…)
 * of options, each with the provider data that applies it, a `serpapi_link` (new layout: its `q`
 * and `shoprs`) or a `tbs` value (older layout). Quarry publishes each option as `{id, label,
 * group}` and keeps that data as the filter's private `token` (a query string of `q`/`shoprs` or
 * `tbs`), which never leaves Quarry. Ids are `<group>:<label>` slugs, stable across answers.
 * Google retired the older layout in 2025 and SerpApi no longer reads `tbs` in the new one: a `tbs`
 * filter answered in the new layout was not applied, and the answer says so (capability.ts).
 *
 * `filter_id` applies one filter to the search it came from: its filters are those of the
 * unfiltered search, and a filtered answer keeps publishing them (so a filter is replaced, not
 * stacked, and `null` clears it). The rules: only in `update`; only an id of this search's
 * `filters[]`; not with `sort` or `condition` (schema-level rules in capability.ts); a change of
 * query, country, language or location clears it, and sending it together with such a change is
 * refused (the new search has other filters).
 */
import { Type } from "@sinclair/typebox";
import type { Violation } from "../../errors.ts";
import { type Obj, str } from "../shared/read.ts";
import { objects } from "../shared/serpapi.ts";
import type { Filter, JsonObject, JsonValue, SessionView } from "../types.ts";

/**
 * The `filters[]` of a google_shopping answer as filtersOf reads them: groups (`type`, absent on the
 * first) of options with a label and the data that applies them (`serpapi_link`, or older `tbs`).
 */
export const filtersAnswer = Type.Object({
  filters: Type.Optional(
    Type.Array(
      Type.Object({
        type: Type.Optional(Type.String()),
        options: Type.Optional(
          Type.Array(
            Type.Object({ text: Type.Optional(Type.String()), serpapi_link: Type.Optional(Type.String()), tbs: Type.Optional(Type.String()) }),
          ),
        ),
      }),
    ),
  ),
});

/** Which Google Shopping layout an answer's filters come from: `new` (`shoprs` links) or `older` (`tbs`). */
export type ShoppingLayout = "new" | "older";

/** The layout of an answer, from how its filters apply; undefined when it offers none. */
export function layoutOf(root: Obj): ShoppingLayout | undefined {
  for (const group of objects(root, "filters")) {
    for (const option of objects(group, "options")) {
      if (str(option.serpapi_link) !== undefined) return "new";
      if (str(option.tbs) !== undefined) return "older";
    }
  }
  return undefined;
}

/** Whether a filter's token applies through `tbs`, which only Google's older layout reads. */
export function isOlderLayoutToken(token: string): boolean {
  return new URLSearchParams(token).has("tbs");
}

/** The fields whose change makes a new search (with other filters), clearing `filter_id`. */
export const SEARCH_SCOPE = ["query", "country", "language", "location"] as const;

/** Group label of SerpApi's first filter group, which has no `type` (On sale, Used…). */
export const UNTYPED_GROUP = "Quick filters";

/** Provider params a filter token may set (anything else in a link is the search's own). */
const TOKEN_PARAMS = ["q", "shoprs", "tbs"] as const;

function slug(text: string): string {
  const s = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 48)
    .replace(/-+$/, "");
  return s === "" ? "option" : s;
}

/** The token of an option: its serpapi_link's `q` and `shoprs`, or its `tbs`. */
function tokenOf(option: Obj): string | undefined {
  const link = str(option.serpapi_link);
  if (link !== undefined) {
    try {
      const params = new URL(link).searchParams;
      const shoprs = params.get("shoprs");
      if (shoprs === null || shoprs === "") return undefined;
      const q = params.get("q");
      return new URLSearchParams(q === null ? { shoprs } : { q, shoprs }).toString();
    } catch {
      return undefined;
    }
  }
  const tbs = str(option.tbs);
  return tbs === undefined ? undefined : new URLSearchParams({ tbs }).toString();
}

/**
 * SerpApi's `filters[]` as Quarry filters: options without a label or a token are left out, and so
 * is the "Sort by" group (sorting is the `sort` field).
 */
export function filtersOf(root: Obj): Filter[] {
  const out: Filter[] = [];
  const ids = new Set<string>();
  for (const group of objects(root, "filters")) {
    const label = str(group.type) ?? UNTYPED_GROUP;
    if (/^sort\b/i.test(label)) continue;
    for (const option of objects(group, "options")) {
      const text = str(option.text);
      const token = text === undefined ? undefined : tokenOf(option);
      if (text === undefined || token === undefined) continue;
      const base = `${slug(label)}:${slug(text)}`;
      let id = base;
      for (let n = 2; ids.has(id); n++) id = `${base}-${n}`;
      ids.add(id);
      out.push({ id, label: text, group: label, token });
    }
  }
  return out;
}

/** The provider params a token sets (`q`/`shoprs` or `tbs`). */
export function tokenParams(token: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(token)) {
    if ((TOKEN_PARAMS as readonly string[]).includes(key)) out[key] = value;
  }
  return out;
}

function same(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The scope fields `params` changes (null removes a stored value: a change too). */
function scopeChanges(stored: JsonObject, params: JsonObject): string[] {
  return SEARCH_SCOPE.filter((k) => k in params && !same(params[k], stored[k]));
}

/**
 * The update merge: params over the stored query (null removes a field), and a stored `filter_id`
 * dropped when the search's scope changes without one being sent.
 */
export function mergeShoppingUpdate(stored: JsonObject, params: JsonObject): JsonObject {
  const merged: JsonObject = { ...stored };
  for (const [key, value] of Object.entries(params)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  if (!("filter_id" in params) && scopeChanges(stored, params).length > 0) delete merged.filter_id;
  return merged;
}

/** The update rules that read the stored search: a `filter_id` sent must be one of its filters, and come without a scope change. */
export function filterUpdateRules(input: { query: JsonObject; sent: ReadonlySet<string>; session: SessionView }): Violation[] {
  const id = input.query.filter_id;
  if (!input.sent.has("filter_id") || typeof id !== "string") return [];
  const sentScope = Object.fromEntries(SEARCH_SCOPE.filter((k) => input.sent.has(k)).map((k) => [k, input.query[k] ?? null]));
  const changed = scopeChanges(input.session.query, sentScope);
  if (changed.length > 0) {
    return [
      {
        path: "/filter_id",
        message:
          `cannot be sent together with a change of ${changed.map((k) => `\`${k}\``).join(", ")}: that change makes a new ` +
          "search with other filters (and clears the filter). Change it first, then apply a filter of its answer.",
      },
    ];
  }
  const known = input.session.filters.map((f) => f.id);
  if (known.includes(id)) return [];
  return [
    {
      path: "/filter_id",
      message:
        known.length === 0
          ? "this search has no filters[] to apply"
          : `must be one of this search's filters[] ids: ${known.slice(0, 30).join(", ")}${known.length > 30 ? ", …" : ""}`,
    },
  ];
}
