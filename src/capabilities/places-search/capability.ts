/**
 * places.search (spec 4.6): places (businesses, landmarks) from Google Maps through SerpApi's
 * `google_maps` engine. Page paging over provider pages of up to 20 places, `num` at a time, stopped
 * after 20 provider pages; 4 credits per provider page fetched; `details` (contacts, hours, location,
 * amenities) fetched once for 4 credits, then cached.
 */
import { Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { defineCapability } from "../framework/define.ts";
import { requires } from "../framework/rules.ts";
import { SERPAPI_DETAIL_COST, SERPAPI_SEARCH_USD, serpApiSourceOf } from "../shared/serpapi.ts";
import { cursorOf, MAX_PROVIDER_PAGES, pendingSlice, SOURCE, toPage, toRequest } from "./google-maps.ts";
import { detailRequest, placeRef, toDetail } from "./place-details.ts";
import { placesSearchSchema } from "./schema.ts";
import { HOUR } from "../framework/durations.ts";

export { placesSearchSchema, type PlacesSearchQuery } from "./schema.ts";

const NO_PLACE_ID = "The record carries no place id, so its details cannot be fetched.";
const NO_DETAILS = "This place has no details at the source.";

export const placesSearch = defineCapability({
  id: "places.search",
  title: "Places search",
  summary: "Businesses and places from Google Maps with address, phone, hours, open state, rating and distance.",
  description:
    `Searches ${SOURCE} for \`query\`, around \`location\` when given. Records carry \`source\` and \`fetched_at\` ` +
    "always and, when the source has them, `address`, `phone`, `type`, `types`, `open_state`, `hours`, " +
    "`website`, `rating`, `reviews`, `price_level_label`, `coordinates`, `open_now` (from an explicit open " +
    "state only) and `distance_m` (metres from `location`, only with a location). `radius_m` requires " +
    "`location` and keeps places within it (those without coordinates are left out); `min_rating` and " +
    "`open_now` are checked on each place too, so a page can be empty while `has_more` stays true. Pages of " +
    `\`num\`: each provider page (up to 20 places) is fetched once and served over as many \`more\` ` +
    `as it takes; paging stops after ${MAX_PROVIDER_PAGES} provider pages. \`details\` fetches contacts, ` +
    "hours, location and amenities (cached after the first call).",
  topic: "travel and places",
  schema: placesSearchSchema,
  recordKeys: Type.Object({
    address: Type.Optional(Type.String()),
    phone: Type.Optional(Type.String()),
    type: Type.Optional(Type.String()),
    types: Type.Optional(Type.Array(Type.String())),
    open_state: Type.Optional(Type.String({ description: "The source's open-state label, e.g. \"Open ⋅ Closes 12 AM\"." })),
    hours: Type.Optional(Type.String({ description: "The source's hours label." })),
    website: Type.Optional(Type.String()),
    rating: Type.Optional(Type.Number()),
    reviews: Type.Optional(Type.Integer({ minimum: 0 })),
    price_level_label: Type.Optional(Type.String({ description: "Price level as the source labels it, e.g. \"$$\"." })),
    coordinates: Type.Optional(Type.Object({ lat: Type.Number(), lon: Type.Number() })),
    distance_m: Type.Optional(Type.Integer({ minimum: 0, description: "Metres from `location` (only when the search has one)." })),
    open_now: Type.Optional(Type.Boolean({ description: "From an explicit open state only; absent when the state is unknown." })),
    source: Type.String(),
    fetched_at: Type.String({ description: "When the source answered (ISO 8601)." }),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: {
    maxMetered: () => SERPAPI_SEARCH_USD,
    typicalCredits: 4,
    basis:
      "4 credits ($0.004) per SerpApi search, that is per provider page fetched (up to 20 places), also when " +
      "nothing is found; a `more` served from places of a page already fetched is free. `update` fetches the first " +
      "page again (4 credits). `details` is 4 credits the first time per record, then cached and free.",
  },
  rules: [requires("radius_m", "location", "`radius_m` requires `location`.")],
  sources: [
    {
      ...serpApiSourceOf("Google Maps"),
      async search(ctx, query, cursor) {
        const c = cursorOf(cursor);
        const served = pendingSlice(c, query.num);
        if (served !== null) return served;
        if (c.start === null) return { records: [], next: null };
        const response = await ctx.upstream.send(toRequest(query, c.start, c.ll), ctx.signal);
        const page = toPage(response.body, query, c, ctx.now());
        // Billed once SerpApi answered; an answer from Quarry's cache of an identical search costs nothing.
        if (response.cached === undefined) ctx.meter.charge(SERPAPI_SEARCH_USD);
        return page;
      },
    },
  ],
  update: { example: { title: "The same search, rated 4.5 or better", params: { min_rating: 4.5 } } },
  actions: {
    details: {
      description: "Contacts, opening hours, location (address, plus code, coordinates), amenities and features of the place. 4 credits the first time, then cached.",
      mode: "fetched",
      cost: SERPAPI_DETAIL_COST,
      needs: { ref: placeRef, refusal: NO_PLACE_ID, message: NO_DETAILS },
      appliesTo: (record) => detailRequest(record.query, record.ref) !== undefined,
      async run(ctx, record) {
        const request = detailRequest(record.query, record.ref);
        if (request === undefined) {
          throw invalidRequest(
            [{ path: "/record_id", message: NO_PLACE_ID }],
            NO_DETAILS,
          );
        }
        const response = await ctx.upstream.send(request, ctx.signal);
        return toDetail(response.body, ctx.now());
      },
    },
  },
  examples: [
    { title: "Coffee near Chelsea, New York", body: { query: "Coffee", location: { lat: 40.7455096, lon: -74.0083012 }, language: "en" } },
    {
      title: "Coffee within 2 km, open now, five at a time",
      body: { query: "Coffee", location: { lat: 40.7455096, lon: -74.0083012 }, radius_m: 2000, open_now: true, language: "en", num: 5 },
    },
  ],
});
