/**
 * SerpApi `google_maps_directions` adapter for transit.routes: pure mappers from the validated query to
 * the transit directions request (`travel_mode=3`) and from SerpApi's `directions[]` to one record per
 * alternative route, each with its itinerary stored as the record's detail. No I/O; the client adds
 * `api_key`.
 *
 * Times: the request's RFC 3339 timestamp is sent as SerpApi's `time` (`depart_at:<unix seconds>`,
 * `arrive_by:<unix seconds>`, or `last_available`). The answer gives local clock labels only
 * ("9:05 AM"), so records keep them as labels (`time_window`), never as invented timestamps.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import { arr, defined, int, num, type Obj, obj, str } from "../shared/read.ts";
import { echoedParameters, fetchedAt, objects, readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";
import type { TransitRoutesQuery } from "./schema.ts";

export const SOURCE = "Google Maps via SerpApi";

/** SerpApi's `route` (transit only): 2 fewer transfers, 3 less walking, 4 wheelchair accessible; best sends none. */
const ROUTE: Record<string, number | undefined> = { best: undefined, fewer_transfers: 2, less_walking: 3, wheelchair_accessible: 4 };
const PREFER: Record<string, string> = { bus: "bus", subway: "subway", train: "train", tram_and_light_rail: "tram_light_rail" };
const MAX_STOPS = 60;
const MAX_INSTRUCTIONS = 30;

/** What `requested_time_status` says (see REQUESTED_TIME_TEXT). */
export const REQUESTED_TIME_STATUSES = ["not_requested", "sent", "unconfirmed"] as const;
/** What `realtime_status` says: SerpApi's answer carries no marker of live times, so it is always `not_indicated`. */
export const REALTIME_STATUSES = ["not_indicated"] as const;

const stop = Type.Object({ name: Type.Optional(Type.String()), time: Type.Optional(Type.String()) });

/** One step of a route (walk, a transit ride…), as the itinerary detail reads it. */
const trip = Type.Object({
  travel_mode: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  headsign: Type.Optional(Type.String()),
  service_run_by: Type.Optional(Type.Object({ name: Type.Optional(Type.String()), link: Type.Optional(Type.String()) })),
  start_stop: Type.Optional(stop),
  end_stop: Type.Optional(stop),
  stops: Type.Optional(Type.Array(stop)),
  duration: Type.Optional(Type.Number()),
  distance: Type.Optional(Type.Number()),
  formatted_duration: Type.Optional(Type.String()),
  formatted_distance: Type.Optional(Type.String()),
  details: Type.Optional(Type.Array(Type.Object({ title: Type.Optional(Type.String()) }))),
});

/** One alternative route of `directions[]`. */
const route = Type.Object({
  trips: Type.Optional(Type.Array(trip)),
  start_time: Type.Optional(Type.String()),
  end_time: Type.Optional(Type.String()),
  via: Type.Optional(Type.String()),
  duration: Type.Optional(Type.Number()),
  distance: Type.Optional(Type.Number()),
  formatted_duration: Type.Optional(Type.String()),
  formatted_distance: Type.Optional(Type.String()),
  cost: Type.Optional(Type.Number()),
  currency: Type.Optional(Type.String()),
});

/**
 * A google_maps_directions answer: `directions[]` required (Google finding no route is SerpApi's
 * "no results" answer), the echo of the requested `time`, when and where (the directions URL).
 */
export const directionsAnswer = Type.Object({
  search_metadata: Type.Optional(
    Type.Object({ created_at: Type.Optional(Type.String()), google_maps_directions_url: Type.Optional(Type.String()) }),
  ),
  search_parameters: Type.Optional(Type.Object({ time: Type.Optional(Type.String()) })),
  directions: Type.Array(route),
});
export type DirectionsAnswer = Static<typeof directionsAnswer>;

type Point = TransitRoutesQuery["origin"];

function endpoint(prefix: "start" | "end", point: Point): Record<string, string> {
  return typeof point === "string" ? { [`${prefix}_addr`]: point } : { [`${prefix}_coords`]: `${point.lat},${point.lon}` };
}

/** SerpApi's `time`: the mode and the instant as Unix seconds. */
export function timeParam(time: TransitRoutesQuery["time"]): string | undefined {
  if (time === undefined) return undefined;
  if (time.mode === "last_available") return "last_available";
  return `${time.mode}:${Math.floor(Date.parse(time.at) / 1000)}`;
}

export function toRequest(query: TransitRoutesQuery): JsonRequest<typeof directionsAnswer> {
  return serpApiRequest(
    "google_maps_directions",
    {
      ...endpoint("start", query.origin),
      ...endpoint("end", query.destination),
      travel_mode: 3,
      time: timeParam(query.time),
      route: ROUTE[query.preference],
      prefer: query.prefer === undefined ? undefined : query.prefer.map((p) => PREFER[p]).join(","),
      hl: query.language,
      gl: query.country?.toLowerCase(),
    },
    directionsAnswer,
  );
}

/** Whether the source shows it got the requested time: its echo names it, or (no echo) it cannot say. */
export function requestedTimeStatus(query: TransitRoutesQuery, echo: Obj | undefined): (typeof REQUESTED_TIME_STATUSES)[number] {
  if (query.time === undefined) return "not_requested";
  const sent = timeParam(query.time);
  return echo !== undefined && str(echo.time) === sent ? "sent" : "unconfirmed";
}

export function toPage(body: DirectionsAnswer, query: TransitRoutesQuery, now: Date): SourcePage {
  const { root, noResults } = readSerpApi(body);
  const routes = noResults ? [] : objects(root, "directions");
  const timeStatus = requestedTimeStatus(query, echoedParameters(root));
  const fetched = fetchedAt(root, now);
  const url = str(obj(root.search_metadata)?.google_maps_directions_url);
  const records = routes.map((r) => toRecord(r, query, timeStatus, fetched, url));
  const notes: string[] = [];
  if (records.length === 0) notes.push("Google Maps found no transit route between these places for this time.");
  if (timeStatus === "unconfirmed") {
    notes.push("The source's answer does not show the requested time, so these routes may be for another time (requested_time_status: unconfirmed).");
  }
  return { records, next: null, notes };
}

function toRecord(route: Obj, query: TransitRoutesQuery, timeStatus: string, fetched: string, url: string | undefined): RecordDraft {
  const trips = objects(route, "trips");
  const lines = trips.filter((t) => str(t.travel_mode)?.toLowerCase() === "transit").map((t) => str(t.title)).filter((t): t is string => t !== undefined);
  const departs = str(route.start_time);
  const arrives = str(route.end_time);
  const window = defined({ departs, arrives });
  const via = str(route.via);
  const durationLabel = str(route.formatted_duration);
  const distanceLabel = str(route.formatted_distance);
  const transfers = Math.max(0, lines.length - 1);
  const cost = num(route.cost);
  const currency = str(route.currency);
  const title = `${via ?? (lines.length > 0 ? lines.join(" → ") : "Transit route")}${departs !== undefined && arrives !== undefined ? `, ${departs}–${arrives}` : ""}`;
  const snippet = [
    durationLabel,
    distanceLabel,
    lines.length > 0 ? `${lines.join(" → ")} (${transfers === 0 ? "no transfer" : `${transfers} transfer${transfers === 1 ? "" : "s"}`})` : undefined,
    cost !== undefined ? `fare ${cost}${currency === undefined ? "" : ` ${currency}`}` : undefined,
  ]
    .filter((s): s is string => s !== undefined)
    .join(" · ");
  const requestedTime = query.time === undefined ? undefined : (query.time as JsonObject);
  const summary = {
    title,
    ...defined({
      url,
      snippet: snippet === "" ? undefined : snippet,
      duration_seconds: int(route.duration),
      distance_m: int(route.distance),
      duration_label: durationLabel,
      distance_label: distanceLabel,
      time_window: Object.keys(window).length > 0 ? window : undefined,
      requested_time: requestedTime,
      lines: lines.length > 0 ? lines : undefined,
    }),
    requested_time_status: timeStatus,
    source: SOURCE,
    fetched_at: fetched,
    realtime_status: "not_indicated",
  };
  const links: Link[] = [];
  if (url !== undefined) links.push({ label: "Google Maps directions", url });
  for (const t of trips) {
    const operator = obj(t.service_run_by);
    const link = str(operator?.link);
    if (link !== undefined && /^https?:\/\//i.test(link) && !links.some((l) => l.url === link)) {
      links.push({ label: str(operator?.name) ?? "Operator", url: link });
    }
  }
  const detail: JsonObject = defined({
    ...summary,
    title: undefined,
    snippet: undefined,
    url: undefined,
    via,
    fare: cost === undefined ? undefined : defined({ amount: cost, currency }),
    transfers: lines.length > 0 ? transfers : undefined,
    steps: trips.map(stepOf),
  });
  return { summary, detail, links };
}

function stepOf(trip: Obj): JsonObject {
  const mode = str(trip.travel_mode);
  const operator = obj(trip.service_run_by);
  const stops = objects(trip, "stops")
    .slice(0, MAX_STOPS)
    .map((s) => defined({ name: str(s.name), time: str(s.time) }));
  const instructions = (arr(trip.details) ?? [])
    .map((d) => str(obj(d)?.title))
    .filter((s): s is string => s !== undefined)
    .slice(0, MAX_INSTRUCTIONS);
  const transit = mode?.toLowerCase() === "transit";
  return defined({
    mode,
    title: str(trip.title),
    line: transit ? str(trip.title) : undefined,
    headsign: str(trip.headsign),
    operator: operator === undefined ? undefined : defined({ name: str(operator.name), link: str(operator.link) }),
    from: stopOf(obj(trip.start_stop)),
    to: stopOf(obj(trip.end_stop)),
    stops: stops.length > 0 ? stops : undefined,
    duration_seconds: int(trip.duration),
    distance_m: int(trip.distance),
    duration_label: str(trip.formatted_duration),
    distance_label: str(trip.formatted_distance),
    instructions: instructions.length > 0 ? instructions : undefined,
  });
}

function stopOf(stop: Obj | undefined): JsonObject | undefined {
  if (stop === undefined) return undefined;
  const out = defined({ name: str(stop.name), time: str(stop.time) });
  return Object.keys(out).length > 0 ? out : undefined;
}
