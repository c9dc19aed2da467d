/**
 * shopping.search (spec 4.6): products from Google Shopping through SerpApi's `google_shopping`
 * engine. Page paging (`num` products a call cut from Google's pages of 40-60, shared/
 * framework/cursors.ts), the `filters[]` envelope with `filter_id` in `update` (shopping-filters.ts),
 * 4 credits per SerpApi search read, details fetched from the product page (4 credits, then cached).
 */
import { Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { defineCapability } from "../framework/define.ts";
import { excludes, range } from "../framework/rules.ts";
import { collectPages } from "../framework/cursors.ts";
import { SERPAPI_DETAIL_COST, serpApiSourceOf } from "../shared/serpapi.ts";
import { serpApiPagedCost, serpApiSearch } from "../shared/serpapi-paged.ts";
import type { Filter } from "../types.ts";
import { detailRequest, storedOffer, toDetail } from "./immersive-product.ts";
import { type ShoppingSearchQuery, shoppingSearchSchema } from "./schema.ts";
import { SOURCE, toProviderPage, toRequest } from "./serpapi-shopping.ts";
import { filterUpdateRules, isOlderLayoutToken, mergeShoppingUpdate, type ShoppingLayout } from "./shopping-filters.ts";
import { HOUR } from "../framework/durations.ts";

export { type ShoppingSearchQuery, shoppingSearchSchema } from "./schema.ts";

/** Google's pages hold 40-60 products, more than `num`: a call reads at most its page and the next. */
const MAX_REQUESTS = 2;

/** The applied filter, with its private token, from the search's filters (the unfiltered search's, kept by filtered answers). */
function appliedFilter(filters: readonly Filter[], id: string): Filter & { token: string } {
  const filter = filters.find((f) => f.id === id);
  if (filter?.token === undefined) {
    throw invalidRequest([{ path: "/params/filter_id", message: "is not among this search's filters[] any more; send filter_id: null" }]);
  }
  return { ...filter, token: filter.token };
}

/**
 * What the call could not apply as asked, in `notes[]`: Google Shopping's current layout has no
 * rating order and no condition parameter (SerpApi's google_shopping reads `sort_by` 1/2, prices and
 * `shoprs` filters, no `tbs`), and an older-layout filter answered in the current layout was ignored.
 */
function shoppingNotes(query: ShoppingSearchQuery, left: number, filter: Filter | undefined, layouts: ShoppingLayout[]): string[] {
  const notes: string[] = [];
  if (query.sort === "rating_high_to_low") {
    notes.push(
      "`sort: rating_high_to_low` was not applied: Google Shopping no longer offers a rating order (SerpApi's google_shopping sorts by price only), so the products are in Google's order.",
    );
  }
  if (query.condition !== undefined) {
    notes.push(
      `\`condition: ${query.condition}\` is checked on each product as Google marks it (Google Shopping takes no condition parameter now): ` +
        (query.condition === "used" ? "only products marked second-hand are kept" : "products marked second-hand are left out") +
        (left > 0 ? `; ${left} product${left === 1 ? " was" : "s were"} left out, so a page can be short or empty while has_more is true.` : "."),
    );
  }
  if (filter !== undefined && isOlderLayoutToken(filter.token ?? "") && layouts.includes("new")) {
    notes.push(
      `The filter "${filter.label}" was not applied: it comes from Google Shopping's older layout, which Google retired; send \`filter_id: null\` and apply one of the current filters.`,
    );
  }
  return notes;
}

export const shoppingSearch = defineCapability({
  id: "shopping.search",
  title: "Shopping search",
  summary: "Products on Google Shopping with price, seller, rating, delivery and condition; filters and merchant offers.",
  description:
    `Searches ${SOURCE}. Narrow by \`country\`, \`language\`, \`location\`, item price (\`price_min\` ≤ ` +
    "`price_max`, excluding delivery), `condition` (checked on each product as Google marks it, so a page can be " +
    "short while `has_more` is true), and order by price (Google Shopping has no rating order now: " +
    "`rating_high_to_low` keeps Google's order, said in `notes[]`). Records carry `source` " +
    "always and `price` (number), `price_display` (as shown), `seller`, `rating`, `reviews`, `delivery` " +
    "and `condition` when Google gives them. The answer's `filters[]` lists Google's refinements (brand, " +
    "price band, on sale…): apply one with `update` and `filter_id` (only there, only an id of this " +
    "search's filters, one at a time, `null` clears it, not with `sort` or `condition`; changing query, " +
    "country, language or location clears it, and sending it with such a change is refused). A call " +
    "returns `num` products from Google's pages of 40-60 and `more` continues after the last one. " +
    "`details` fetches the product's specifications and merchant offers (cached after the first call); a " +
    "result without a product page answers its own offer at no charge.",
  topic: "commerce",
  schema: shoppingSearchSchema,
  recordKeys: Type.Object({
    price: Type.Optional(Type.Number({ description: "Item price as a number, in the store's currency." })),
    price_display: Type.Optional(Type.String({ description: 'The price as shown, e.g. "$15.00".' })),
    seller: Type.Optional(Type.String({ description: "The merchant." })),
    rating: Type.Optional(Type.Number()),
    reviews: Type.Optional(Type.Integer({ minimum: 0 })),
    delivery: Type.Optional(Type.String({ description: 'As shown, e.g. "Free delivery by Thu".' })),
    condition: Type.Optional(Type.String({ description: 'Second-hand condition as shown, e.g. "refurbished".' })),
    source: Type.String({ description: "Where the product was found (Google Shopping via SerpApi)." }),
  }),
  paging: "page",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: serpApiPagedCost(
    () => MAX_REQUESTS,
    "4 credits ($0.004) per SerpApi search read: one Google Shopping page of 40-60 products, so most " +
      "calls read one and a call that reaches the end of a page reads the next too (8 credits). Billed as " +
      "SerpApi answers, also when it finds nothing; `more` and `update` are billed the same. `details`: " +
      "4 credits for the first fetch of a product page, then cached (0).",
  ),
  rules: [
    range("price_min", "price_max"),
    excludes("filter_id", "sort", "`filter_id` cannot be combined with `sort`: send `sort: null` to apply a filter, or `filter_id: null` to sort."),
    excludes(
      "filter_id",
      "condition",
      "`filter_id` cannot be combined with `condition`: send `condition: null` to apply a filter, or `filter_id: null`.",
    ),
  ],
  updateOnly: ["filter_id"],
  sources: [
    {
      ...serpApiSourceOf("Google Shopping"),
      async search(ctx, query, cursor) {
        const filter = typeof query.filter_id === "string" ? appliedFilter(ctx.filters, query.filter_id) : undefined;
        let offered: Filter[] | undefined;
        let left = 0;
        const layouts: ShoppingLayout[] = [];
        const got = await collectPages({
          cursor,
          want: query.num,
          maxRequests: MAX_REQUESTS,
          fetch: async (start) => {
            const page = toProviderPage(await serpApiSearch(ctx, toRequest(query, typeof start === "number" ? start : 0, filter?.token)), query);
            offered ??= page.filters;
            left += page.left;
            if (page.layout !== undefined) layouts.push(page.layout);
            return page;
          },
        });
        // A filtered answer keeps publishing the filters of the search it was applied to.
        const filters = filter === undefined ? offered : [...ctx.filters];
        const notes = shoppingNotes(query, left, filter, layouts);
        return { records: got.items, next: got.next, ...(filters?.length ? { filters } : {}), ...(notes.length > 0 ? { notes } : {}) };
      },
    },
  ],
  update: {
    rule:
      "Params are merged into the stored query (null removes a field). `filter_id` applies one of this search's " +
      "filters[] (null clears it); a change of query, country, language or location clears it, and sending " +
      "filter_id together with such a change is refused.",
    merge: (stored, params) => mergeShoppingUpdate(stored, params),
    rules: ({ query, sent, session }) => filterUpdateRules({ query, sent, session }),
    example: { title: "Apply the search's price filter \"Up to $15\"", params: { filter_id: "price:up-to-15" } },
  },
  actions: {
    details: {
      description:
        "Specifications and merchant offers from the product's Google page (4 credits on the first call, then cached). " +
        "A result without a product page answers its own offer, free.",
      mode: "fetched",
      cost: SERPAPI_DETAIL_COST,
      // A product without a page token (or without any ref) is answered from the stored offer, free.
      needs: {
        ref: Type.Union([Type.Null(), Type.Object({ page_token: Type.Optional(Type.String()) })]),
        refusal: "The record's stored product page token is not readable.",
      },
      async run(ctx, record) {
        const token = record.ref?.page_token;
        if (token === undefined || token === "") return { ...storedOffer(record.summary), billed: false };
        const response = await ctx.upstream.send(detailRequest(token), ctx.signal);
        return toDetail(response.body);
      },
    },
  },
  examples: [
    { title: "Soccer gear in the US store, searched from India (as recorded: \"soccerl\")", body: { query: "soccerl", country: "us", language: "en", location: "India" } },
    { title: "Coffee in the US store, five products a call", body: { query: "coffee", country: "us", language: "en", num: 5 } },
  ],
});
