/**
 * shopping.search (spec 4.6): products from Google Shopping through SerpApi's `google_shopping`
 * engine. Page paging (`num` products a call cut from Google's pages of 40-60, shared/
 * provider-pages.ts), the `filters[]` envelope with `filter_id` in `update` (shopping-filters.ts),
 * 4 credits per SerpApi search read, details fetched from the product page (4 credits, then cached).
 */
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { defineCapability } from "../framework/define.ts";
import { country, language, num, oneOf, text } from "../framework/fields.ts";
import { excludes, range } from "../framework/rules.ts";
import { collectPages } from "../shared/provider-pages.ts";
import { SERPAPI_DETAIL_COST, serpApiSourceOf } from "../shared/serpapi.ts";
import { serpApiPagedCost, serpApiSearch } from "../shared/serpapi-paged.ts";
import type { Filter } from "../types.ts";
import { detailRequest, storedOffer, toDetail } from "./immersive-product.ts";
import { SOURCE, toProviderPage, toRequest } from "./serpapi-shopping.ts";
import { filterUpdateRules, mergeShoppingUpdate } from "./shopping-filters.ts";

const price = (description: string) => Type.Optional(Type.Number({ minimum: 0, maximum: 100_000_000, description }));

export const shoppingSearchSchema = Type.Object(
  {
    query: text(1, 500, 'What to buy, e.g. "espresso machine".'),
    country: country("Country of the store, ISO 3166-1 alpha-2 (e.g. us, de); sent as Google's `gl`."),
    language: language("Interface language code, e.g. en, de, pt-BR; sent as Google's `hl`."),
    location: Type.Optional(text(1, 200, 'Where the search comes from, e.g. "Austin, Texas, United States".')),
    filter_id: Type.Optional(
      Type.Unsafe<string | null>({
        type: ["string", "null"],
        minLength: 1,
        maxLength: 200,
        description:
          "Update only: the `id` of one of this search's `filters[]` to apply (one at a time; null clears it). Not with " +
          "`sort` or `condition`; a change of query, country, language or location clears it.",
      }),
    ),
    num: num(25, 10, "Products per call."),
    price_min: price("Lowest item price, excluding delivery, in the store's currency."),
    price_max: price("Highest item price, excluding delivery, in the store's currency."),
    condition: oneOf(["new", "used"], "Item condition."),
    sort: oneOf(["price_low_to_high", "price_high_to_low", "rating_high_to_low"], "Order of the products; Google's relevance when omitted."),
  },
  { additionalProperties: false },
);

export type ShoppingSearchQuery = Static<typeof shoppingSearchSchema>;

/** Google's pages hold 40-60 products, more than `num`: a call reads at most its page and the next. */
const MAX_REQUESTS = 2;

/** The applied filter's private token, from the search's filters (the unfiltered search's, kept by filtered answers). */
function filterToken(filters: readonly Filter[], id: string): string {
  const token = filters.find((f) => f.id === id)?.token;
  if (token === undefined) {
    throw invalidRequest([{ path: "/params/filter_id", message: "is not among this search's filters[] any more; send filter_id: null" }]);
  }
  return token;
}

export const shoppingSearch = defineCapability({
  id: "shopping.search",
  title: "Shopping search",
  summary: "Products on Google Shopping with price, seller, rating, delivery and condition; filters and merchant offers.",
  description:
    `Searches ${SOURCE}. Narrow by \`country\`, \`language\`, \`location\`, item price (\`price_min\` ≤ ` +
    "`price_max`, excluding delivery), `condition`, and order by price or rating. Records carry `source` " +
    "always and `price` (number), `price_display` (as shown), `seller`, `rating`, `reviews`, `delivery` " +
    "and `condition` when Google gives them. The answer's `filters[]` lists Google's refinements (brand, " +
    "price band, on sale…): apply one with `update` and `filter_id` (only there, only an id of this " +
    "search's filters, one at a time, `null` clears it, not with `sort` or `condition`; changing query, " +
    "country, language or location clears it, and sending it with such a change is refused). A call " +
    "returns `num` products from Google's pages of 40-60 and `more` continues after the last one. " +
    "`details` fetches the product's specifications and merchant offers (4 credits, then cached); a " +
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
        const token = typeof query.filter_id === "string" ? filterToken(ctx.filters, query.filter_id) : undefined;
        let offered: Filter[] | undefined;
        const got = await collectPages({
          cursor,
          want: query.num,
          maxRequests: MAX_REQUESTS,
          fetch: async (start) => {
            const page = toProviderPage(await serpApiSearch(ctx, toRequest(query, typeof start === "number" ? start : 0, token)));
            offered ??= page.filters;
            return page;
          },
        });
        // A filtered answer keeps publishing the filters of the search it was applied to.
        const filters = token === undefined ? offered : [...ctx.filters];
        return { records: got.items, next: got.next, ...(filters?.length ? { filters } : {}) };
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
      async run(ctx, record) {
        const token = record.ref?.page_token;
        if (typeof token !== "string" || token === "") return { ...storedOffer(record.summary), billed: false };
        const response = await ctx.upstream.send<unknown>(detailRequest(token), ctx.signal);
        return toDetail(response.status, response.body);
      },
    },
  },
  examples: [
    { title: "Soccer gear in the US store, searched from India (as recorded: \"soccerl\")", body: { query: "soccerl", country: "us", language: "en", location: "India" } },
    { title: "Coffee in the US store, five products a call", body: { query: "coffee", country: "us", language: "en", num: 5 } },
  ],
});
