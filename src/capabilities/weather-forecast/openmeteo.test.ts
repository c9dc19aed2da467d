// Open-Meteo mappers for weather.forecast with the recorded Enschede answers, each checked against its
// declared answer first: the requests (variables, days, units, time zone), the geocoding answer and
// its empty form, the record (series with units, attribution with its link, licence) and its stored
// detail, hourly truncation, Open-Meteo's error answers (refusals) and drifted answers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import {
  openMeteoForecast,
  openMeteoGeocoding,
  openMeteoProbe,
  openMeteoRefusal,
  parseGeocoding,
  SUMMARY_HOURS,
  toForecastRecord,
  toForecastRequest,
  toGeocodingRequest,
} from "./openmeteo.ts";
import { weatherText } from "./wmo.ts";

const forecast = fixture("openmeteo", "forecast.json") as Record<string, unknown>;
const daily = checkShape("openmeteo", openMeteoForecast.daily, forecast);
const hourly = checkShape("openmeteo", openMeteoForecast.hourly, forecast);
const enschede = { name: "Enschede", admin1: "Overijssel", country: "The Netherlands", latitude: 52.21833, longitude: 6.89583 };

test("geocoding: GET /v1/search on the geocoding host; the first result; the answer holding only its timing means no match", () => {
  const request = toGeocodingRequest("Enschede");
  assert.deepEqual(
    { provider: request.provider, host: request.host, method: request.method, path: request.path, query: request.query, response: request.response },
    {
      provider: "openmeteo",
      host: "geocoding",
      method: "GET",
      path: "/v1/search",
      query: { name: "Enschede", count: 1, language: "en", format: "json" },
      response: openMeteoGeocoding,
    },
  );
  assert.deepEqual(parseGeocoding(checkShape("openmeteo", openMeteoGeocoding, fixture("openmeteo", "geocoding_search.json"))), enschede);
  // The empty answer is recognised before the shape check and passed on unchecked.
  const empty = fixture("openmeteo", "geocoding_search_empty.json");
  assert.equal(request.refusal?.(empty, 200, {}), "no_results");
  checkJsonAnswer(request, 200, empty);
  assert.equal(parseGeocoding(empty as never), null);
  assert.throws(
    () => checkJsonAnswer(request, 400, { error: true, reason: "Parameter count must be between 1 and 100." }),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /count must be/.test(e.message),
  );
  assert.equal(openMeteoProbe.provider, "openmeteo");
  assert.equal(openMeteoProbe.request.response, openMeteoGeocoding);
});

test("geocoding drift: a renamed `results` is not read as no match, a renamed latitude is named", () => {
  const request = toGeocodingRequest("Enschede");
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^Open-Meteo answered in a shape Quarry does not read/.test(e.message);
  const { results, ...rest } = fixture("openmeteo", "geocoding_search.json") as { results: Record<string, unknown>[] };
  assert.throws(() => checkJsonAnswer(request, 200, { ...rest, locations: results }), drift("/results"));
  const { latitude, ...place } = results[0]!;
  assert.throws(() => checkJsonAnswer(request, 200, { ...rest, results: [{ ...place, lat: latitude }] }), drift("/results/0/latitude"));
  assert.throws(() => checkJsonAnswer(request, 200, {}), drift("/results"), "an empty object is not the documented no-match answer");
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
  const record = toForecastRecord(daily, enschede, "daily", "metric");
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
  assert.equal(s.attribution_url, "https://open-meteo.com/");
  assert.deepEqual(s.licence, { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" });
  assert.equal("current_weather" in series, false, "only the asked granularity's block");
  const detail = record.detail!;
  assert.deepEqual(detail.grid, { latitude: 52.276, longitude: 6.8729997, elevation_m: 29 });
  assert.equal(detail.utc_offset_seconds, 7200);
  assert.equal(detail.timezone_abbreviation, "GMT+2");
  assert.deepEqual(detail.conditions, ["overcast", "overcast", "overcast"]);
  assert.deepEqual(detail.series, s.series);
  assert.deepEqual([detail.attribution, detail.attribution_url, detail.licence], [s.attribution, s.attribution_url, s.licence]);
  assert.ok(record.links?.some((l) => l.url === "https://open-meteo.com/"), "record.links?.some((l) => l.url === \"https://open-meteo.com/\")");
});

test("the hourly record for coordinates: the recorded hours; a long series shows its first 48 hours and `truncated`", () => {
  const point = { latitude: 52.27, longitude: 6.89 };
  const record = toForecastRecord(hourly, point, "hourly", "metric");
  assert.equal(record.summary.title, "Hourly forecast for 52.27,6.89 (3 hours)");
  assert.deepEqual(record.summary.location, point);
  assert.deepEqual((record.summary.series as Record<string, unknown[]>).time, ["2026-10-03T00:00", "2026-10-03T01:00", "2026-10-03T02:00"]);
  assert.equal(record.summary.truncated, false);

  // 16 days of hours (a body shaped like Open-Meteo's, built here).
  const hours = Array.from({ length: 384 }, (_, i) => `2026-10-${String(3 + Math.floor(i / 24)).padStart(2, "0")}T${String(i % 24).padStart(2, "0")}:00`);
  const long = { timezone: "UTC", hourly_units: { time: "iso8601", temperature_2m: "°F" }, hourly: { time: hours, temperature_2m: hours.map((_, i) => (i === 5 ? null : i)) } };
  const cut = toForecastRecord(checkShape("openmeteo", openMeteoForecast.hourly, long), point, "hourly", "imperial");
  const shown = cut.summary.series as Record<string, unknown[]>;
  assert.equal(shown.time?.length, SUMMARY_HOURS);
  assert.equal(shown.temperature_2m?.[5], null);
  assert.equal(cut.summary.truncated, true);
  assert.equal(cut.summary.title, "Hourly forecast for 52.27,6.89 (384 hours)");
  assert.equal(((cut.detail!.series as Record<string, unknown[]>).time ?? []).length, 384);
  assert.equal(cut.detail!.unit_system, "imperial");
});

test("errors: Open-Meteo's 400 reason is provider_error (a refusal); a body without the series, its time or a timezone is drift naming it", () => {
  const request = toForecastRequest(enschede, 7, "daily", "metric");
  assert.equal(request.response, openMeteoForecast.daily);
  assert.equal(toForecastRequest(enschede, 7, "hourly", "metric").response, openMeteoForecast.hourly);
  assert.throws(
    () => checkJsonAnswer(request, 400, { error: true, reason: "Forecast days is invalid." }),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /Forecast days is invalid/.test(e.message),
  );
  assert.equal(openMeteoRefusal(forecast, 200), undefined);
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer;
  assert.throws(() => checkJsonAnswer(request, 200, { timezone: "UTC" }), drift("/daily"));
  assert.throws(() => checkJsonAnswer(request, 200, { timezone: "UTC", daily: { times: ["2025-06-01"] } }), drift("/daily/time"));
  assert.throws(() => checkJsonAnswer(request, 200, { timezone: "UTC", daily: { time: ["2025-06-01"], temperature_2m_max: [{ v: 1 }] } }), drift("/daily/temperature_2m_max/0"));
  // Local times without the zone they are in cannot be read: refused, not given a zone Quarry chose.
  assert.throws(() => checkJsonAnswer(request, 200, { daily: { time: ["2025-06-01"] }, daily_units: { time: "iso8601" } }), drift("/timezone"));
});

test("WMO codes as Open-Meteo documents them", () => {
  assert.equal(weatherText(0), "clear sky");
  assert.equal(weatherText(63), "moderate rain");
  assert.equal(weatherText(99), "thunderstorm with heavy hail");
  assert.equal(weatherText(4), undefined);
});
