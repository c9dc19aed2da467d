/**
 * weather.forecast end to end over HTTP against the replay upstream (its design is documented in
 * docs/providers.md): each field's bounds, the one-place rule at its pointers, a place name geocoded
 * (and cached) or refused at /location, coordinates, daily and hourly records with units, attribution
 * (with its link) and licence, the stored details, single-result paging without update, and the
 * customer key (OPENMETEO_API_KEY) sent as `apikey` on both hosts when set, nothing when not.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;

before(async () => {
  kit = await startCapabilityKit("weather.forecast");
});
after(async () => {
  await kit.close();
});

const calls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix.startsWith("openmeteo"));

describe("weather.forecast fields and rules", () => {
  test("bounds and enums are violations at their pointers", async () => {
    await kit.expectViolation({ location: "" }, "/location", /at least 1 character/);
    await kit.expectViolation({ location: " \u200b " }, "/location", /must not be blank/);
    await kit.expectViolation({ location: "x".repeat(201) }, "/location", /at most 200/);
    await kit.expectViolation({ coordinates: { lat: 91, lon: 0 } }, "/coordinates/lat");
    await kit.expectViolation({ coordinates: { lat: 0, lon: -180.5 } }, "/coordinates/lon");
    await kit.expectViolation({ coordinates: { lat: 0 } }, "/coordinates/lon", /required/);
    await kit.expectViolation({ coordinates: { lat: 0, lon: 0, alt: 3 } }, "/coordinates/alt", /unknown field/);
    await kit.expectViolation({ location: "Enschede", days: 0 }, "/days");
    await kit.expectViolation({ location: "Enschede", days: 17 }, "/days");
    await kit.expectViolation({ location: "Enschede", days: 1.5 }, "/days");
    await kit.expectViolation({ location: "Enschede", granularity: "weekly" }, "/granularity", /must be one of "daily", "hourly"/);
    await kit.expectViolation({ location: "Enschede", units: "kelvin" }, "/units", /must be one of "metric", "imperial"/);
  });

  test("exactly one of location or coordinates: none at the body, both at the second", async () => {
    const none = await kit.expectViolation({ days: 3 }, "", /No place given/);
    assert.equal(none.length, 1);
    await kit.expectViolation({ location: "Enschede", coordinates: { lat: 52.27, lon: 6.89 } }, "/coordinates", /cannot be combined with `location`/);
  });

  test("a place name that does not geocode is refused at /location, charged nothing", async () => {
    const used = await kit.used();
    const violations = await kit.expectViolation({ location: "Atlantis" }, "/location", /"Atlantis" did not match any place/);
    assert.equal(violations.length, 1);
    assert.equal(await kit.used(), used);
  });
});

describe("weather.forecast answers", () => {
  test("a place name: geocoded on the geocoding host (then cached), forecast at its coordinates, one free record", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ location: "Enschede" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.result_count, 1);
    assert.equal(ex.body.has_more, false);
    assert.deepEqual(ex.body.next.actions, [], "single result: no more, no update");
    assert.deepEqual(ex.body.record_actions, ["details"]);
    assert.equal(ex.body.charged_credits, 0);
    const [record] = ex.body.results;
    assert.equal(record.title, "3-day forecast for Enschede, Overijssel, The Netherlands");
    assert.deepEqual(record.location, { name: "Enschede", admin1: "Overijssel", country: "The Netherlands", latitude: 52.21833, longitude: 6.89583 });
    assert.equal(record.timezone, "Europe/Amsterdam");
    assert.equal(record.granularity, "daily");
    assert.deepEqual(record.series.temperature_2m_min, [8.4, 11.2, 10.5]);
    assert.equal(record.units.precipitation_sum, "mm");
    assert.equal(record.truncated, false);
    assert.equal(record.attribution, "Weather data by Open-Meteo.com");
    assert.equal(record.attribution_url, "https://open-meteo.com/");
    assert.deepEqual(record.licence, { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" });

    const sent = calls(from);
    assert.deepEqual(
      sent.map((r) => r.path),
      ["/openmeteo-geocoding/v1/search", "/openmeteo/v1/forecast"],
    );
    // The kit sets every key variable: OPENMETEO_API_KEY (the customer key) goes as `apikey` on both hosts.
    assert.deepEqual(sent[0]?.query, { name: "Enschede", count: "1", language: "en", format: "json", apikey: "demo-key" });
    assert.deepEqual(sent[1]?.query, {
      apikey: "demo-key",
      latitude: "52.21833",
      longitude: "6.89583",
      daily: "weather_code,temperature_2m_max,temperature_2m_min,precipitation_sum,precipitation_probability_max,wind_speed_10m_max,sunrise,sunset",
      forecast_days: "7",
      timezone: "auto",
      temperature_unit: "celsius",
      wind_speed_unit: "kmh",
      precipitation_unit: "mm",
    });

    const again = kit.h.replay.requests.length;
    const cached = await kit.execute({ location: "  enschede " });
    assert.equal(cached.status, 200, JSON.stringify(cached.body));
    assert.deepEqual(
      calls(again).map((r) => r.path),
      ["/openmeteo/v1/forecast"],
      "the place name is not geocoded again",
    );
  });

  test("coordinates, hourly, imperial, 3 days: no geocoding; the hours with their units", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ coordinates: { lat: 52.27, lon: 6.89 }, granularity: "hourly", days: 3, units: "imperial" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const [record] = ex.body.results;
    assert.deepEqual(record.location, { latitude: 52.27, longitude: 6.89 });
    assert.equal(record.granularity, "hourly");
    assert.deepEqual(record.series.time, ["2026-10-03T00:00", "2026-10-03T01:00", "2026-10-03T02:00"]);
    assert.equal(record.units.temperature_2m, "°C", "the recorded body's own unit (it was recorded in metric)");
    const sent = calls(from);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.query.hourly, "weather_code,temperature_2m,relative_humidity_2m,precipitation,precipitation_probability,wind_speed_10m");
    assert.equal(sent[0]?.query.forecast_days, "3");
    assert.equal(sent[0]?.query.temperature_unit, "fahrenheit");
    assert.equal(sent[0]?.query.wind_speed_unit, "mph");
    assert.equal(sent[0]?.query.precipitation_unit, "inch");
  });

  test("details: the stored forecast, free, no provider call; more and update are refused", async () => {
    const ex = await kit.execute({ location: "Enschede" });
    const from = kit.h.replay.requests.length;
    const res = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.cached, true);
    assert.equal(res.body.charged_credits, 0);
    assert.deepEqual(res.body.detail.grid, { latitude: 52.276, longitude: 6.8729997, elevation_m: 29 });
    assert.deepEqual(res.body.detail.conditions, ["overcast", "overcast", "overcast"]);
    assert.equal(res.body.detail.attribution, "Weather data by Open-Meteo.com");
    assert.equal(res.body.detail.attribution_url, "https://open-meteo.com/");
    assert.deepEqual(res.body.detail.licence, { name: "CC BY 4.0", url: "https://creativecommons.org/licenses/by/4.0/" });
    assert.ok(res.body.links.some((l: { url: string }) => l.url === "https://open-meteo.com/"), "res.body.links.some((l: { url: string }) => l.url === \"https://open-meteo.com/\")");
    assert.equal(calls(from).length, 0);

    const more = await kit.more(ex.body.search_id);
    assert.equal(more.status, 400);
    assert.match(more.body.error.violations[0].message, /single result; more is not offered/);
    const update = await kit.update(ex.body.search_id, { days: 3 });
    assert.equal(update.status, 400);
    assert.match(update.body.error.violations[0].message, /does not offer update/);
  });

  test("without OPENMETEO_API_KEY the free API is asked keyless (no `apikey`), and answers the same", async () => {
    const keyless = await startCapabilityKit("weather.forecast", { env: { OPENMETEO_API_KEY: "" } });
    try {
      const ex = await keyless.execute({ location: "Enschede" });
      assert.equal(ex.status, 200, JSON.stringify(ex.body));
      const sent = keyless.h.replay.requests.filter((r) => r.prefix.startsWith("openmeteo"));
      assert.equal(sent.length, 2);
      assert.ok(sent.every((r) => !("apikey" in r.query)), JSON.stringify(sent.map((r) => r.query)));
      assert.equal(ex.body.results[0].attribution_url, "https://open-meteo.com/");
    } finally {
      await keyless.close();
    }
  });

  test("an Open-Meteo failure is 502 provider_error, never an empty forecast", async () => {
    kit.h.replay.setFault("openmeteo", { kind: "status", status: 500, times: 3 });
    try {
      const res = await kit.execute({ coordinates: { lat: 52.27, lon: 6.89 } });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
    } finally {
      kit.h.replay.setFault("openmeteo", null);
    }
  });
});
