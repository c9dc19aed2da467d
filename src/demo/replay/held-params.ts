/**
 * Which parts of a request the recording that answers it was not made with (the "unheld" params).
 *
 * The replay answers an unrecorded variant of a recorded request with the nearest recording (see
 * fixture-index.ts: extra params never disqualify). In the offline demo that means a `sort`, a filter
 * or even the query itself can go unapplied; the replay names such params in a response header
 * (UNHELD_HEADER, replay-headers.ts) and the gateway says so in the answer's `notes`, so the demo
 * never passes off a recording of another search as the answer to this one.
 *
 * Not every difference matters. Params that only choose fields, page size or output form, and params
 * sent at the provider's documented default, ask for what the recording already holds; they are not
 * named.
 */
import { isObject } from "../../validation.ts";
import { STAND_IN_PATH } from "./replay-headers.ts";
import { type FixtureEntry, IGNORED_QUERY_PARAMS, isPlaceholder } from "./fixture-index.ts";

/**
 * Params (query or JSON body) that choose which fields, how many results or in what form a provider
 * answers, never which results: a recording made without them answers the same search.
 */
const SHAPE_PARAMS: ReadonlySet<string> = new Set([
  "select", // OpenAlex
  "fields", // Open Library
  "per_page", // GitHub, OpenAlex
  "maxResults", // YouTube
  "limit",
  "count", // Open-Meteo geocoding
  "num", // Serper, SerpApi
  "geometry", // openrouteservice
  "format",
]);

/** Per provider prefix ("*": any), params whose value is the provider's default (docs of each API). */
const DEFAULT_VALUES: Readonly<Record<string, Readonly<Record<string, readonly string[]>>>> = {
  "*": { page: ["1"], offset: ["0"], start: ["0"], hl: ["en"], gl: ["us"] },
  courtlistener: { type: ["o"], order_by: ["score desc"] },
  serpapi: { window: ["1D"] },
  openmeteo: { temperature_unit: ["celsius"], wind_speed_unit: ["kmh"], precipitation_unit: ["mm"], language: ["en"] },
  ors: { instructions: ["true"], units: ["m"] },
};

/** The longest a named value is kept (a long filter token or JSON query is cut). */
const VALUE_CHARS = 80;

function isDefault(prefix: string, name: string, value: string): boolean {
  return (DEFAULT_VALUES["*"]?.[name]?.includes(value) ?? false) || (DEFAULT_VALUES[prefix]?.[name]?.includes(value) ?? false);
}

function named(name: string, value: string): string {
  return `${name}=${value.length > VALUE_CHARS ? `${value.slice(0, VALUE_CHARS)}…` : value}`;
}

/**
 * The params of this request the recording was not made with: a query param (or a top-level key of
 * a JSON body, when the recording kept its request body) that neither its recorded query nor the
 * match_query it was re-keyed for carries with this value, or one a stand-in placeholder answers
 * (fixture-index.ts, `standIns`), as `name=value`. Held: keys, elided values, the offset and size a
 * window answers, shape params and provider defaults. Empty: the recording answers this request as
 * it is.
 */
export function unheldParams(
  entry: FixtureEntry,
  query: ReadonlyMap<string, readonly string[]>,
  body?: unknown,
  /** The request's path under the provider prefix; named when the entry stands in for any path. */
  path?: string,
): string[] {
  const out: string[] = [];
  if (entry.standInPath && path !== undefined) out.push(named(STAND_IN_PATH, path));
  const w = entry.window;
  const skip = (name: string, value: string): boolean =>
    IGNORED_QUERY_PARAMS.has(name) || SHAPE_PARAMS.has(name) || isDefault(entry.prefix, name, value);
  for (const [name, values] of query) {
    const value = values[0] ?? "";
    if (w !== undefined && (name === w.offset || name === w.limit)) continue;
    const recorded = entry.query[name];
    // A stand-in answers any value, but was made for another: named, whatever the value.
    if (entry.standIns.has(name)) {
      if (!skip(name, value)) out.push(named(name, value));
      continue;
    }
    if (recorded !== undefined && (isPlaceholder(recorded) || values.includes(recorded))) continue;
    // A re-keyed recording serves the request its match_query names (null: any value).
    const required = entry.required.find(([n]) => n === name);
    if (required !== undefined && (required[1] === null || values.includes(required[1]))) continue;
    if (!skip(name, value)) out.push(named(name, value));
  }
  // A body is compared only with a recorded one: without it, what the recording was asked is unknown.
  const recordedBody = entry.requestBody ?? entry.bodyPattern;
  if (isObject(body) && isObject(recordedBody)) {
    for (const [name, v] of Object.entries(body)) {
      const value = typeof v === "string" ? v : JSON.stringify(v);
      const recorded = recordedBody[name];
      if (typeof recorded === "string" && isPlaceholder(recorded)) continue;
      if (recorded !== undefined && JSON.stringify(recorded) === JSON.stringify(v)) continue;
      if (!skip(name, value)) out.push(named(name, value));
    }
  }
  return out;
}
