/**
 * navigation.matrix (spec 4.6): travel times and distances between every pair of 2-25 places (names
 * geocoded with Nominatim, or coordinates). openrouteservice answers when `ORS_API_KEY` is set; the
 * OSRM public demo server is the fallback (car profile only, said in `notes[]`). Single result, one
 * record; no record actions; no update; free.
 */
import { Type } from "@sinclair/typebox";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { locateOnce, type PlaceAt } from "../shared/nominatim.ts";
import { parseOrsMatrix, toOrsMatrixRequest } from "../shared/ors.ts";
import { parseOsrmTable, toOsrmTableRequest } from "../shared/osrm.ts";
import { demoEngineNotes, engineRecordKeys, ORS_ENGINE, OSRM_ENGINE } from "../shared/routing.ts";
import type { SourcePage } from "../types.ts";
import { matrixRecord } from "./matrix-record.ts";
import { HOUR } from "../framework/durations.ts";
import { type NavigationMatrixQuery, navigationMatrixSchema } from "./schema.ts";

export { type NavigationMatrixQuery, navigationMatrixSchema } from "./schema.ts";

const DEADLINE_MS = 15_000;

const placesOf = (query: NavigationMatrixQuery): PlaceAt[] => query.locations.map((place, i) => ({ pointer: `/locations/${i}`, place }));

const cells = (description: string) => Type.Array(Type.Array(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])), { description });

export const navigationMatrix = defineCapability({
  id: "navigation.matrix",
  title: "Travel matrix",
  summary: "Travel times and distances between every pair of 2-25 places (names or coordinates), by car, on foot or by bicycle.",
  description:
    "Computes a matrix of travel times (`durations_min`, minutes) and distances (`distances_km`) between " +
    'every pair of `locations` (2-25, each a place name or address geocoded with Nominatim, or {"lat", "lon"}): ' +
    "row i is from location i, column j to location j; a cell is null where the engine found no route. " +
    "A name that does not geocode is refused (400) at its pointer (`/locations/5`); names are looked up " +
    "one a second (Nominatim's policy) and remembered for 24 hours, and a request with more new names " +
    "than fit in its 15 s deadline is refused at once (give coordinates for some). openrouteservice " +
    "answers; when it is not configured or fails, the OSRM public demo server answers for cars and " +
    "`notes[]` says so (car profile only, no service-level guarantee). The one record also carries " +
    "`locations` (as given, or lat,lon) and always `engine`, `attribution`, `license` and `license_url`. " +
    "Single result; no record actions; no update.",
  topic: "travel and places",
  schema: navigationMatrixSchema,
  sourceChecked: ["locations"],
  recordKeys: Type.Object({
    locations: Type.Array(Type.String(), { description: "The places in matrix order: the caller's name, or lat,lon." }),
    durations_min: cells("Travel time in minutes from row to column; null where there is no route."),
    distances_km: cells("Distance in kilometres from row to column; null where there is no route."),
    ...engineRecordKeys,
  }),
  paging: "single",
  deadlineMs: DEADLINE_MS,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: free("Free: openrouteservice, the OSRM demo server and Nominatim are free services; a matrix costs 0 credits."),
  sources: [
    {
      id: "ors",
      title: "openrouteservice",
      providers: ["nominatim", "ors"],
      async search(ctx, query): Promise<SourcePage> {
        const points = await locateOnce(ctx, placesOf(query), DEADLINE_MS);
        const response = await ctx.upstream.send(toOrsMatrixRequest(points, query.mode), ctx.signal);
        const { record, notes } = matrixRecord(parseOrsMatrix(response.body, points.length), points, query.mode, ORS_ENGINE);
        return { records: [record], next: null, notes };
      },
    },
    {
      id: "osrm",
      title: "OSRM public demo server",
      providers: ["nominatim", "osrm"],
      async search(ctx, query): Promise<SourcePage> {
        const points = await locateOnce(ctx, placesOf(query), DEADLINE_MS);
        const response = await ctx.upstream.send(toOsrmTableRequest(points), ctx.signal);
        const { record, notes } = matrixRecord(parseOsrmTable(response.body, points.length), points, "driving", OSRM_ENGINE);
        return { records: [record], next: null, notes };
      },
      fallbackNotes: (query) => demoEngineNotes(query.mode),
    },
  ],
  actions: {},
  // The recorded openrouteservice matrix is between these two points (Paraná, Brazil); it holds distances only.
  examples: [
    {
      title: "Driving distances between two points in Paraná, Brazil (coordinates)",
      body: { locations: [{ lat: -25.459935, lon: -49.280018 }, { lat: -23.302276, lon: -50.31173 }] },
    },
  ],
});
