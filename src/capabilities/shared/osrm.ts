/**
 * The OSRM public demo server (router.project-osrm.org), the fallback engine of navigation.route and
 * navigation.matrix: `GET /route/v1/driving/{lon,lat;…}?overview=false&steps=true` and
 * `GET /table/v1/driving/{lon,lat;…}?annotations=duration,distance`. Car profile only; keyless; its
 * usage policy allows one request a second (paced by the upstream client). Pure.
 *
 * OSRM answers `code: "Ok"`, or an error code with a message (HTTP 400: `NoRoute`, `InvalidQuery`…):
 * `osrmRefusal` reads it as `502 provider_error` with OSRM's words. Table cells are `null` for pairs
 * with no route.
 *
 * OSRM's steps carry a maneuver (`type`, `modifier`) and a road name, not text: each step's
 * `instruction` is composed from them ("Turn left onto Lortzingstraße"), in English.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullable } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { Coordinates } from "./places.ts";
import { obj, str } from "./read.ts";
import { type Matrix, orZero, type Route, type RouteStep, readMatrix } from "./routing.ts";

/** A step: its maneuver (always there) and road name ("" when unnamed). */
const osrmStep = Type.Object({
  distance: Type.Optional(Type.Number()),
  duration: Type.Optional(Type.Number()),
  name: Type.Optional(Type.String()),
  maneuver: Type.Object({ type: Type.String(), modifier: Type.Optional(Type.String()), exit: Type.Optional(Type.Number()) }),
});

/** A route answer: `code` ("Ok"; others are refusals), routes with length, time and legs (steps empty unless asked). */
export const osrmRoute = Type.Object({
  code: Type.String(),
  routes: Type.Array(
    Type.Object({
      distance: Type.Number(),
      duration: Type.Number(),
      legs: Type.Array(Type.Object({ steps: Type.Array(osrmStep), summary: Type.Optional(Type.String()) })),
    }),
  ),
});
export type OsrmRoute = Static<typeof osrmRoute>;

const cells = Type.Array(Type.Array(nullable(Type.Number())));

/**
 * A table answer: `durations` (seconds, OSRM's default annotation, always there) and `distances`
 * (metres; answered only when asked, as Quarry does: the recording was asked without them).
 */
export const osrmTable = Type.Object({
  code: Type.String(),
  durations: cells,
  distances: Type.Optional(cells),
});
export type OsrmTable = Static<typeof osrmTable>;

/** OSRM's refusal: a `code` other than "Ok" (with its `message`), at any status. */
export function osrmRefusal(body: unknown): ApiError | undefined {
  const root = obj(body);
  const code = str(root?.code);
  if (code === undefined || code === "Ok") return undefined;
  return new ApiError("provider_error", `The OSRM demo server could not answer: ${str(root?.message) ?? code}.`, {
    hint: "OSRM found no route between these places, or refused the request; check the places.",
  });
}

/** `lon,lat;lon,lat` as OSRM's path wants it (numbers as JavaScript prints them). */
function coordinatePath(points: readonly Coordinates[]): string {
  return points.map((p) => `${p.lon},${p.lat}`).join(";");
}

export function toOsrmRouteRequest(points: readonly Coordinates[], alternatives: boolean): JsonRequest<typeof osrmRoute> {
  return {
    provider: "osrm",
    method: "GET",
    path: `/route/v1/driving/${coordinatePath(points)}`,
    query: { overview: "false", steps: "true", alternatives: alternatives ? "true" : "false" },
    refusal: osrmRefusal,
    response: osrmRoute,
  };
}

export function toOsrmTableRequest(points: readonly Coordinates[]): JsonRequest<typeof osrmTable> {
  return {
    provider: "osrm",
    method: "GET",
    path: `/table/v1/driving/${coordinatePath(points)}`,
    query: { annotations: "duration,distance" },
    refusal: osrmRefusal,
    response: osrmTable,
  };
}

const PHRASES: Record<string, string> = {
  depart: "Head out",
  arrive: "Arrive at the destination",
  turn: "Turn",
  "new name": "Continue",
  continue: "Continue",
  merge: "Merge",
  "on ramp": "Take the ramp",
  "off ramp": "Take the exit",
  fork: "Keep",
  "end of road": "At the end of the road, turn",
  roundabout: "Enter the roundabout",
  rotary: "Enter the rotary",
  "roundabout turn": "At the roundabout, turn",
  "exit roundabout": "Exit the roundabout",
  "exit rotary": "Exit the rotary",
  notification: "Continue",
  "use lane": "Continue",
};

/** "Turn left onto Lortzingstraße", from a maneuver and the step's road name. */
export function osrmInstruction(type: string | undefined, modifier: string | undefined, name: string | undefined, exit?: number): string {
  const phrase = PHRASES[type ?? ""] ?? "Continue";
  const direction = modifier !== undefined && !["depart", "arrive", "roundabout", "rotary", "exit roundabout", "exit rotary"].includes(type ?? "") ? ` ${modifier}` : "";
  const exitText = exit !== undefined && (type === "roundabout" || type === "rotary") ? ` and take exit ${exit}` : "";
  const onto = name !== undefined && type !== "arrive" ? ` ${type === "depart" ? "on" : "onto"} ${name}` : "";
  return `${phrase}${direction}${exitText}${onto}`;
}

function osrmStepOf(step: Static<typeof osrmStep>): RouteStep {
  const name = str(step.name);
  const { type, modifier, exit } = step.maneuver;
  return {
    instruction: osrmInstruction(str(type), str(modifier), name, exit),
    distance_m: orZero(step.distance),
    duration_s: orZero(step.duration),
    ...(name === undefined ? {} : { name }),
  };
}

/** The routes of a route answer (`routes[]` with `legs[].steps[]`). */
export function parseOsrmRoute(body: OsrmRoute): Route[] {
  if (body.routes.length === 0) throw new ApiError("provider_error", "The OSRM demo server answered no route.");
  return body.routes.map((route) => {
    const steps = route.legs.flatMap((leg) => leg.steps.map(osrmStepOf));
    const summaries = route.legs.map((leg) => str(leg.summary)).filter((s) => s !== undefined);
    return { distance_m: orZero(route.distance), duration_s: orZero(route.duration), steps, ...(summaries.length > 0 ? { summaries } : {}) };
  });
}

/** A table answer: `durations` in seconds, `distances` in metres (read as km). */
export function parseOsrmTable(body: OsrmTable, n: number): Matrix {
  const durations_s = readMatrix(body.durations, n, 1, "OSRM", "duration");
  const distances_km = readMatrix(body.distances, n, 0.001, "OSRM", "distance");
  return { ...(durations_s ? { durations_s } : {}), ...(distances_km ? { distances_km } : {}) };
}

/** The live check's probe: the route through the three example points of OSRM's API documentation (Berlin, about 5 km). */
export const osrmProbe: ProviderProbe = {
  provider: "osrm",
  what: "one short driving route (Berlin, the API documentation's example)",
  request: toOsrmRouteRequest(
    [
      { lat: 52.517037, lon: 13.38886 },
      { lat: 52.529407, lon: 13.397634 },
      { lat: 52.523219, lon: 13.428555 },
    ],
    false,
  ),
};
