/**
 * Open-Meteo mappers for weather.forecast (pure, no I/O):
 * - geocoding host: `GET /v1/search?name=&count=1&language=en&format=json` → the first place, or none
 *   (Open-Meteo leaves `results` out when nothing matches);
 * - forecast host: `GET /v1/forecast?latitude=&longitude=&daily=…|hourly=…&forecast_days=&timezone=auto`
 *   with the unit parameters → the one record (a series per variable, with its unit).
 *
 * Every variable of the answer's `daily` / `hourly` block is kept as given (Open-Meteo answers the
 * variables asked for; a body with other or older names, such as `weathercode`, is mapped the same
 * way), with `time` first. Errors come as HTTP 400 `{"error": true, "reason"}`: `openMeteoRefusal`
 * answers them as provider_error, on both hosts.
 *
 * Open-Meteo's free API is for non-commercial use only; a commercial deployment points both hosts at
 * Open-Meteo's customer API and sets OPENMETEO_API_KEY (sent as `apikey`; docs/providers.md).
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullable } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";
import { defined, num, obj, str } from "../shared/read.ts";
import { weatherText } from "./wmo.ts";

export const GRANULARITIES = ["daily", "hourly"] as const;
export type Granularity = (typeof GRANULARITIES)[number];
export const UNIT_SYSTEMS = ["metric", "imperial"] as const;
export type UnitSystem = (typeof UNIT_SYSTEMS)[number];

/** The variables asked for, per granularity. */
export const VARIABLES: Record<Granularity, readonly string[]> = {
  daily: [
    "weather_code",
    "temperature_2m_max",
    "temperature_2m_min",
    "precipitation_sum",
    "precipitation_probability_max",
    "wind_speed_10m_max",
    "sunrise",
    "sunset",
  ],
  hourly: ["weather_code", "temperature_2m", "relative_humidity_2m", "precipitation", "precipitation_probability", "wind_speed_10m"],
};

const UNIT_PARAMS: Record<UnitSystem, Record<string, string>> = {
  metric: { temperature_unit: "celsius", wind_speed_unit: "kmh", precipitation_unit: "mm" },
  imperial: { temperature_unit: "fahrenheit", wind_speed_unit: "mph", precipitation_unit: "inch" },
};

/** Hours of an hourly series kept in the record summary (the stored detail keeps them all). */
export const SUMMARY_HOURS = 48;

/**
 * Open-Meteo's licence (https://open-meteo.com/en/licence): API data are CC BY 4.0, credited with a
 * link to open-meteo.com next to wherever the data are shown.
 */
export const ATTRIBUTION = "Weather data by Open-Meteo.com";
export const ATTRIBUTION_URL = "https://open-meteo.com/";
export const LICENCE = { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" } as const;
const LINKS: Link[] = [
  { label: "Open-Meteo (weather data source)", url: ATTRIBUTION_URL },
  { label: "Licence: CC BY 4.0", url: LICENCE.url },
];

/** A geocoding match: its coordinates and name, and the region and country when it has them. */
const geocodedPlace = Type.Object({
  name: Type.String(),
  latitude: Type.Number(),
  longitude: Type.Number(),
  admin1: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
});

/**
 * A geocoding answer: the matches. Open-Meteo leaves `results` out when nothing matches
 * (`{"generationtime_ms": …}` and nothing else): that answer is recognised before this check
 * (`noMatch`), so a body that lost `results` otherwise is drift, not "no such place".
 */
export const openMeteoGeocoding = Type.Object({ results: Type.Array(geocodedPlace) });
export type OpenMeteoGeocoding = Static<typeof openMeteoGeocoding>;

/** One granularity's block: `time` (local ISO 8601) and one array per variable, null where the model has no value. */
const seriesBlock = Type.Object(
  { time: Type.Array(Type.String()) },
  { additionalProperties: Type.Array(nullable(Type.Union([Type.Number(), Type.String()]))) },
);
const unitsBlock = Type.Record(Type.String(), Type.String());

const forecastFields = {
  /** Asked with `timezone=auto`, always named: the series' local times are in it. */
  timezone: Type.String(),
  timezone_abbreviation: Type.Optional(Type.String()),
  utc_offset_seconds: Type.Optional(Type.Number()),
  latitude: Type.Optional(Type.Number()),
  longitude: Type.Optional(Type.Number()),
  elevation: Type.Optional(Type.Number()),
};

/** A forecast answer per granularity: the block asked for is required, its units optional. */
export const openMeteoForecast = {
  daily: Type.Object({ ...forecastFields, daily: seriesBlock, daily_units: Type.Optional(unitsBlock) }),
  hourly: Type.Object({ ...forecastFields, hourly: seriesBlock, hourly_units: Type.Optional(unitsBlock) }),
} as const;
export type OpenMeteoForecast = Static<(typeof openMeteoForecast)["daily"]> | Static<(typeof openMeteoForecast)["hourly"]>;

/** Open-Meteo's refusal on either host, at any status: `{"error": true, "reason": "…"}`. */
export function openMeteoRefusal(body: unknown, status: number): ApiError | undefined {
  const root = obj(body);
  if (root?.error !== true) return undefined;
  return new ApiError("provider_error", `Open-Meteo could not answer: ${str(root.reason) ?? `HTTP ${status}`}.`);
}

/** The geocoding host's "nothing matched": an answer without `results` that holds nothing else but its timing. */
function noMatch(body: unknown): "no_results" | undefined {
  const root = obj(body);
  return root !== undefined && "generationtime_ms" in root && Object.keys(root).every((k) => k === "generationtime_ms") ? "no_results" : undefined;
}

/** A place the forecast is for: the geocoded name's, or the caller's coordinates. */
export interface ForecastPlace {
  latitude: number;
  longitude: number;
  name?: string;
  admin1?: string;
  country?: string;
}

export function toGeocodingRequest(name: string): JsonRequest<typeof openMeteoGeocoding> {
  return {
    provider: "openmeteo",
    host: "geocoding",
    method: "GET",
    path: "/v1/search",
    query: { name, count: 1, language: "en", format: "json" },
    refusal: (body, status) => openMeteoRefusal(body, status) ?? noMatch(body),
    response: openMeteoGeocoding,
  };
}

/** The first place of a geocoding answer; null when nothing matched (the answer without `results`). */
export function parseGeocoding(body: OpenMeteoGeocoding): ForecastPlace | null {
  const results: OpenMeteoGeocoding["results"] | undefined = body.results;
  const first = results?.[0];
  if (first === undefined) return null;
  const place: ForecastPlace = { latitude: first.latitude, longitude: first.longitude };
  for (const key of ["name", "admin1", "country"] as const) {
    const v = str(first[key]);
    if (v !== undefined) place[key] = v;
  }
  return place;
}

export function toForecastRequest<G extends Granularity>(
  place: ForecastPlace,
  days: number,
  granularity: G,
  units: UnitSystem,
): JsonRequest<(typeof openMeteoForecast)[G]> {
  return {
    provider: "openmeteo",
    method: "GET",
    path: "/v1/forecast",
    query: {
      latitude: place.latitude,
      longitude: place.longitude,
      [granularity]: VARIABLES[granularity].join(","),
      forecast_days: days,
      timezone: "auto",
      ...UNIT_PARAMS[units],
    },
    refusal: openMeteoRefusal,
    response: openMeteoForecast[granularity],
  };
}

type Series = Record<string, JsonValue[]>;
/** A checked block: `time`, and an array of numbers, strings or nulls per variable. */
type Block = { time: string[] } & Record<string, (number | string | null)[]>;

/** The block's series (`time` first), each cut to `limit` entries; the units of the variables present. */
function readSeries(block: Block, unitSource: Record<string, string>, limit: number): { series: Series; units: JsonObject; length: number } {
  const series: Series = { time: block.time.slice(0, limit) };
  const units: JsonObject = {};
  for (const [name, values] of Object.entries(block)) {
    if (name === "time") continue;
    series[name] = values.slice(0, limit);
    const unit = str(unitSource[name]);
    if (unit !== undefined) units[name] = unit;
  }
  return { series, units, length: block.time.length };
}

const codeSeries = (series: Series): JsonValue[] | undefined => series.weather_code ?? series.weathercode;

function label(place: ForecastPlace): string {
  const named = [place.name, place.admin1, place.country].filter((s) => s !== undefined);
  return named.length > 0 ? named.join(", ") : `${place.latitude},${place.longitude}`;
}

function unitOf(units: JsonObject, name: string): string {
  const u = units[name];
  return typeof u === "string" ? (u.startsWith("°") ? u : ` ${u}`) : "";
}

/** "2026-10-03: overcast, 8.4–21.0 °C, 0.0 mm precipitation" from the first entry. */
function firstEntry(series: Series, units: JsonObject, granularity: Granularity): string | undefined {
  const at = (name: string) => series[name]?.[0];
  const code = codeSeries(series)?.[0];
  const parts: string[] = [];
  if (typeof code === "number") parts.push(weatherText(code) ?? `weather code ${code}`);
  if (granularity === "daily") {
    const lo = at("temperature_2m_min");
    const hi = at("temperature_2m_max");
    if (typeof lo === "number" && typeof hi === "number") parts.push(`${lo}–${hi}${unitOf(units, "temperature_2m_max")}`);
    const rain = at("precipitation_sum");
    if (typeof rain === "number") parts.push(`${rain}${unitOf(units, "precipitation_sum")} precipitation`);
  } else {
    const t = at("temperature_2m");
    if (typeof t === "number") parts.push(`${t}${unitOf(units, "temperature_2m")}`);
  }
  const time = series.time?.[0];
  return parts.length > 0 && typeof time === "string" ? `${time}: ${parts.join(", ")}` : undefined;
}

/** The forecast record: the series in the summary (hourly: the first SUMMARY_HOURS), everything in the stored detail. */
export function toForecastRecord(body: OpenMeteoForecast, place: ForecastPlace, granularity: Granularity, units: UnitSystem): RecordDraft {
  // The declared answer of this granularity's request holds its block (and maybe its units).
  const block = (body as Record<string, unknown>)[granularity] as Block;
  const unitsOf = ((body as Record<string, unknown>)[`${granularity}_units`] ?? {}) as Record<string, string>;
  const full = readSeries(block, unitsOf, Number.POSITIVE_INFINITY);
  const limit = granularity === "hourly" ? SUMMARY_HOURS : Number.POSITIVE_INFINITY;
  const shown = readSeries(block, unitsOf, limit);
  // Asked with timezone=auto, Open-Meteo always names the zone its local times are in; without it they could not be read.
  const timezone = str(body.timezone);
  if (timezone === undefined) throw new ApiError("provider_error", "Open-Meteo answered no timezone for its local times.");
  const location: JsonObject = defined({ name: place.name, admin1: place.admin1, country: place.country, latitude: place.latitude, longitude: place.longitude });
  const codes = codeSeries(full.series);
  const credit = { attribution: ATTRIBUTION, attribution_url: ATTRIBUTION_URL, licence: { ...LICENCE } };
  const snippet = firstEntry(shown.series, shown.units, granularity);
  return {
    summary: {
      title: granularity === "daily" ? `${full.length}-day forecast for ${label(place)}` : `Hourly forecast for ${label(place)} (${full.length} hours)`,
      ...(snippet ? { snippet } : {}),
      location,
      timezone,
      granularity,
      units: shown.units,
      series: shown.series,
      truncated: shown.length > limit,
      ...credit,
    },
    detail: {
      location,
      grid: defined({ latitude: num(body.latitude), longitude: num(body.longitude), elevation_m: num(body.elevation) }),
      timezone,
      ...defined({ timezone_abbreviation: str(body.timezone_abbreviation), utc_offset_seconds: num(body.utc_offset_seconds) }),
      granularity,
      unit_system: units,
      units: full.units,
      series: full.series,
      ...(codes ? { conditions: codes.map((c) => (typeof c === "number" ? (weatherText(c) ?? null) : null)) } : {}),
      ...credit,
    },
    links: LINKS,
  };
}

/** The live check's probe: one place name on the geocoding host (the cheapest call; the forecast host answers the same way). */
export const openMeteoProbe: ProviderProbe = {
  provider: "openmeteo",
  what: "one place name geocoded (first match)",
  request: toGeocodingRequest("Enschede"),
};
