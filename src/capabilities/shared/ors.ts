/**
 * openrouteservice (api.openrouteservice.org, key `ORS_API_KEY` in the `Authorization` header, added
 * by the upstream client): `POST /v2/directions/{profile}/json` and `POST /v2/matrix/{profile}` with
 * `[lon, lat]` coordinates. Pure request builders and answer readers.
 *
 * ORS refuses a request it cannot route (a point far from any road, a route too long for the plan)
 * with HTTP 400/404 and `{"error": {"code", "message"}}`; that is read here and answered as
 * `502 provider_error` with ORS's words, so the fallback engine can still try. Zero values (a route
 * of length 0) are left out of ORS answers and read as 0.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { Coordinates } from "./places.ts";
import { arr, obj, str } from "./read.ts";
import { type Matrix, type Mode, orZero, type Route, type RouteStep, readMatrix } from "./routing.ts";

export const ORS_PROFILES: Record<Mode, string> = {
  driving: "driving-car",
  walking: "foot-walking",
  cycling: "cycling-regular",
};

const lonLat = (points: readonly Coordinates[]) => points.map((p) => [p.lon, p.lat]);

/** Directions: instructions on, geometry off (records do not carry it); up to 3 alternatives between two points. */
export function toOrsDirectionsRequest(points: readonly Coordinates[], mode: Mode, alternatives: boolean): UpstreamRequest {
  return {
    provider: "ors",
    method: "POST",
    path: `/v2/directions/${ORS_PROFILES[mode]}/json`,
    body: {
      coordinates: lonLat(points),
      instructions: true,
      geometry: false,
      units: "m",
      ...(alternatives ? { alternative_routes: { target_count: 3 } } : {}),
    },
    // Routing is a pure function of the body: safe to retry within the deadline.
    idempotent: true,
    acceptStatus: [400, 404],
  };
}

export function toOrsMatrixRequest(points: readonly Coordinates[], mode: Mode): UpstreamRequest {
  return {
    provider: "ors",
    method: "POST",
    path: `/v2/matrix/${ORS_PROFILES[mode]}`,
    body: { locations: lonLat(points), metrics: ["distance", "duration"], units: "km" },
    idempotent: true,
    acceptStatus: [400, 404],
  };
}

/** ORS's refusal (`{"error": …}` or a 4xx) as provider_error; the body's root object otherwise. */
function readOrs(status: number, body: unknown): Record<string, unknown> {
  const root = obj(body);
  const error = root?.error;
  if (status >= 400 || error !== undefined || root === undefined) {
    const message = str(error) ?? str(obj(error)?.message) ?? `HTTP ${status}`;
    throw new ApiError("provider_error", `openrouteservice could not answer: ${message}.`, {
      hint: "openrouteservice refused these places (a point far from any road, or a route it does not serve); check the places or try other ones.",
    });
  }
  return root;
}

function orsStep(value: unknown): RouteStep | undefined {
  const step = obj(value);
  if (step === undefined) return undefined;
  const name = str(step.name);
  return {
    instruction: str(step.instruction) ?? "Continue",
    distance_m: orZero(step.distance),
    duration_s: orZero(step.duration),
    // ORS writes "-" for an unnamed way.
    ...(name !== undefined && name !== "-" ? { name } : {}),
  };
}

/** The routes of a directions answer (`routes[]`: `summary`, `segments[].steps[]`). */
export function parseOrsDirections(status: number, body: unknown): Route[] {
  const routes = arr(readOrs(status, body).routes);
  if (routes === undefined || routes.length === 0) throw new ApiError("provider_error", "openrouteservice answered no route.");
  return routes.map((value) => {
    const route = obj(value) ?? {};
    const summary = obj(route.summary) ?? {};
    const steps = (arr(route.segments) ?? []).flatMap((segment) => (arr(obj(segment)?.steps) ?? []).map(orsStep).filter((s) => s !== undefined));
    return { distance_m: orZero(summary.distance), duration_s: orZero(summary.duration), steps };
  });
}

/** A matrix answer: `durations` in seconds, `distances` in km (asked with `units: km`). */
export function parseOrsMatrix(status: number, body: unknown, n: number): Matrix {
  const root = readOrs(status, body);
  const durations_s = readMatrix(root.durations, n, 1, "openrouteservice", "duration");
  const distances_km = readMatrix(root.distances, n, 1, "openrouteservice", "distance");
  return { ...(durations_s ? { durations_s } : {}), ...(distances_km ? { distances_km } : {}) };
}
