/**
 * transit.routes (spec 4.6): public-transport routes from Google Maps through SerpApi's
 * `google_maps_directions` engine (`travel_mode=3`). All alternatives are fetched at once for 4 credits
 * and held in the session (local paging, `num` per page, `more` free); each route's itinerary is
 * stored as its detail (free).
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { notBlank } from "../framework/rules.ts";
import { serpApiSearchCost, serpApiSourceOf } from "../shared/serpapi.ts";
import { REALTIME_STATUSES, REQUESTED_TIME_STATUSES, SOURCE, toPage, toRequest } from "./google-directions.ts";
import { transitRoutesSchema } from "./schema.ts";

export { transitRoutesSchema, type TransitRoutesQuery } from "./schema.ts";

export const transitRoutes = defineCapability({
  id: "transit.routes",
  title: "Public transit routes",
  summary: "Public-transport routes between two places from Google Maps: lines, times, duration, distance, fare and steps.",
  description:
    `Plans public-transport trips with ${SOURCE}. \`origin\` and \`destination\` are place names or addresses ` +
    "(not blank) or {lat, lon}. `time` is {mode: depart_at or arrive_by, at: an RFC 3339 timestamp with an explicit " +
    "offset} or {mode: last_available}; omitted, the trip departs now. `preference` (best, fewer_transfers, " +
    "less_walking, wheelchair_accessible) and `prefer` (bus, subway, train, tram_and_light_rail) steer the routes. " +
    "Each alternative is a record with, when the source has them, `duration_seconds`, `distance_m`, " +
    "`duration_label`, `distance_label`, `time_window` {departs, arrives} (local clock labels as the source gives " +
    "them), `requested_time` and `lines`, and always `requested_time_status` (not_requested; sent: the source's " +
    "echo of the search names the requested time; unconfirmed: it does not, so the routes may be for another " +
    "time), `realtime_status` (not_indicated: the source does not say whether its times are live or scheduled), " +
    "`source` and `fetched_at`. All alternatives come from one search and are held in the session: " +
    "`more` pages through them; `details` is the stored itinerary (steps, stops, operators).",
  topic: "travel and places",
  schema: transitRoutesSchema,
  recordKeys: Type.Object({
    duration_seconds: Type.Optional(Type.Integer({ minimum: 0 })),
    distance_m: Type.Optional(Type.Integer({ minimum: 0 })),
    duration_label: Type.Optional(Type.String()),
    distance_label: Type.Optional(Type.String()),
    time_window: Type.Optional(
      Type.Object(
        { departs: Type.Optional(Type.String()), arrives: Type.Optional(Type.String()) },
        { description: "Departure and arrival as the source's local clock labels, e.g. \"9:05 AM\"." },
      ),
    ),
    requested_time: Type.Optional(Type.Object({}, { additionalProperties: true, description: "The `time` the search asked for." })),
    lines: Type.Optional(Type.Array(Type.String(), { description: "Transit lines ridden, in order." })),
    requested_time_status: Type.Unsafe<string>({ type: "string", enum: [...REQUESTED_TIME_STATUSES], description: "not_requested, sent or unconfirmed." }),
    source: Type.String(),
    fetched_at: Type.String({ description: "When the source answered (ISO 8601)." }),
    realtime_status: Type.Unsafe<string>({ type: "string", enum: [...REALTIME_STATUSES], description: "not_indicated: the source does not mark live times." }),
  }),
  paging: "local",
  deadlineMs: 40_000,
  cost: serpApiSearchCost(
    "4 credits ($0.004) per SerpApi search: every alternative comes from one search, also when none is found " +
      "(SerpApi bills empty searches); `more` pages through them for free; `update` searches again (4 credits); " +
      "`details` is stored and free.",
  ),
  rules: [notBlank("origin"), notBlank("destination")],
  sources: [
    {
      ...serpApiSourceOf("Google Maps Directions"),
      async search(ctx, query) {
        const response = await ctx.upstream.send(toRequest(query), ctx.signal);
        return toPage(response.body, query, ctx.now());
      },
    },
  ],
  update: { example: { title: "The same trip with fewer transfers", params: { preference: "fewer_transfers" } } },
  actions: {
    details: { description: "The stored itinerary: each step's mode, line, headsign, operator, stops with times and walking instructions. Free.", mode: "stored" },
  },
  examples: [
    { title: "Times Square to the Brooklyn Bridge, leaving now", body: { origin: "Times Square, New York", destination: "Brooklyn Bridge, New York", language: "en" } },
    {
      title: "Arrive by 9:45 local time by subway, one route per page",
      body: {
        origin: "Times Square, New York",
        destination: "Brooklyn Bridge, New York",
        time: { mode: "arrive_by", at: "2025-03-03T09:45:00-05:00" },
        prefer: ["subway"],
        language: "en",
        num: 1,
      },
    },
  ],
});
