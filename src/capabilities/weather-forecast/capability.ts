/**
 * weather.forecast (spec 4.6 leaves its fields, records and follow-ups "not shown"; designed here and
 * documented in docs/providers.md): a forecast from Open-Meteo (keyless, free) for a place name
 * (geocoded with Open-Meteo's geocoding API) or coordinates; 1-16 days, daily or hourly, metric or
 * imperial. Single result: one record with the series and their units, Open-Meteo's attribution
 * and licence; `details` is the stored full forecast, free. No update (spec 4.5: single-result
 * capabilities do not offer it, trends.search and markets.quote aside): execute again instead.
 */
import { Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { exactlyOne } from "../framework/rules.ts";
import type { CapabilityContext } from "../types.ts";
import {
  ATTRIBUTION,
  ATTRIBUTION_URL,
  type ForecastPlace,
  GRANULARITIES,
  LICENCE,
  parseGeocoding,
  SUMMARY_HOURS,
  toForecastRecord,
  toForecastRequest,
  toGeocodingRequest,
} from "./openmeteo.ts";
import { MINUTE } from "../framework/durations.ts";
import { ONE_PLACE, type WeatherForecastQuery, weatherForecastSchema } from "./schema.ts";

export { type WeatherForecastQuery, weatherForecastSchema } from "./schema.ts";

const GEOCODE_NAMESPACE = "openmeteo-geocoding";
const GEOCODE_TTL_MS = 24 * 60 * 60 * 1000;

type Geocoded = { found: true; place: ForecastPlace } | { found: false };

/** A place name's coordinates, from the cache or Open-Meteo's geocoding; 400 at `/location` when none. */
async function placeOf(ctx: CapabilityContext<unknown>, query: WeatherForecastQuery): Promise<ForecastPlace> {
  if (query.coordinates) return { latitude: query.coordinates.lat, longitude: query.coordinates.lon };
  const name = (query.location ?? "").trim();
  const key = name.replace(/\s+/g, " ").toLowerCase();
  const answer = await ctx.cache.getOrLoad<Geocoded>(GEOCODE_NAMESPACE, key, { ttlMs: GEOCODE_TTL_MS }, async () => {
    const response = await ctx.upstream.send(toGeocodingRequest(name), ctx.signal);
    const place = parseGeocoding(response.body);
    return place === null ? { found: false } : { found: true, place };
  });
  if (!answer.found) {
    throw invalidRequest(
      [{ path: "/location", message: `${JSON.stringify(name)} did not match any place (Open-Meteo geocoding); give a more specific name or coordinates` }],
      "The location did not geocode; nothing was charged.",
    );
  }
  return answer.place;
}

const value = Type.Union([Type.Number(), Type.String(), Type.Null()]);

export const weatherForecast = defineCapability({
  id: "weather.forecast",
  title: "Weather forecast",
  summary: "A daily or hourly weather forecast (1-16 days) for a place name or coordinates, from Open-Meteo.",
  description:
    "Forecasts the weather with Open-Meteo for `location` (a place name, geocoded with Open-Meteo's " +
    "geocoding API; one that does not match is refused at `/location`) or `coordinates` {lat, lon}: " +
    "exactly one of them. `days` 1-16 (default 7); `granularity` `daily` (weather code, min/max " +
    "temperature, precipitation sum and probability, max wind, sunrise, sunset) or `hourly` (weather " +
    "code, temperature, relative humidity, precipitation and its probability, wind); `units` `metric` " +
    "(°C, km/h, mm) or `imperial` (°F, mph, inch). One record: `location` {name, admin1, country when " +
    "geocoded; latitude, longitude}, `timezone` (the place's own; times are local), `granularity`, " +
    "`units` (per variable), `series` (`time` plus one array per variable, null where the model has no " +
    `value; hourly forecasts show the first ${SUMMARY_HOURS} hours here, \`truncated\` says so), and always ` +
    `\`attribution\` ("${ATTRIBUTION}"), \`attribution_url\` (${ATTRIBUTION_URL}: Open-Meteo's licence asks for this link ` +
    `next to its data) and \`licence\` (${LICENCE.name}). \`details\` is the stored full ` +
    "forecast (every hour, the model grid point and elevation, and `conditions`: the weather code in " +
    "words), free. Single result: no `more`, no `update` (execute again to change it).",
  topic: "travel and places",
  schema: weatherForecastSchema,
  sourceChecked: ["location"],
  recordKeys: Type.Object({
    location: Type.Object(
      {
        name: Type.Optional(Type.String()),
        admin1: Type.Optional(Type.String({ description: "Region (state, province) of a geocoded place." })),
        country: Type.Optional(Type.String()),
        latitude: Type.Number(),
        longitude: Type.Number(),
      },
      { description: "The place forecast: the geocoded place (name, region, country), or the coordinates given." },
    ),
    timezone: Type.String({ description: "The place's IANA time zone; `series.time` is local time there." }),
    granularity: Type.String({ enum: [...GRANULARITIES] }),
    units: Type.Object({}, { additionalProperties: Type.String(), description: "The unit of each variable of `series` (e.g. °C, mm, wmo code, iso8601)." }),
    series: Type.Object(
      { time: Type.Array(Type.String(), { description: "Local dates (daily) or hours (hourly), ISO 8601." }) },
      { additionalProperties: Type.Array(value), description: "One array per variable, aligned with `time`; null where the model has no value." },
    ),
    truncated: Type.Boolean({ description: `True when \`series\` holds only the first ${SUMMARY_HOURS} hours (see \`details\` for all).` }),
    attribution: Type.String({ description: "The credit Open-Meteo's licence asks for (always)." }),
    attribution_url: Type.String({ description: "The link to show with that credit, next to the data (always: https://open-meteo.com/)." }),
    licence: Type.Object({ name: Type.String(), url: Type.String() }, { description: "The data's licence (always: CC BY 4.0)." }),
  }),
  paging: "single",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: 15 * MINUTE,
  cost: free(
    "Free: Open-Meteo's forecast and geocoding APIs are free and keyless for non-commercial use (a commercial deployment configures " +
      "Open-Meteo's customer API and OPENMETEO_API_KEY); forecasts and details cost 0 credits.",
  ),
  rules: [exactlyOne(["location", "coordinates"], { none: `No place given. ${ONE_PLACE}` })],
  sources: [
    {
      id: "openmeteo",
      title: "Open-Meteo",
      providers: ["openmeteo"],
      async search(ctx, query) {
        const place = await placeOf(ctx, query);
        const response = await ctx.upstream.send(toForecastRequest(place, query.days, query.granularity, query.units), ctx.signal);
        return { records: [toForecastRecord(response.body, place, query.granularity, query.units)], next: null };
      },
    },
  ],
  actions: {
    details: {
      description:
        "The stored full forecast: every entry of the series with units, the model grid point and elevation, conditions in words, attribution (with its link) and licence. Free.",
      mode: "stored",
    },
  },
  // Recorded Open-Meteo answers for Enschede (fixtures/providers/openmeteo).
  examples: [
    { title: "The week's weather in Enschede", body: { location: "Enschede" } },
    { title: "Hourly forecast for a point near Enschede, 3 days", body: { coordinates: { lat: 52.27, lon: 6.89 }, granularity: "hourly", days: 3 } },
  ],
});
