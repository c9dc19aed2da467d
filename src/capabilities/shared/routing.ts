/**
 * What the routing engines of navigation.route and navigation.matrix (openrouteservice, then the OSRM
 * public demo server) are mapped to, whichever answered: routes with their steps, matrices with
 * `null` for pairs the engine could not route, and the engine's credit line (`engine`,
 * `attribution`, `license`, `license_url`, always in records). Pure.
 */
import { Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { Located } from "./places.ts";
import { arr, numeric } from "./read.ts";

export const MODES = ["driving", "walking", "cycling"] as const;
export type Mode = (typeof MODES)[number];

/** One instruction of a route (spec 4.6 details `steps`). */
export interface RouteStep {
  instruction: string;
  distance_m: number;
  duration_s: number;
  name?: string;
}

/** One route as an engine answered it. */
export interface Route {
  distance_m: number;
  duration_s: number;
  steps: RouteStep[];
  /** Road names the leg summaries give (OSRM), used when there are no steps to weigh. */
  summaries?: string[];
}

/** A matrix as an engine answered it: seconds and kilometres, `null` where a pair has no route; undefined when the metric is absent. */
export interface Matrix {
  durations_s?: (number | null)[][];
  distances_km?: (number | null)[][];
}

/** The credit line every record carries. */
export interface Engine {
  engine: string;
  attribution: string;
  license: string;
  license_url: string;
}

/** The credit keys of navigation records, always present (spec 4.6). */
export const engineRecordKeys = {
  engine: Type.String({ description: "The routing engine that answered: `openrouteservice` or `osrm` (the fallback)." }),
  attribution: Type.String({
    description: "The credit line to show with the result: the routing engine's, OpenStreetMap's (the map data), and Nominatim's when a place name was geocoded.",
  }),
  license: Type.String({ description: "Licence of the map data the result is computed from (OpenStreetMap's ODbL, for routes and geocoded places alike)." }),
  license_url: Type.String({ description: "Where that licence is stated." }),
};

/**
 * Routes, matrices and geocoded places are all computed from OpenStreetMap data: ODbL 1.0, credited
 * "© OpenStreetMap contributors" with a link to https://www.openstreetmap.org/copyright (the
 * OpenStreetMap Foundation's attribution guidelines; Nominatim's answers carry the same `licence`).
 */
const OSM_LICENSE = { license: "ODbL-1.0 (OpenStreetMap data)", license_url: "https://www.openstreetmap.org/copyright" } as const;

/** openrouteservice's terms ask for its credit with OpenStreetMap's, as its own maps show it. */
export const ORS_ENGINE: Engine = {
  engine: "openrouteservice",
  attribution: "© openrouteservice.org by HeiGIT | Map data © OpenStreetMap contributors",
  ...OSM_LICENSE,
};

/** The OSRM demo server's usage policy: show the source of the routes (OSRM) and the data licence (ODbL). */
export const OSRM_ENGINE: Engine = {
  engine: "osrm",
  attribution: "Routing: OSRM (Project OSRM public demo server) | Map data © OpenStreetMap contributors",
  ...OSM_LICENSE,
};

/** What the credit line adds when a place name was geocoded with Nominatim (the same OpenStreetMap data and licence). */
export const NOMINATIM_CREDIT = "Geocoding: Nominatim (OpenStreetMap)";

/** The engine's credit line for a result, with Nominatim's when any of its places was a geocoded name. */
export function creditOf(engine: Engine, points: readonly Located[]): Engine {
  return points.some((p) => p.geocoded) ? { ...engine, attribution: `${engine.attribution} | ${NOMINATIM_CREDIT}` } : engine;
}

/** `notes[]` whenever the OSRM demo server answers (spec 4.6: car profile only, no service-level guarantee). */
export function demoEngineNotes(mode: Mode): string[] {
  const notes = [
    "Answered by the OSRM public demo server because openrouteservice was not available (not configured in " +
      "this deployment, or it failed): car profile only, no service-level guarantee.",
  ];
  if (mode !== "driving") {
    notes.push(`\`mode: ${mode}\` was not applied: the demo engine routes cars only, so these are driving distances and times.`);
  }
  return notes;
}

/** The note when `alternatives` cannot be asked for (both engines offer them between two points only). */
export const NO_ALTERNATIVES_WITH_WAYPOINTS =
  "`alternatives` was not applied: alternative routes are offered only between an origin and a destination without waypoints.";

/**
 * The road names a route is mostly on (like "via A 8"): the up to two named roads with the longest
 * total distance among its steps, in route order; the engine's leg summaries when there are no steps.
 */
export function viaOf(route: Route): string[] | undefined {
  const byName = new Map<string, { distance: number; first: number }>();
  route.steps.forEach((step, i) => {
    if (step.name === undefined) return;
    const seen = byName.get(step.name);
    if (seen) seen.distance += step.distance_m;
    else byName.set(step.name, { distance: step.distance_m, first: i });
  });
  if (byName.size > 0) {
    const top = [...byName.entries()].sort((a, b) => b[1].distance - a[1].distance).slice(0, 2);
    return top.sort((a, b) => a[1].first - b[1].first).map(([name]) => name);
  }
  const names = [...new Set((route.summaries ?? []).flatMap((s) => s.split(",")).map((s) => s.trim()).filter((s) => s !== ""))];
  return names.length > 0 ? names : undefined;
}

/** "1 h 16 min", "45 min", "under 1 min". */
export function durationText(minutes: number): string {
  const whole = Math.round(minutes);
  if (whole < 1) return "under 1 min";
  const h = Math.floor(whole / 60);
  const m = whole % 60;
  return h === 0 ? `${m} min` : m === 0 ? `${h} h` : `${h} h ${m} min`;
}

/** An `n`×`n` matrix of numbers or nulls (scaled by `factor`); provider_error for another shape. */
export function readMatrix(value: unknown, n: number, factor: number, engine: string, what: string): (number | null)[][] | undefined {
  if (value === undefined || value === null) return undefined;
  const rows = arr(value);
  if (rows === undefined || rows.length !== n) throw new ApiError("provider_error", `${engine} answered a ${what} matrix of the wrong size.`);
  return rows.map((row) => {
    const cells = arr(row);
    if (cells === undefined || cells.length !== n) throw new ApiError("provider_error", `${engine} answered a ${what} matrix of the wrong size.`);
    return cells.map((cell) => {
      const v = numeric(cell);
      return v === undefined ? null : v * factor;
    });
  });
}

/** A step's or route's distance or duration; an engine leaves zero values out (openrouteservice does). */
export function orZero(value: unknown): number {
  return numeric(value) ?? 0;
}
