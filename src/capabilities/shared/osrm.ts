/**
 * The OSRM public demo server (router.project-osrm.org), the fallback engine of navigation.route and
 * navigation.matrix: `GET /route/v1/driving/{lon,lat;…}?overview=false&steps=true` and
 * `GET /table/v1/driving/{lon,lat;…}?annotations=duration,distance`. Car profile only; keyless; its
 * usage policy allows one request a second (paced by the upstream client). Pure.
 *
 * OSRM answers `code: "Ok"`, or an error code with a message (HTTP 400: `NoRoute`, `InvalidQuery`…),
 * read as `502 provider_error` with OSRM's words. Table cells are `null` for pairs with no route.
 *
 * OSRM's steps carry a maneuver (`type`, `modifier`) and a road name, not text: each step's
 * `instruction` is composed from them ("Turn left onto Lortzingstraße"), in English.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { Coordinates } from "./places.ts";
import { arr, obj, str } from "./read.ts";
import { type Matrix, orZero, type Route, type RouteStep, readMatrix } from "./routing.ts";

/** `lon,lat;lon,lat` as OSRM's path wants it (numbers as JavaScript prints them). */
function coordinatePath(points: readonly Coordinates[]): string {
  return points.map((p) => `${p.lon},${p.lat}`).join(";");
}

export function toOsrmRouteRequest(points: readonly Coordinates[], alternatives: boolean): UpstreamRequest {
  return {
    provider: "osrm",
    method: "GET",
    path: `/route/v1/driving/${coordinatePath(points)}`,
    query: { overview: "false", steps: "true", alternatives: alternatives ? "true" : "false" },
    acceptStatus: [400],
  };
}

export function toOsrmTableRequest(points: readonly Coordinates[]): UpstreamRequest {
  return {
    provider: "osrm",
    method: "GET",
    path: `/table/v1/driving/${coordinatePath(points)}`,
    query: { annotations: "duration,distance" },
    acceptStatus: [400],
  };
}

function readOsrm(body: unknown): Record<string, unknown> {
  const root = obj(body);
  const code = str(root?.code);
  if (root === undefined || code !== "Ok") {
    const message = str(root?.message) ?? code ?? "no answer code";
    throw new ApiError("provider_error", `The OSRM demo server could not answer: ${message}.`, {
      hint: "OSRM found no route between these places, or refused the request; check the places.",
    });
  }
  return root;
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

function osrmStep(value: unknown): RouteStep | undefined {
  const step = obj(value);
  if (step === undefined) return undefined;
  const maneuver = obj(step.maneuver) ?? {};
  const name = str(step.name);
  const exit = typeof maneuver.exit === "number" ? maneuver.exit : undefined;
  return {
    instruction: osrmInstruction(str(maneuver.type), str(maneuver.modifier), name, exit),
    distance_m: orZero(step.distance),
    duration_s: orZero(step.duration),
    ...(name === undefined ? {} : { name }),
  };
}

/** The routes of a route answer (`routes[]` with `legs[].steps[]`). */
export function parseOsrmRoute(body: unknown): Route[] {
  const routes = arr(readOsrm(body).routes);
  if (routes === undefined || routes.length === 0) throw new ApiError("provider_error", "The OSRM demo server answered no route.");
  return routes.map((value) => {
    const route = obj(value) ?? {};
    const legs = (arr(route.legs) ?? []).map((leg) => obj(leg) ?? {});
    const steps = legs.flatMap((leg) => (arr(leg.steps) ?? []).map(osrmStep).filter((s) => s !== undefined));
    const summaries = legs.map((leg) => str(leg.summary)).filter((s) => s !== undefined);
    return { distance_m: orZero(route.distance), duration_s: orZero(route.duration), steps, ...(summaries.length > 0 ? { summaries } : {}) };
  });
}

/** A table answer: `durations` in seconds, `distances` in metres (read as km). */
export function parseOsrmTable(body: unknown, n: number): Matrix {
  const root = readOsrm(body);
  const durations_s = readMatrix(root.durations, n, 1, "OSRM", "duration");
  const distances_km = readMatrix(root.distances, n, 0.001, "OSRM", "distance");
  return { ...(durations_s ? { durations_s } : {}), ...(distances_km ? { distances_km } : {}) };
}
