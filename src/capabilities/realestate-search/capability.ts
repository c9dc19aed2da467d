/**
 * realestate.search (spec 4.6): US listings for sale, for rent or recently sold from a Zillow
 * listing API (zillow-com1 on RapidAPI; docs/providers.md says why). Page paging: `num` listings
 * a call cut from the API's pages (framework/cursors.ts), 4 credits per listing page read;
 * details fetched from `GET /property` (4 credits, then cached).
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { range } from "../framework/rules.ts";
import { collectPages } from "../framework/cursors.ts";
import { realestateSearchSchema } from "./schema.ts";
import { propertyRequest, toPropertyDetail } from "./zillow-property.ts";
import { SOURCE, toProviderPage, toRequest } from "./zillow-search.ts";
import { HOUR } from "../framework/durations.ts";

export { HOME_TYPES, type RealestateSearchQuery, realestateSearchSchema, SORTS } from "./schema.ts";

export const PRICE_KINDS = ["listing_price", "monthly_rent", "reported_sold_price", "unknown"] as const;

/** What the API charges for a listing page or a fresh property detail: $0.004. */
export const REALESTATE_USD = 0.004;

/** The API's pages hold more listings than `num`: a call reads at most its page and the next. */
const MAX_REQUESTS = 2;

export const realestateSearch = defineCapability({
  id: "realestate.search",
  title: "Real estate search",
  summary: "US homes for sale, for rent or recently sold, from Zillow listings: price, size, type, location.",
  description:
    `Searches US listings from ${SOURCE} by city, ZIP code or neighborhood, with status, home types, ` +
    "price range (USD; monthly rent for rentals; `min_price` ≤ `max_price`), minimum beds and baths, and " +
    "order. Records always carry `price_kind` (`listing_price`, `monthly_rent`, `reported_sold_price` or " +
    "`unknown`), `source` and `fetched_at`, and the address parts, type, status, size, lot, listing age, " +
    "price, currency and coordinates when the listing has them (`lot_sqft` is always square feet; " +
    "`lot_area_unit` is the unit the source reported the lot in, e.g. acres). A call returns `num` listings cut from " +
    "the API's pages (at most 20 of them); listings of home types not asked for are left out, so a page can " +
    "be short or empty while `has_more` is true. `details` fetches the property's facts, its reported sale " +
    "history and the listing link (cached after the first call); a last sale the API does not report stays " +
    "unknown. Commute times need a separate route request.",
  topic: "commerce",
  schema: realestateSearchSchema,
  recordKeys: Type.Object({
    street: Type.Optional(Type.String()),
    city: Type.Optional(Type.String()),
    state: Type.Optional(Type.String()),
    zipcode: Type.Optional(Type.String()),
    country: Type.Optional(Type.String()),
    home_type: Type.Optional(Type.String({ description: "house, condo, townhouse, multi_family, apartment, land, manufactured, or the source's own name." })),
    home_status: Type.Optional(Type.String({ description: "The listing status as the source reports it, e.g. FOR_SALE." })),
    status_text: Type.Optional(Type.String()),
    beds: Type.Optional(Type.Number()),
    baths: Type.Optional(Type.Number()),
    sqft: Type.Optional(Type.Number({ description: "Living area in square feet." })),
    lot_sqft: Type.Optional(Type.Number({ description: "Lot area in square feet (converted from acres when the source gives acres)." })),
    lot_area_unit: Type.Optional(Type.String({ description: "The unit the source reported the lot in (sqft or acres)." })),
    days_on_zillow: Type.Optional(Type.Integer({ minimum: 0, description: "Days the listing has been on the market." })),
    date_price_changed: Type.Optional(Type.String({ description: "Day of the last price change (YYYY-MM-DD)." })),
    broker: Type.Optional(Type.String()),
    currency: Type.Optional(Type.String()),
    is_showcase: Type.Optional(Type.Boolean()),
    price: Type.Optional(Type.Number({ description: "The price `price_kind` names, in `currency`." })),
    price_label: Type.Optional(Type.String({ description: "The price as the source words it, when it gives no number." })),
    latitude: Type.Optional(Type.Number()),
    longitude: Type.Optional(Type.Number()),
    price_kind: Type.Unsafe<string>({ type: "string", enum: [...PRICE_KINDS], description: "What `price` is." }),
    source: Type.String(),
    fetched_at: Type.String({ description: "When the listing was read (ISO 8601)." }),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: {
    maxMetered: () => MAX_REQUESTS * REALESTATE_USD,
    typicalCredits: 4,
    basis:
      "4 credits ($0.004) per listing page read from the API; a call reaching the end of a page reads the next " +
      "too (8 credits); `more` and `update` are billed the same. `details`: 4 credits for a fresh property " +
      "detail, then cached (0).",
  },
  rules: [range("min_price", "max_price")],
  sources: [
    {
      id: "zillow",
      title: "Zillow listing API (zillow-com1, RapidAPI)",
      providers: ["realestate"],
      async search(ctx, query, cursor) {
        let left = 0;
        const got = await collectPages({
          cursor: cursor ?? { page: 1, skip: 0 },
          want: query.num,
          maxRequests: MAX_REQUESTS,
          fetch: async (page) => {
            const n = typeof page === "number" ? page : 1;
            const response = await ctx.upstream.send(toRequest(query, n), ctx.signal);
            const read = toProviderPage(response.body, n, query, ctx.now());
            // An answer from Quarry's cache of an identical request costs nothing.
            if (response.cached === undefined) ctx.meter.charge(REALESTATE_USD);
            left += read.left;
            return read;
          },
        });
        const notes =
          left > 0 ? [`${left} listing${left === 1 ? "" : "s"} of other home types left out; a page can be short or empty while has_more is true.`] : [];
        return { records: got.items, next: got.next, ...(notes.length > 0 ? { notes } : {}) };
      },
    },
  ],
  update: { example: { title: "The same homes, cheapest first", params: { sort: "price_asc" } } },
  actions: {
    details: {
      description: "Property facts, reported sale history and the listing link (4 credits on the first call, then cached).",
      mode: "fetched",
      cost: { perCall: REALESTATE_USD },
      needs: {
        ref: Type.Object({ zpid: Type.String({ pattern: "^[0-9]+$" }) }),
        refusal: "The record carries no Zillow property id (zpid).",
        message: "This listing cannot be looked up.",
      },
      async run(ctx, record) {
        const zpid = record.ref.zpid;
        const response = await ctx.upstream.send(propertyRequest(zpid), ctx.signal);
        return toPropertyDetail(response.body, zpid);
      },
    },
  },
  examples: [
    { title: "Homes for sale in Santa Monica, CA", body: { query: "Santa Monica, CA" } },
    { title: "Rentals in Austin, TX (monthly rents)", body: { query: "Austin, TX", listing_status: "for_rent" } },
    { title: "Recently sold homes in Austin, TX", body: { query: "Austin, TX", listing_status: "sold" } },
  ],
});
