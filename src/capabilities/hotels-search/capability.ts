/**
 * hotels.search (spec 4.6): hotels and vacation rentals for a stay from Google Hotels through SerpApi's
 * `google_hotels` engine. Token paging (`next_page_token`), 4 credits a provider page (`more` and
 * `update` too), occupancy checked against what the source answered for, and `details` (description,
 * nearby places, booking links) fetched once per record for 4 credits, then cached.
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { excludes, range, sumAtMost, validDate, when } from "../framework/rules.ts";
import { SERPAPI_DETAIL_COST, serpApiSearchCost, serpApiSourceOf } from "../shared/serpapi.ts";
import { OCCUPANCY_STATUSES } from "./occupancy.ts";
import { detailRequest, toDetail } from "./property-details.ts";
import { SOURCE, toPage, toRequest } from "./google-hotels.ts";
import { HOUR } from "../framework/durations.ts";
import { type HotelsSearchQuery, hotelsSearchSchema } from "./schema.ts";

export { type HotelsSearchQuery, hotelsSearchSchema } from "./schema.ts";

export const hotelsSearch = defineCapability({
  id: "hotels.search",
  title: "Hotel and vacation rental search",
  summary: "Hotels and vacation rentals for a stay from Google Hotels: nightly and total price, rating, class, amenities, occupancy.",
  description:
    `Searches ${SOURCE} for a stay: \`destination\`, \`check_in\`, \`check_out\`, \`adults\` (default 2) and ` +
    "`children_ages` (one age per child). At most six guests for hotels and ten for vacation rentals; child ages " +
    "are not accepted with `property_type: vacation_rental`. Every record carries `requested_occupancy` (what you " +
    "asked for) and `occupancy_status`: `as_requested` (the source answered for that occupancy and nothing in the " +
    "record contradicts it), `partially_applied` (the source ignored part of it: it answered for other guests, or " +
    "the record's prices or capacity are for fewer guests; `occupancy_note` says what) or `unconfirmed` (the " +
    "answer does not say what occupancy it applied). Prices (`price_per_night`, `total_price`) are in `currency`. " +
    "`min_rating`, `max_price`, `amenities` and `property_type` are also checked on each record, so a page can be " +
    "empty while `has_more` stays true: send `more` for the next provider page. `details` fetches the property " +
    "(description, address, phone, nearby places, booking offers and links), cached after the first call.",
  topic: "travel and places",
  schema: hotelsSearchSchema,
  recordKeys: Type.Object({
    price_per_night: Type.Optional(Type.Number({ description: "Lowest price per night, taxes and fees included, in `currency`." })),
    total_price: Type.Optional(Type.Number({ description: "Lowest total for the stay, in `currency`." })),
    currency: Type.Optional(Type.String({ description: "ISO 4217 code of the prices." })),
    rating: Type.Optional(Type.Number({ description: "Guest rating, 0-5." })),
    reviews: Type.Optional(Type.Integer({ minimum: 0 })),
    hotel_class: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, description: "Star class." })),
    type: Type.Optional(Type.String({ description: "`hotel` or `vacation rental`, as the source says." })),
    amenities: Type.Optional(Type.Array(Type.String())),
    location: Type.Optional(Type.String({ description: "The property's address or area, as the source lists it." })),
    lat: Type.Optional(Type.Number()),
    lon: Type.Optional(Type.Number()),
    requested_occupancy: Type.Object(
      {
        adults: Type.Integer(),
        children: Type.Integer(),
        children_ages: Type.Optional(Type.Array(Type.Integer())),
      },
      { description: "The occupancy the search asked for." },
    ),
    occupancy_status: Type.Unsafe<string>({
      type: "string",
      enum: [...OCCUPANCY_STATUSES],
      description: "Whether the source applied the requested occupancy: as_requested, partially_applied or unconfirmed.",
    }),
    occupancy_note: Type.Optional(Type.String({ description: "What part of the requested occupancy the source ignored." })),
  }),
  paging: "token",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: serpApiSearchCost(
    "4 credits ($0.004) per SerpApi search: the first page, each `more` (the next provider page) and each " +
      "`update`, also when nothing is found (SerpApi bills empty searches). `details` is 4 credits the first " +
      "time per record (a property-details search), then cached and free.",
  ),
  rules: [
    validDate("check_in"),
    validDate("check_out"),
    range("check_in", "check_out", { at: "to" }),
    sumAtMost(["adults", { length: "children_ages" }], 6, {
      what: "the number of guests (adults plus children)",
      otherwise: { when: when("property_type", "vacation_rental"), max: 10 },
    }),
    excludes("children_ages", when("property_type", "vacation_rental")),
  ],
  sources: [
    httpSource({
      id: "serpapi",
      title: serpApiSourceOf("Google Hotels").title,
      provider: "serpapi",
      request: (query: HotelsSearchQuery, cursor) => toRequest(query, cursor),
      toPage: (body, query) => toPage(body, query),
    }),
  ],
  update: { example: { title: "The same stay, cheapest first", params: { sort: "lowest_price" } } },
  actions: {
    details: {
      description:
        "The property: description, address, phone, check-in/out times, nearby places with travel times, booking " +
        "offers with their links, and whether they fit the requested occupancy. 4 credits the first time, then cached.",
      mode: "fetched",
      cost: SERPAPI_DETAIL_COST,
      needs: {
        ref: Type.Object({ property_token: Type.String({ minLength: 1 }) }),
        refusal: "The record carries no property token, so its details cannot be fetched.",
        message: "This property has no details at the source.",
      },
      async run(ctx, record) {
        const response = await ctx.upstream.send(detailRequest(record.query, record.ref.property_token), ctx.signal);
        return toDetail(response.body, record.query);
      },
    },
  },
  examples: [
    { title: "Two adults in Lucknow for three nights", body: { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28" } },
    {
      title: "Two adults and a child, rated 4 or better, cheapest first",
      body: { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28", adults: 2, children_ages: [7], min_rating: 4, sort: "lowest_price" },
    },
  ],
});
