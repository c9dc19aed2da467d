/**
 * openrouteservice (api.openrouteservice.org, key `ORS_API_KEY` in the `Authorization` header, added
 * by the upstream client): `POST /v2/directions/{profile}/json` and `POST /v2/matrix/{profile}` with
 * `[lon, lat]` coordinates. Pure request builders, declared answers and answer readers.
 *
 * ORS refuses a request it cannot route (a point far from any road, a route too long for the plan)
 * with HTTP 400/404 and `{"error": {"code", "message"}}`, and its gateway a key or quota with
 * `{"error": "…"}`: `orsRefusal` reads both and answers `502 provider_error` with ORS's words, so
 * the fallback engine can still try. Zero values (a route of length 0) are left out of ORS answers
 * and read as 0.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullable } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Coordinates } from "./places.ts";
import { obj, str } from "./read.ts";
import { type Matrix, type Mode, orZero, type Route, type RouteStep, readMatrix } from "./routing.ts";

export const ORS_PROFILES: Record<Mode, string> = {
  driving: "driving-car",
  walking: "foot-walking",
  cycling: "cycling-regular",
};

/** One instruction: ORS leaves zero distances and durations out, and writes "-" for an unnamed way. */
const orsStep = Type.Object({
  instruction: Type.String(),
  name: Type.Optional(Type.String()),
  distance: Type.Optional(Type.Number()),
  duration: Type.Optional(Type.Number()),
});

/** A directions answer (`format: json`, asked with instructions): routes with their summary and segments' steps. */
export const orsDirections = Type.Object({
  routes: Type.Array(
    Type.Object({
      summary: Type.Object({ distance: Type.Optional(Type.Number()), duration: Type.Optional(Type.Number()) }),
      segments: Type.Array(Type.Object({ steps: Type.Array(orsStep) })),
    }),
  ),
});
export type OrsDirections = Static<typeof orsDirections>;

const cells = Type.Array(Type.Array(nullable(Type.Number())));

/**
 * A matrix answer: `distances` (km, asked with `units: km`) and `durations` (seconds). Both are asked
 * for; ORS answers only the metrics asked (the recording asked for distances alone), so `durations`
 * may be absent and is then reported unknown.
 */
export const orsMatrix = Type.Object({
  distances: cells,
  durations: Type.Optional(cells),
});
export type OrsMatrix = Static<typeof orsMatrix>;

/** ORS's own refusal (`{"error": {code, message}}`, or the gateway's `{"error": "…"}`), at any status: provider_error in its words. */
export function orsRefusal(body: unknown, status: number): ApiError | undefined {
  const error = obj(body)?.error;
  if (error === undefined) return undefined;
  const message = str(error) ?? str(obj(error)?.message) ?? `HTTP ${status}`;
  return new ApiError("provider_error", `openrouteservice could not answer: ${message}.`, {
    hint: "openrouteservice refused these places (a point far from any road, or a route it does not serve); check the places or try other ones.",
  });
}

const lonLat = (points: readonly Coordinates[]) => points.map((p) => [p.lon, p.lat]);

/** Directions: instructions on, geometry off (records do not carry it); up to 3 alternatives between two points. */
export function toOrsDirectionsRequest(points: readonly Coordinates[], mode: Mode, alternatives: boolean): JsonRequest<typeof orsDirections> {
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
    refusal: orsRefusal,
    response: orsDirections,
  };
}

export function toOrsMatrixRequest(points: readonly Coordinates[], mode: Mode): JsonRequest<typeof orsMatrix> {
  return {
    provider: "ors",
    method: "POST",
    path: `/v2/matrix/${ORS_PROFILES[mode]}`,
    body: { locations: lonLat(points), metrics: ["distance", "duration"], units: "km" },
    idempotent: true,
    refusal: orsRefusal,
    response: orsMatrix,
  };
}

function orsStepOf(step: Static<typeof orsStep>): RouteStep {
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
export function parseOrsDirections(body: OrsDirections): Route[] {
  if (body.routes.length === 0) throw new ApiError("provider_error", "openrouteservice answered no route.");
  return body.routes.map((route) => ({
    distance_m: orZero(route.summary.distance),
    duration_s: orZero(route.summary.duration),
    steps: route.segments.flatMap((segment) => segment.steps.map(orsStepOf)),
  }));
}

/** A matrix answer: `durations` in seconds, `distances` in km (asked with `units: km`). */
export function parseOrsMatrix(body: OrsMatrix, n: number): Matrix {
  const durations_s = readMatrix(body.durations, n, 1, "openrouteservice", "duration");
  const distances_km = readMatrix(body.distances, n, 1, "openrouteservice", "distance");
  return { ...(durations_s ? { durations_s } : {}), ...(distances_km ? { distances_km } : {}) };
}

/** The live check's probe: one driving route, Ulm to Stuttgart (one directions request of the daily quota). */
export const orsProbe: ProviderProbe = {
  provider: "ors",
  what: "one driving route (Ulm to Stuttgart)",
  request: toOrsDirectionsRequest(
    [
      { lat: 48.3974003, lon: 9.9934336 },
      { lat: 48.7784485, lon: 9.1800132 },
    ],
    "driving",
    false,
  ),
};
