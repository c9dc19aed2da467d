/**
 * Open-Meteo mappers for weather.forecast (pure, no I/O):
 * - geocoding host: `GET /v1/search?name=&count=1&language=en&format=json` → the first place, or none
 *   (Open-Meteo leaves `results` out when nothing matches);
 * - forecast host: `GET /v1/forecast?latitude=&longitude=&daily=…|hourly=…&forecast_days=&timezone=auto`
 *   with the unit parameters → the one record (a series per variable, with its unit).
 *
 * Every variable of the answer's `daily` / `hourly` block is kept as given (Open-Meteo answers the
 * variables asked for; a body with other or older names, such as `weathercode`, is mapped the same
 * way), with `time` first. Errors come as HTTP 400 `{"error": true, "reason"}`: provider_error.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";
import { arr, defined, num, obj, str } from "../shared/read.ts";
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

export const ATTRIBUTION = "Weather data by Open-Meteo.com";
export const LICENCE = { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" } as const;
const LINKS: Link[] = [
  { label: "Open-Meteo (weather data source)", url: "https://open-meteo.com/" },
  { label: "Licence: CC BY 4.0", url: LICENCE.url },
];

/** A place the forecast is for: the geocoded name's, or the caller's coordinates. */
export interface ForecastPlace {
  latitude: number;
  longitude: number;
  name?: string;
  admin1?: string;
  country?: string;
}

export function toGeocodingRequest(name: string): UpstreamRequest {
  return {
    provider: "openmeteo",
    host: "geocoding",
    method: "GET",
    path: "/v1/search",
    query: { name, count: 1, language: "en", format: "json" },
    acceptStatus: [400],
  };
}

/** The first place of a geocoding answer; null when nothing matched. */
export function parseGeocoding(status: number, body: unknown): ForecastPlace | null {
  const root = readOpenMeteo(status, body);
  const first = obj(arr(root.results)?.[0]);
  if (first === undefined) return null;
  const latitude = num(first.latitude);
  const longitude = num(first.longitude);
  if (latitude === undefined || longitude === undefined) throw new ApiError("provider_error", "Open-Meteo geocoding answered a place without coordinates.");
  const place: ForecastPlace = { latitude, longitude };
  for (const key of ["name", "admin1", "country"] as const) {
    const v = str(first[key]);
    if (v !== undefined) place[key] = v;
  }
  return place;
}

export function toForecastRequest(place: ForecastPlace, days: number, granularity: Granularity, units: UnitSystem): UpstreamRequest {
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
    acceptStatus: [400],
  };
}

function readOpenMeteo(status: number, body: unknown): Record<string, unknown> {
  const root = obj(body);
  if (root === undefined || status >= 400 || root.error === true) {
    throw new ApiError("provider_error", `Open-Meteo could not answer: ${str(root?.reason) ?? `HTTP ${status}`}.`);
  }
  return root;
}

type Series = Record<string, JsonValue[]>;

/** The block's series (`time` first), each cut to `limit` entries; the units of the variables present. */
function readSeries(block: unknown, unitsBlock: unknown, limit: number): { series: Series; units: JsonObject; length: number } {
  const source = obj(block);
  const time = arr(source?.time);
  if (source === undefined || time === undefined) throw new ApiError("provider_error", "Open-Meteo answered no forecast series.");
  const series: Series = { time: time.slice(0, limit).map((t) => (typeof t === "string" ? t : String(t))) };
  const units: JsonObject = {};
  const unitSource = obj(unitsBlock) ?? {};
  for (const [name, values] of Object.entries(source)) {
    const list = arr(values);
    if (name === "time" || list === undefined) continue;
    series[name] = list.slice(0, limit).map((v): JsonValue => (typeof v === "number" || typeof v === "string" ? v : null));
    const unit = str(unitSource[name]);
    if (unit !== undefined) units[name] = unit;
  }
  return { series, units, length: time.length };
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
export function toForecastRecord(status: number, body: unknown, place: ForecastPlace, granularity: Granularity, units: UnitSystem): RecordDraft {
  const root = readOpenMeteo(status, body);
  const full = readSeries(root[granularity], root[`${granularity}_units`], Number.POSITIVE_INFINITY);
  const limit = granularity === "hourly" ? SUMMARY_HOURS : Number.POSITIVE_INFINITY;
  const shown = readSeries(root[granularity], root[`${granularity}_units`], limit);
  // Asked with timezone=auto, Open-Meteo always names the zone its local times are in; without it they could not be read.
  const timezone = str(root.timezone);
  if (timezone === undefined) throw new ApiError("provider_error", "Open-Meteo answered no timezone for its local times.");
  const location: JsonObject = defined({ name: place.name, admin1: place.admin1, country: place.country, latitude: place.latitude, longitude: place.longitude });
  const codes = codeSeries(full.series);
  const credit = { attribution: ATTRIBUTION, licence: { ...LICENCE } };
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
      grid: defined({ latitude: num(root.latitude), longitude: num(root.longitude), elevation_m: num(root.elevation) }),
      timezone,
      ...defined({ timezone_abbreviation: str(root.timezone_abbreviation), utc_offset_seconds: num(root.utc_offset_seconds) }),
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
