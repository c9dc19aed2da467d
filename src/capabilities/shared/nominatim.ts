/**
 * Geocoding of navigation places with OpenStreetMap Nominatim (`GET /search?format=jsonv2&q=&limit=1`),
 * within its usage policy: the upstream client sends Quarry's descriptive User-Agent and paces the
 * provider to one request a second for the whole process (src/providers.ts `minIntervalMs`); answers are
 * kept in the framework's bounded cache for 24 hours (misses too), so a name is asked once a day.
 *
 * A request's string places are geocoded before any routing, all within its deadline, or refused
 * before the deadline is spent: when more names are not yet cached than one-a-second lookups can
 * answer in the time left (keeping `ROUTING_RESERVE_MS` for the routing call), the request is
 * `400 invalid_request` at once, one violation at the pointer of each name that does not fit, and
 * nothing is sent. A name Nominatim does not match is `400` at its pointer (`/origin`,
 * `/waypoints/2`, `/locations/5`). Nothing is charged either way (navigation is free).
 *
 * Nominatim sends coordinates as strings (for a few days in April 2025 it sent numbers, then
 * reverted: osm-search/Nominatim#3723); `numeric` reads both. Its refusals are
 * `{"error": {"code", "message"}}` (or `{"error": "…"}`), read by `nominatimRefusal`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError, invalidRequest, type Violation } from "../../errors.ts";
import { deadlineOf } from "../../upstream/deadlines.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { CapabilityContext } from "../types.ts";
import { type Located, type Place, placeLabel } from "./places.ts";
import { numeric, obj, str } from "./read.ts";

/** Cache namespace and lifetime of a geocoded name (found or not). */
export const GEOCODE_NAMESPACE = "nominatim";
export const GEOCODE_TTL_MS = 24 * 60 * 60 * 1000;
/** Nominatim's policy: one request a second (the client paces it; the budget counts with it). */
export const GEOCODE_INTERVAL_MS = 1000;
/** Time kept for the routing call after the lookups. */
export const ROUTING_RESERVE_MS = 3000;

/** What the cache keeps for a name. */
export type Geocoded = { found: true; lat: number; lon: number; matched?: string } | { found: false };

/** A place of the request and the JSON pointer of its field. */
export interface PlaceAt {
  pointer: string;
  place: Place;
}

const coordinate = Type.Union([Type.String(), Type.Number()]);

/** A `/search` answer (`format=jsonv2`): the matches, best first, each with its coordinates; `[]` for none. */
export const nominatimSearch = Type.Array(
  Type.Object({
    lat: coordinate,
    lon: coordinate,
    display_name: Type.Optional(Type.String()),
  }),
);
export type NominatimSearch = Static<typeof nominatimSearch>;

/** Nominatim's refusal, at any status: `{"error": {"code", "message"}}` or `{"error": "…"}`. */
export function nominatimRefusal(body: unknown): ApiError | undefined {
  const error = obj(body)?.error;
  if (error === undefined) return undefined;
  const message = str(error) ?? str(obj(error)?.message);
  return new ApiError("provider_error", `Nominatim did not answer with a list of places${message ? `: ${message}` : ""}.`);
}

export function toNominatimRequest(q: string): JsonRequest<typeof nominatimSearch> {
  return {
    provider: "nominatim",
    method: "GET",
    path: "/search",
    query: { format: "jsonv2", q, limit: 1 },
    refusal: nominatimRefusal,
    response: nominatimSearch,
  };
}

/** The first match of a `/search` answer; `found: false` for `[]`. */
export function parseNominatim(body: NominatimSearch): Geocoded {
  const first = body[0];
  if (first === undefined) return { found: false };
  const lat = numeric(first.lat);
  const lon = numeric(first.lon);
  if (lat === undefined || lon === undefined || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    throw new ApiError("provider_error", "Nominatim answered a place without valid coordinates.");
  }
  const matched = str(first.display_name);
  return matched === undefined ? { found: true, lat, lon } : { found: true, lat, lon, matched };
}

/** The cache key of a name: case and spacing do not make another place. */
export function geocodeKey(name: string): string {
  return name.trim().replace(/\s+/g, " ").toLowerCase();
}

const NOT_CACHED = Symbol("not cached");

/** The cached answer for a name, without asking Nominatim (a load in flight is waited for). */
async function cached(ctx: CapabilityContext<unknown>, key: string): Promise<Geocoded | undefined> {
  try {
    return await ctx.cache.getOrLoad<Geocoded>(GEOCODE_NAMESPACE, key, { ttlMs: GEOCODE_TTL_MS }, () => Promise.reject(NOT_CACHED));
  } catch (error) {
    if (error === NOT_CACHED) return undefined;
    throw error;
  }
}

/** Milliseconds left before the call's deadline (the declared deadline when the signal does not say). */
function timeLeft(signal: AbortSignal, deadlineMs: number): number {
  const at = deadlineOf(signal);
  return at === undefined ? deadlineMs : at - performance.now();
}

/** How many uncached names one-a-second lookups can answer in `leftMs`, keeping the routing reserve. */
export function lookupsThatFit(leftMs: number): number {
  // The first lookup starts at once; each next one a pacing interval later; each takes about one.
  return Math.max(0, Math.floor((leftMs - ROUTING_RESERVE_MS) / GEOCODE_INTERVAL_MS));
}

/**
 * Coordinates for every place, in order: coordinates as given, names from the cache or Nominatim.
 * Throws invalid_request (budget or no match, see the header) or the provider's error.
 */
export async function locatePlaces(ctx: CapabilityContext<unknown>, places: readonly PlaceAt[], deadlineMs: number): Promise<Located[]> {
  const known = new Map<string, Geocoded>();
  /** Names to ask Nominatim, by cache key (the first spelling given is sent). */
  const asking = new Map<string, string>();
  for (const { place } of places) {
    if (typeof place !== "string") continue;
    const key = geocodeKey(place);
    if (known.has(key) || asking.has(key)) continue;
    const hit = await cached(ctx, key);
    if (hit === undefined) asking.set(key, place.trim());
    else known.set(key, hit);
  }
  const pending = [...asking.keys()];

  const fit = lookupsThatFit(timeLeft(ctx.signal, deadlineMs));
  if (pending.length > fit) {
    const over = new Set(pending.slice(fit));
    const violations: Violation[] = [];
    for (const { pointer, place } of places) {
      if (typeof place !== "string" || !over.has(geocodeKey(place))) continue;
      over.delete(geocodeKey(place));
      violations.push({
        path: pointer,
        message:
          `${pending.length} place names in this request are not yet geocoded and Nominatim allows one lookup a second, ` +
          `so at most ${fit} fit within the deadline: give coordinates {"lat", "lon"} for this place (names looked up ` +
          "before are remembered for 24 hours, so smaller requests first also work)",
      });
    }
    throw invalidRequest(violations, "Too many place names to geocode within the deadline; nothing was sent or charged.");
  }

  await Promise.all(
    pending.map(async (key) => {
      const answer = await ctx.cache.getOrLoad<Geocoded>(GEOCODE_NAMESPACE, key, { ttlMs: GEOCODE_TTL_MS }, async () => {
        const response = await ctx.upstream.send(toNominatimRequest(asking.get(key)!), ctx.signal);
        return parseNominatim(response.body);
      });
      known.set(key, answer);
    }),
  );

  const violations: Violation[] = [];
  const located: Located[] = [];
  for (const { pointer, place } of places) {
    if (typeof place !== "string") {
      located.push({ lat: place.lat, lon: place.lon, label: placeLabel(place) });
      continue;
    }
    const answer = known.get(geocodeKey(place));
    if (answer === undefined || !answer.found) {
      violations.push({
        path: pointer,
        message: `${JSON.stringify(place.trim())} did not match any place in OpenStreetMap (Nominatim); give a more specific name or coordinates {"lat", "lon"}`,
      });
      continue;
    }
    located.push({ lat: answer.lat, lon: answer.lon, label: placeLabel(place), geocoded: true, ...(answer.matched ? { matched: answer.matched } : {}) });
  }
  if (violations.length > 0) throw invalidRequest(violations, "A place did not geocode; nothing was charged.");
  return located;
}

/** The located places of one call, shared by the sources of its chain (a fallback does not look them up again). */
const perCall = new WeakMap<object, Promise<Located[]>>();

export function locateOnce(ctx: CapabilityContext<unknown>, places: readonly PlaceAt[], deadlineMs: number): Promise<Located[]> {
  let located = perCall.get(ctx);
  if (located === undefined) {
    located = locatePlaces(ctx, places, deadlineMs);
    perCall.set(ctx, located);
  }
  return located;
}

/** The live check's probe: one place name (the town of Gagarin), first match only. */
export const nominatimProbe: ProviderProbe = {
  provider: "nominatim",
  what: "one place name, first match",
  request: toNominatimRequest("Gagarin"),
};
