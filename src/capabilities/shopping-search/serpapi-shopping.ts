/**
 * SerpApi `google_shopping` adapter for shopping.search: pure mappers from a validated query, a
 * provider page (`start`) and the applied filter's token to the upstream request, and from one
 * SerpApi answer to product records, the filters it offers and the next page's `start`. No I/O.
 */
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { ProviderPage } from "../shared/provider-pages.ts";
import { clip, defined, httpUrl, int, num, type Obj, str, strings } from "../shared/read.ts";
import { nextStart, objects, type SerpAnswer, serpApiRequest } from "../shared/serpapi.ts";
import type { Filter, RecordDraft } from "../types.ts";
import type { ShoppingSearchQuery } from "./capability.ts";
import { filtersOf, tokenParams } from "./shopping-filters.ts";

export const SOURCE = "Google Shopping via SerpApi";

/** SerpApi's `sort_by` for the price orders (its documented values). */
const SORT_BY: Partial<Record<NonNullable<ShoppingSearchQuery["sort"]>, string>> = {
  price_low_to_high: "1",
  price_high_to_low: "2",
};

/**
 * Google Shopping `tbs` values SerpApi documents for the rest: review-score order (`p_ord:rv`) and
 * item condition (`mr:1,new:1` new items, `mr:1,new:3` used items).
 */
function tbsOf(query: ShoppingSearchQuery): string | undefined {
  const parts = [
    query.condition === "new" ? "mr:1,new:1" : query.condition === "used" ? "mr:1,new:3" : undefined,
    query.sort === "rating_high_to_low" ? "p_ord:rv" : undefined,
  ].filter((p) => p !== undefined);
  return parts.length > 0 ? parts.join(",") : undefined;
}

/**
 * `GET /search.json?engine=google_shopping&q=&gl=&hl=&location=&min_price=&max_price=&sort_by=&tbs=&start=`;
 * an applied filter's token sets its own `q` and `shoprs` (or `tbs`).
 */
export function toRequest(query: ShoppingSearchQuery, start: number, filterToken?: string): UpstreamRequest {
  return serpApiRequest("google_shopping", {
    q: query.query,
    gl: query.country?.toLowerCase(),
    hl: query.language,
    location: query.location,
    min_price: query.price_min,
    max_price: query.price_max,
    sort_by: query.sort === undefined ? undefined : SORT_BY[query.sort],
    tbs: tbsOf(query),
    start: start > 0 ? start : undefined,
    ...(filterToken === undefined ? {} : tokenParams(filterToken)),
  });
}

/** One provider page: its products, the filters it offers, the `start` of the next page. */
export function toProviderPage(answer: SerpAnswer): ProviderPage<RecordDraft> & { filters: Filter[] } {
  if (answer.noResults) return { items: [], next: null, filters: [] };
  const items = objects(answer.root, "shopping_results")
    .map(toRecord)
    .filter((r): r is RecordDraft => r !== undefined);
  return { items, next: nextStart(answer.root) ?? null, filters: filtersOf(answer.root) };
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
