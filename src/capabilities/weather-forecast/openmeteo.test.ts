// Open-Meteo mappers for weather.forecast with the recorded Enschede answers: the requests (variables,
// days, units, time zone), the geocoding answer and its empty form, the record (series with units,
// attribution, licence) and its stored detail, hourly truncation, and error answers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { parseGeocoding, SUMMARY_HOURS, toForecastRecord, toForecastRequest, toGeocodingRequest } from "./openmeteo.ts";
import { weatherText } from "./wmo.ts";

const forecast = fixture("openmeteo", "forecast.json") as Record<string, unknown>;
const enschede = { name: "Enschede", admin1: "Overijssel", country: "The Netherlands", latitude: 52.21833, longitude: 6.89583 };

test("geocoding: GET /v1/search on the geocoding host; the first result; no `results` key means no match", () => {
  assert.deepEqual(toGeocodingRequest("Enschede"), {
    provider: "openmeteo",
    host: "geocoding",
    method: "GET",
    path: "/v1/search",
    query: { name: "Enschede", count: 1, language: "en", format: "json" },
    acceptStatus: [400],
  });
  assert.deepEqual(parseGeocoding(200, fixture("openmeteo", "geocoding_search.json")), enschede);
  assert.equal(parseGeocoding(200, fixture("openmeteo", "geocoding_search_empty.json")), null);
  assert.throws(
    () => parseGeocoding(400, { error: true, reason: "Parameter count must be between 1 and 100." }),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /count must be/.test(e.message),
  );
});

test("forecast request: the granularity's variables, forecast_days, timezone=auto and the unit system's parameters", () => {
  const daily = toForecastRequest(enschede, 7, "daily", "metric");
  assert.equal(daily.path, "/v1/forecast");
  assert.equal(daily.host, undefined, "the forecast host is the provider's default one");
  assert.deepEqual(daily.query, {
    latitude: 52.21833,
    longitude: 6.89583,
    daily: "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,wind_speed_10m_max,sunrise,sunset",
    forecast_days: 7,
    timezone: "auto",
    temperature_unit: "celsius",
    wind_speed_unit: "kmh",
    precipitation_unit: "mm",
  });
  const hourly = toForecastRequest({ latitude: 40.7, longitude: -74 }, 16, "hourly", "imperial");
  assert.deepEqual(hourly.query, {
    latitude: 40.7,
    longitude: -74,
    hourly: "weather_code,temperature_2m,relative_humidity_2m,precipitation,precipitation_probability,wind_speed_10m",
    forecast_days: 16,
    timezone: "auto",
    temperature_unit: "fahrenheit",
    wind_speed_unit: "mph",
    precipitation_unit: "inch",
  });
});

test("the daily record: every recorded variable with its unit, time first, attribution and licence; the detail adds the grid and conditions", () => {
  const record = toForecastRecord(200, forecast, enschede, "daily", "metric");
  const s = record.summary;
  assert.equal(s.title, "3-day forecast for Enschede, Overijssel, The Netherlands");
  assert.equal(s.snippet, "2026-10-03: overcast, 8.4–21°C, 0 mm precipitation");
  assert.deepEqual(s.location, enschede);
  assert.equal(s.timezone, "Europe/Amsterdam");
  assert.equal(s.granularity, "daily");
  const series = s.series as Record<string, unknown[]>;
  assert.equal(Object.keys(series)[0], "time");
  assert.deepEqual(series.time, ["2026-10-03", "2026-10-04", "2026-10-05"]);
  assert.deepEqual(series.temperature_2m_max, [21.0, 20.1, 22.2]);
  assert.deepEqual(series.sunrise, ["2026-10-03T07:36", "2026-10-04T07:38", "2026-10-05T07:40"]);
  assert.equal((s.units as Record<string, string>).temperature_2m_max, "°C");
  assert.equal((s.units as Record<string, string>).weathercode, "wmo code");
  assert.equal("time" in (s.units as object), false);
  assert.equal(s.truncated, false);
  assert.equal(s.attribution, "Weather data by Open-Meteo.com");
  assert.deepEqual(s.licence, { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" });
  assert.equal("current_weather" in series, false, "only the asked granularity's block");
  const detail = record.detail!;
  assert.deepEqual(detail.grid, { latitude: 52.276, longitude: 6.8729997, elevation_m: 29 });
  assert.equal(detail.utc_offset_seconds, 7200);
  assert.equal(detail.timezone_abbreviation, "GMT+2");
  assert.deepEqual(detail.conditions, ["overcast", "overcast", "overcast"]);
  assert.deepEqual(detail.series, s.series);
  assert.ok(record.links?.some((l) => l.url === "https://open-meteo.com/"));
});

test("the hourly record for coordinates: the recorded hours; a long series shows its first 48 hours and `truncated`", () => {
  const point = { latitude: 52.27, longitude: 6.89 };
  const record = toForecastRecord(200, forecast, point, "hourly", "metric");
  assert.equal(record.summary.title, "Hourly forecast for 52.27,6.89 (3 hours)");
  assert.deepEqual(record.summary.location, point);
  assert.deepEqual((record.summary.series as Record<string, unknown[]>).time, ["2026-10-03T00:00", "2026-10-03T01:00", "2026-10-03T02:00"]);
  assert.equal(record.summary.truncated, false);

  // 16 days of hours (a body shaped like Open-Meteo's, built here).
  const hours = Array.from({ length: 384 }, (_, i) => `2026-10-${String(3 + Math.floor(i / 24)).padStart(2, "0")}T${String(i % 24).padStart(2, "0")}:00`);
  const long = { timezone: "UTC", hourly_units: { time: "iso8601", temperature_2m: "°F" }, hourly: { time: hours, temperature_2m: hours.map((_, i) => (i === 5 ? null : i)) } };
  const cut = toForecastRecord(200, long, point, "hourly", "imperial");
  const shown = cut.summary.series as Record<string, unknown[]>;
  assert.equal(shown.time?.length, SUMMARY_HOURS);
  assert.equal(shown.temperature_2m?.[5], null);
  assert.equal(cut.summary.truncated, true);
  assert.equal(cut.summary.title, "Hourly forecast for 52.27,6.89 (384 hours)");
  assert.equal(((cut.detail!.series as Record<string, unknown[]>).time ?? []).length, 384);
  assert.equal(cut.detail!.unit_system, "imperial");
});

test("errors: Open-Meteo's 400 reason, a body without the series or without a timezone are provider_error", () => {
  assert.throws(
    () => toForecastRecord(400, { error: true, reason: "Forecast days is invalid." }, enschede, "daily", "metric"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /Forecast days is invalid/.test(e.message),
  );
  assert.throws(
    () => toForecastRecord(200, { timezone: "UTC" }, enschede, "daily", "metric"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /no forecast series/.test(e.message),
  );
  // Local times without the zone they are in cannot be read: refused, not given a zone Quarry chose.
  assert.throws(
    () => toForecastRecord(200, { daily: { time: ["2025-06-01"] }, daily_units: { time: "iso8601" } }, enschede, "daily", "metric"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /no timezone/.test(e.message),
  );
});

test("WMO codes as Open-Meteo documents them", () => {
  assert.equal(weatherText(0), "clear sky");
  assert.equal(weatherText(63), "moderate rain");
  assert.equal(weatherText(99), "thunderstorm with heavy hail");
  assert.equal(weatherText(4), undefined);
});
