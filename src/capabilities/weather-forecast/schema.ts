/**
 * weather.forecast's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defaulted, oneOfOr, text } from "../framework/fields.ts";
import { coordinatesObject } from "../shared/places.ts";
import { GRANULARITIES, UNIT_SYSTEMS } from "./openmeteo.ts";

export const ONE_PLACE = "Give exactly one of `location` (a place name) or `coordinates`.";

export const weatherForecastSchema = Type.Object(
  {
    location: Type.Optional(
      text(1, 200, `A place name, e.g. "Enschede" or "Paris, France", geocoded with Open-Meteo (first match). ${ONE_PLACE}`, { notBlank: true }),
    ),
    coordinates: Type.Optional(coordinatesObject(`The point to forecast, {"lat", "lon"}. ${ONE_PLACE}`)),
    days: defaulted(Type.Integer({ minimum: 1, maximum: 16, default: 7, description: "Days to forecast, from today (1-16, default 7)." })),
    granularity: oneOfOr(GRANULARITIES, "daily", "`daily` (one entry a day) or `hourly` (one entry an hour)."),
    units: oneOfOr(UNIT_SYSTEMS, "metric", "`metric` (°C, km/h, mm) or `imperial` (°F, mph, inch)."),
  },
  { additionalProperties: false, description: ONE_PLACE },
);

export type WeatherForecastQuery = Static<typeof weatherForecastSchema>;
