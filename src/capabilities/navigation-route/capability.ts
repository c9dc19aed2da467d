/**
 * navigation.route (spec 4.6): a route between an origin and a destination, through up to 10
 * waypoints, each a place name (geocoded with Nominatim) or coordinates. openrouteservice answers
 * when `ORS_API_KEY` is set; the OSRM public demo server is the fallback (car profile only, said in
 * `notes[]`). Single result (one record, or one per alternative route); no update; `details` is the
 * stored turn-by-turn list, free. Free: both engines and the geocoder are free services.
 */
import { Type } from "@sinclair/typebox";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { locateOnce, type PlaceAt } from "../shared/nominatim.ts";
import { parseOrsDirections, toOrsDirectionsRequest } from "../shared/ors.ts";
import { parseOsrmRoute, toOsrmRouteRequest } from "../shared/osrm.ts";
import { demoEngineNotes, engineRecordKeys, NO_ALTERNATIVES_WITH_WAYPOINTS, ORS_ENGINE, OSRM_ENGINE } from "../shared/routing.ts";
import type { SourcePage } from "../types.ts";
import { routeRecords } from "./route-records.ts";
import { HOUR } from "../framework/durations.ts";
import { type NavigationRouteQuery, navigationRouteSchema } from "./schema.ts";

export { type NavigationRouteQuery, navigationRouteSchema } from "./schema.ts";

const DEADLINE_MS = 15_000;

/** The request's places in route order, with their pointers (a name that does not geocode is refused there). */
function placesOf(query: NavigationRouteQuery): PlaceAt[] {
  return [
    { pointer: "/origin", place: query.origin },
    ...(query.waypoints ?? []).map((place, i) => ({ pointer: `/waypoints/${i}`, place })),
    { pointer: "/destination", place: query.destination },
  ];
}

/** Alternatives are asked for only between two points; otherwise a note says they were not applied. */
function alternativesOf(query: NavigationRouteQuery): { ask: boolean; notes: string[] } {
  const waypoints = (query.waypoints ?? []).length > 0;
  return { ask: query.alternatives && !waypoints, notes: query.alternatives && waypoints ? [NO_ALTERNATIVES_WITH_WAYPOINTS] : [] };
}


export const navigationRoute = defineCapability({
  id: "navigation.route",
  title: "Route",
  summary: "A driving, walking or cycling route between places (names or coordinates), with distance, time and turn-by-turn steps.",
  description:
    "Routes from `origin` to `destination` through up to 10 `waypoints`, each a place name or address " +
    '(geocoded with OpenStreetMap Nominatim, first match) or coordinates {"lat", "lon"}. A name that does ' +
    "not geocode is refused (400) at its pointer (`/origin`, `/waypoints/2`); names are looked up one a " +
    "second (Nominatim's policy) and remembered for 24 hours, and a request with more new names than fit " +
    "in its 15 s deadline is refused at once. openrouteservice answers (driving, walking or cycling); when " +
    "it is not configured or fails, the OSRM public demo server answers with a car route, and `notes[]` " +
    "says so (car profile only, no service-level guarantee; another `mode` is not applied). Records carry " +
    "`distance_km`, `duration_min`, the number of `steps`, `via` (the main roads, when named) and always " +
    "`engine`, `attribution`, `license` and `license_url`. `alternatives: true` asks for up to 3 routes " +
    "(one record each) between two points. Single result: no `more`, no `update`. `details` is the stored " +
    "list of steps (instruction, distance_m, duration_s, road name), free.",
  topic: "travel and places",
  schema: navigationRouteSchema,
  sourceChecked: ["origin", "destination", "waypoints"],
  recordKeys: Type.Object({
    distance_km: Type.Number({ minimum: 0, description: "Route length in kilometres." }),
    duration_min: Type.Number({ minimum: 0, description: "Travel time in minutes, as the engine estimates it." }),
    steps: Type.Integer({ minimum: 0, description: "How many instructions the route has (see `details`)." }),
    ...engineRecordKeys,
    via: Type.Optional(Type.Array(Type.String(), { description: "The named roads the route is mostly on." })),
  }),
  paging: "single",
  deadlineMs: DEADLINE_MS,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: free("Free: openrouteservice, the OSRM demo server and Nominatim are free services; routes and details cost 0 credits."),
  sources: [
    {
      id: "ors",
      title: "openrouteservice",
      providers: ["nominatim", "ors"],
      async search(ctx, query): Promise<SourcePage> {
        const points = await locateOnce(ctx, placesOf(query), DEADLINE_MS);
        const alternatives = alternativesOf(query);
        const response = await ctx.upstream.send(toOrsDirectionsRequest(points, query.mode, alternatives.ask), ctx.signal);
        const routes = parseOrsDirections(response.body);
        return { records: routeRecords(routes, points, query.mode, ORS_ENGINE), next: null, notes: alternatives.notes };
      },
    },
    {
      id: "osrm",
      title: "OSRM public demo server",
      providers: ["nominatim", "osrm"],
      async search(ctx, query): Promise<SourcePage> {
        const points = await locateOnce(ctx, placesOf(query), DEADLINE_MS);
        const alternatives = alternativesOf(query);
        const response = await ctx.upstream.send(toOsrmRouteRequest(points, alternatives.ask), ctx.signal);
        return { records: routeRecords(parseOsrmRoute(response.body), points, "driving", OSRM_ENGINE), next: null, notes: alternatives.notes };
      },
      fallbackNotes: (query) => demoEngineNotes(query.mode),
    },
  ],
  actions: {
    details: {
      description: "The stored route: distance_km, duration_min, steps [{instruction, distance_m, duration_s, name?}], attribution and licence. Free.",
      mode: "stored",
    },
  },
  // The recorded openrouteservice route runs from Ulm to Stuttgart (fixtures/providers/ors).
  examples: [
    { title: "Driving from Ulm to Stuttgart (coordinates)", body: { origin: { lat: 48.3974003, lon: 9.9934336 }, destination: { lat: 48.7784485, lon: 9.1800132 } } },
  ],
});
