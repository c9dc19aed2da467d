/**
 * SerpApi `google_shopping` adapter for shopping.search: pure mappers from a validated query, a
 * provider page (`start`) and the applied filter's token to the upstream request, and from one
 * SerpApi answer to product records, the filters it offers and the next page's `start`. No I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import type { ProviderPage } from "../framework/cursors.ts";
import { clip, defined, httpUrl, int, num, type Obj, str, strings } from "../shared/read.ts";
import { nextStart, objects, type SerpAnswer, serpApiRequest } from "../shared/serpapi.ts";
import type { Filter, RecordDraft } from "../types.ts";
import type { ShoppingSearchQuery } from "./schema.ts";
import { filtersAnswer, filtersOf, layoutOf, type ShoppingLayout, tokenParams } from "./shopping-filters.ts";

export const SOURCE = "Google Shopping via SerpApi";

/** A product of `shopping_results[]`: its title is required (an untitled product cannot be shown). */
export const shoppingProduct = Type.Object({
  title: Type.String(),
  product_link: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  snippet: Type.Optional(Type.String()),
  extensions: Type.Optional(Type.Array(Type.String())),
  extracted_price: Type.Optional(Type.Number()),
  price: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  rating: Type.Optional(Type.Number()),
  reviews: Type.Optional(Type.Number()),
  delivery: Type.Optional(Type.String()),
  shipping: Type.Optional(Type.String()),
  second_hand_condition: Type.Optional(Type.String()),
  immersive_product_page_token: Type.Optional(Type.String()),
  product_id: Type.Optional(Type.String()),
});

/**
 * A google_shopping answer: `shopping_results[]` (required: Google finding nothing is SerpApi's "no
 * results" answer), the filters it offers, and the next page's link.
 */
export const shoppingAnswer = Type.Object({
  ...filtersAnswer.properties,
  shopping_results: Type.Array(shoppingProduct),
  serpapi_pagination: Type.Optional(Type.Object({ next: Type.Optional(Type.String()) })),
  pagination: Type.Optional(Type.Object({ next: Type.Optional(Type.String()) })),
});
export type ShoppingAnswer = Static<typeof shoppingAnswer>;

/**
 * SerpApi's `sort_by` for the price orders, the only orders its google_shopping engine has (1 low to
 * high, 2 high to low). Google's Shopping layout since 2025 has no review-score order, and SerpApi no
 * longer reads `tbs` (its old `p_ord:rv`): `rating_high_to_low` is not sent, and said so (notes).
 */
const SORT_BY: Partial<Record<NonNullable<ShoppingSearchQuery["sort"]>, string>> = {
  price_low_to_high: "1",
  price_high_to_low: "2",
};

/**
 * `GET /search.json?engine=google_shopping&q=&gl=&hl=&location=&min_price=&max_price=&sort_by=&start=`;
 * an applied filter's token sets its own `q` and `shoprs` (or, a filter of Google's older layout, `tbs`).
 * `condition` has no parameter (SerpApi's `tbs` `mr:1,new:…` is gone with the older layout): it is
 * checked on each product instead (`keepsCondition`).
 */
export function toRequest(query: ShoppingSearchQuery, start: number, filterToken?: string): JsonRequest<typeof shoppingAnswer> {
  return serpApiRequest(
    "google_shopping",
    {
      q: query.query,
      gl: query.country?.toLowerCase(),
      hl: query.language,
      location: query.location,
      min_price: query.price_min,
      max_price: query.price_max,
      sort_by: query.sort === undefined ? undefined : SORT_BY[query.sort],
      start: start > 0 ? start : undefined,
      ...(filterToken === undefined ? {} : tokenParams(filterToken)),
    },
    shoppingAnswer,
  );
}

/**
 * `condition` checked on a product as Google labels it: Google marks second-hand offers (`used`,
 * `refurbished`, `pre-owned`…) in `second_hand_condition`; a product without that mark is new.
 */
export function keepsCondition(record: RecordDraft, condition: ShoppingSearchQuery["condition"]): boolean {
  if (condition === undefined) return true;
  const secondHand = typeof record.summary.condition === "string";
  return condition === "used" ? secondHand : !secondHand;
}

/** One provider page: its products of the condition asked for, how many others were left out, its filters and layout, the next `start`. */
export function toProviderPage(
  answer: SerpAnswer,
  query: Pick<ShoppingSearchQuery, "condition"> = {},
): ProviderPage<RecordDraft> & { filters: Filter[]; left: number; layout: ShoppingLayout | undefined } {
  if (answer.noResults) return { items: [], next: null, filters: [], left: 0, layout: undefined };
  const all = objects(answer.root, "shopping_results")
    .map(toRecord)
    .filter((r): r is RecordDraft => r !== undefined);
  const items = all.filter((r) => keepsCondition(r, query.condition));
  return { items, next: nextStart(answer.root) ?? null, filters: filtersOf(answer.root), left: all.length - items.length, layout: layoutOf(answer.root) };
}

function toRecord(item: Obj): RecordDraft | undefined {
  const title = str(item.title);
  if (title === undefined) return undefined;
  const snippet = str(item.snippet) ?? strings(item.extensions)?.join("; ");
  const summary: RecordDraft["summary"] = {
    title,
    ...defined({
      url: httpUrl(item.product_link) ?? httpUrl(item.link),
      snippet: snippet === undefined ? undefined : clip(snippet, 300),
      price: num(item.extracted_price),
      price_display: str(item.price),
      seller: str(item.source),
      rating: num(item.rating),
      reviews: int(item.reviews),
      delivery: str(item.delivery) ?? str(item.shipping),
      condition: str(item.second_hand_condition),
    }),
    source: SOURCE,
  };
  const ref = defined({ page_token: str(item.immersive_product_page_token), product_id: str(item.product_id) });
  return { summary, ...(Object.keys(ref).length > 0 ? { ref } : {}) };
}
