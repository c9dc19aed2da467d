/**
 * navigation.route and navigation.matrix end to end over HTTP against the replay upstream: each
 * field's bounds, place names geocoded with Nominatim (once, then cached) or refused at their
 * pointers, the geocoding budget refused before anything is sent, openrouteservice's answers with
 * `engine`/`attribution`/`license`/`license_url` (Nominatim credited when a name was geocoded), the OSRM
 * fallback with its notes (car only, a mode
 * not applied), alternatives, stored route details, null matrix cells, and single-result paging.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;

before(async () => {
  kit = await startCapabilityKit("navigation.route");
});
after(async () => {
  await kit.close();
});

const ulm = { lat: 48.3974003, lon: 9.9934336 };
const stuttgart = { lat: 48.7784485, lon: 9.1800132 };
/** The recorded OSRM route's two points (fixtures/providers/osrm, route_simple_polyline5). */
const osrmA = { lat: 21.9598, lon: 41.5332 };
const osrmB = { lat: 21.3114, lon: 41.9725 };
/** The recorded OSRM table's five points (table_square). */
const tablePoints = [
  { lat: 42.004088575972, lon: 21.0566163803209 },
  { lat: 42.0094518118189, lon: 21.3856064050746 },
  { lat: 41.5286973392856, lon: 20.9574645547597 },
  { lat: 41.0691482795275, lon: 21.1477394809847 },
  { lat: 41.3532256406286, lon: 21.5506463080973 },
];

const calls = (prefix: string, from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === prefix);
const matrix = (body: unknown) => kit.h.call("POST", "/v1/capabilities/navigation.matrix/execute", { key: kit.key, body });
const expect400 = async (res: Awaited<ReturnType<typeof matrix>>, pointer: string, message?: RegExp) => {
  assert.equal(res.status, 400, JSON.stringify(res.body));
  const hit = res.body.error.violations.find((v: { path: string; message: string }) => v.path === pointer && (!message || message.test(v.message)));
  assert.ok(hit, `a violation at ${pointer}: ${JSON.stringify(res.body.error.violations)}`);
  return res.body.error.violations as { path: string; message: string }[];
};

/** Fail openrouteservice for one call (the first attempt and both retries). */
async function withOrsDown<T>(run: () => Promise<T>): Promise<T> {
  kit.h.replay.setFault("ors", { kind: "status", status: 503, times: 3 });
  try {
    return await run();
  } finally {
    kit.h.replay.setFault("ors", null);
  }
}

describe("navigation fields", () => {
  test("route: bounds and types are violations at their pointers", async () => {
    await kit.expectViolation({ origin: ulm }, "/destination", /required/);
    await kit.expectViolation({ origin: "", destination: stuttgart }, "/origin", /at least 1 character/);
    await kit.expectViolation({ origin: "\u200b", destination: stuttgart }, "/origin", /must not be blank/);
    await kit.expectViolation({ origin: "x".repeat(301), destination: stuttgart }, "/origin", /at most 300/);
    await kit.expectViolation({ origin: { lat: 91, lon: 0 }, destination: stuttgart }, "/origin/lat");
    await kit.expectViolation({ origin: ulm, destination: { lat: 0, lon: 181 } }, "/destination/lon");
    await kit.expectViolation({ origin: { lat: 1 }, destination: stuttgart }, "/origin/lon", /required/);
    await kit.expectViolation({ origin: 42, destination: stuttgart }, "/origin", /must be/);
    const eleven = Array.from({ length: 11 }, () => ulm);
    await kit.expectViolation({ origin: ulm, destination: stuttgart, waypoints: eleven }, "/waypoints");
    await kit.expectViolation({ origin: ulm, destination: stuttgart, waypoints: [ulm, { lat: -91, lon: 0 }] }, "/waypoints/1/lat");
    await kit.expectViolation({ origin: ulm, destination: stuttgart, mode: "flying" }, "/mode", /must be one of "driving", "walking", "cycling"/);
    await kit.expectViolation({ origin: ulm, destination: stuttgart, alternatives: "yes" }, "/alternatives", /boolean/);
    await kit.expectViolation({ origin: ulm, destination: stuttgart, avoid: "tolls" }, "/avoid", /unknown field/);
  });

  test("matrix: 2 to 25 locations, each a place; mode as for routes", async () => {
    await expect400(await matrix({}), "/locations", /required/);
    await expect400(await matrix({ locations: [ulm] }), "/locations");
    await expect400(await matrix({ locations: Array.from({ length: 26 }, () => ulm) }), "/locations");
    await expect400(await matrix({ locations: [ulm, { lat: 0, lon: 200 }] }), "/locations/1/lon");
    await expect400(await matrix({ locations: [ulm, ""] }), "/locations/1");
    await expect400(await matrix({ locations: [ulm, stuttgart], mode: "sailing" }), "/mode");
  });
});

describe("navigation geocoding (Nominatim)", () => {
  test("place names are geocoded before routing, with a descriptive User-Agent, once, then from the cache", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ origin: "Gagarin", destination: "1600 Pennsylvania Avenue NW, Washington, DC, US" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const looked = calls("nominatim", from);
    assert.deepEqual(
      looked.map((r) => r.query),
      [
        { format: "jsonv2", q: "Gagarin", limit: "1" },
        { format: "jsonv2", q: "1600 Pennsylvania Avenue NW, Washington, DC, US", limit: "1" },
      ],
    );
    assert.match(String(looked[0]?.headers["user-agent"]), /^Quarry\/[\d.]+ \(search gateway for AI agents; /);
    const routed = calls("ors", from);
    assert.equal(routed.length, 1);
    assert.deepEqual(JSON.parse(routed[0]?.body ?? "{}").coordinates, [
      [34.9968416, 55.553306],
      [-77.0365528, 38.8976387],
    ]);
    assert.equal(ex.body.results[0].title, "Driving route: Gagarin → 1600 Pennsylvania Avenue NW, Washington, DC, US");
    // Geocoded places are OpenStreetMap data too (ODbL): the credit line names Nominatim beside the engine.
    assert.equal(ex.body.results[0].attribution, "© openrouteservice.org by HeiGIT | Map data © OpenStreetMap contributors | Geocoding: Nominatim (OpenStreetMap)");
    assert.equal(ex.body.results[0].license, "ODbL-1.0 (OpenStreetMap data)");
    const details = await kit.action(ex.body.results[0].record_id, "details");
    assert.match(details.body.detail.places[1].matched, /^White House/);
    assert.equal(details.body.detail.attribution, ex.body.results[0].attribution);

    const again = kit.h.replay.requests.length;
    const cached = await kit.execute({ origin: "gagarin", destination: stuttgart });
    assert.equal(cached.status, 200, JSON.stringify(cached.body));
    assert.equal(calls("nominatim", again).length, 0, "a name already looked up is not asked again");
  });

  test("names that do not geocode are refused at their pointers before routing, charged nothing", async () => {
    const from = kit.h.replay.requests.length;
    const used = await kit.used();
    const res = await kit.execute({ origin: "Nowhere Special", destination: stuttgart, waypoints: [ulm, "Atlantis"] });
    const violations = await expect400(res, "/origin", /"Nowhere Special" did not match any place/);
    assert.deepEqual(
      violations.map((v) => v.path),
      ["/origin", "/waypoints/1"],
    );
    assert.equal(calls("ors", from).length + calls("osrm", from).length, 0, "no routing was asked");
    await expect400(await matrix({ locations: [ulm, stuttgart, "Atlantis"] }), "/locations/2", /did not match/);
    assert.equal(await kit.used(), used);
  });

  test("more new names than fit in the deadline are refused at once, at the names that do not fit, nothing sent", async () => {
    const from = kit.h.replay.requests.length;
    const names = Array.from({ length: 13 }, (_, i) => `Budget town ${i}`);
    const res = await matrix({ locations: names });
    const violations = await expect400(res, "/locations/12", /13 place names .* at most 12 fit within the deadline/);
    assert.equal(violations.length, 1);
    assert.match(res.body.error.message, /Too many place names/);
    assert.equal(calls("nominatim", from).length, 0);
  });
});

describe("navigation.route", () => {
  test("openrouteservice answers: distance, duration, steps, via, engine and licence; details are the stored steps", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ origin: ulm, destination: stuttgart });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.charged_credits, 0);
    assert.equal(ex.body.has_more, false);
    assert.deepEqual(ex.body.next.actions, []);
    assert.equal(ex.body.notes, undefined);
    const [route] = ex.body.results;
    assert.deepEqual(
      { distance_km: route.distance_km, duration_min: route.duration_min, steps: route.steps, via: route.via },
      { distance_km: 93.53, duration_min: 75.7, steps: 43, via: ["B 10", "A 8"] },
    );
    assert.deepEqual(
      { engine: route.engine, attribution: route.attribution, license: route.license, license_url: route.license_url },
      {
        engine: "openrouteservice",
        attribution: "© openrouteservice.org by HeiGIT | Map data © OpenStreetMap contributors",
        license: "ODbL-1.0 (OpenStreetMap data)",
        license_url: "https://www.openstreetmap.org/copyright",
      },
    );
    const sent = calls("ors", from)[0];
    assert.equal(sent?.path, "/ors/v2/directions/driving-car/json");
    assert.equal(sent?.headers.authorization, "demo-key");
    assert.deepEqual(JSON.parse(sent?.body ?? "{}"), {
      coordinates: [
        [9.9934336, 48.3974003],
        [9.1800132, 48.7784485],
      ],
      instructions: true,
      geometry: false,
      units: "m",
    });

    const details = await kit.action(route.record_id, "details");
    assert.equal(details.status, 200, JSON.stringify(details.body));
    assert.equal(details.body.cached, true);
    assert.equal(details.body.charged_credits, 0);
    assert.equal(details.body.detail.steps.length, 43);
    assert.deepEqual(details.body.detail.steps[0], { instruction: "Head west on Neue Straße", distance_m: 446.1, duration_s: 101.1, name: "Neue Straße" });
    assert.equal(details.body.detail.license_url, "https://www.openstreetmap.org/copyright");
    assert.equal(details.body.detail.mode, "driving");

    const more = await kit.more(ex.body.search_id);
    assert.equal(more.status, 400);
    const update = await kit.update(ex.body.search_id, { mode: "walking" });
    assert.equal(update.status, 400);
    assert.match(update.body.error.violations[0].message, /does not offer update/);
  });

  test("alternatives are asked between two points; with waypoints they are not applied and a note says so", async () => {
    let from = kit.h.replay.requests.length;
    const two = await kit.execute({ origin: ulm, destination: stuttgart, alternatives: true });
    assert.equal(two.status, 200, JSON.stringify(two.body));
    assert.deepEqual(JSON.parse(calls("ors", from)[0]?.body ?? "{}").alternative_routes, { target_count: 3 });
    from = kit.h.replay.requests.length;
    const via = await kit.execute({ origin: ulm, destination: stuttgart, waypoints: [{ lat: 48.6, lon: 9.6 }], alternatives: true });
    assert.equal(via.status, 200, JSON.stringify(via.body));
    const body = JSON.parse(calls("ors", from)[0]?.body ?? "{}");
    assert.equal(body.alternative_routes, undefined);
    assert.equal(body.coordinates.length, 3);
    assert.deepEqual(via.body.notes, ["`alternatives` was not applied: alternative routes are offered only between an origin and a destination without waypoints."]);
    assert.equal(via.body.results[0].title, "Driving route: 48.3974,9.993434 → 48.6,9.6 → 48.778449,9.180013");
  });

  test("when openrouteservice fails, the OSRM demo server answers with its notes and its own credits", async () => {
    const from = kit.h.replay.requests.length;
    const ex = await withOrsDown(() => kit.execute({ origin: osrmA, destination: osrmB }));
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.deepEqual(ex.body.notes, [
      "Answered by the OSRM public demo server because openrouteservice was not available (not configured in this deployment, or it failed): car profile only, no service-level guarantee.",
    ]);
    const [route] = ex.body.results;
    assert.equal(route.engine, "osrm");
    assert.equal(route.attribution, "Routing: OSRM (Project OSRM public demo server) | Map data © OpenStreetMap contributors");
    assert.equal(route.license, "ODbL-1.0 (OpenStreetMap data)");
    assert.equal(route.distance_km, 256.88);
    assert.equal(route.duration_min, 247);
    assert.equal(route.steps, 0, "the recording was asked without steps");
    const osrm = calls("osrm", from);
    assert.equal(osrm[0]?.path, "/osrm/route/v1/driving/41.5332,21.9598;41.9725,21.3114");
    assert.deepEqual(osrm[0]?.query, { overview: "false", steps: "true", alternatives: "false" });
    assert.equal(ex.body.charged_credits, 0);
  });

  test("walking when openrouteservice cannot answer: the demo engine's car route, and a note that the mode was not applied", async () => {
    const ex = await kit.execute({ origin: { lat: 52.517037, lon: 13.38886 }, destination: { lat: 52.523219, lon: 13.428555 }, waypoints: [{ lat: 52.529407, lon: 13.397634 }], mode: "walking" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.notes.length, 2);
    assert.match(ex.body.notes[0], /car profile only, no service-level guarantee/);
    assert.equal(ex.body.notes[1], "`mode: walking` was not applied: the demo engine routes cars only, so these are driving distances and times.");
    assert.match(ex.body.results[0].title, /^Driving route: /);
    assert.equal(ex.body.results[0].distance_km, 4.73);
    const details = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(details.body.detail.mode, "driving");
    assert.equal(details.body.detail.engine, "osrm");
  });
});

describe("navigation.matrix", () => {
  test("openrouteservice's matrix: one record, distances in km, durations null where its answer has none (noted)", async () => {
    const from = kit.h.replay.requests.length;
    const res = await matrix({ locations: [{ lat: -25.459935, lon: -49.280018 }, { lat: -23.302276, lon: -50.31173 }] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.result_count, 1);
    assert.deepEqual(res.body.record_actions, []);
    assert.equal(res.body.next.example, null);
    const [record] = res.body.results;
    assert.deepEqual(record.locations, ["-25.459935,-49.280018", "-23.302276,-50.31173"]);
    assert.deepEqual(record.distances_km, [
      [0, 382.56],
      [383.1, 0],
    ]);
    assert.deepEqual(record.durations_min, [
      [null, null],
      [null, null],
    ]);
    assert.equal(record.engine, "openrouteservice");
    assert.deepEqual(res.body.notes, ["openrouteservice's answer carried no durations: every `durations_min` cell is null (unknown)."]);
    const sent = calls("ors", from)[0];
    assert.equal(sent?.path, "/ors/v2/matrix/driving-car");
    assert.deepEqual(JSON.parse(sent?.body ?? "{}").metrics, ["distance", "duration"]);

    const details = await kit.action(record.record_id, "details");
    assert.equal(details.status, 400, JSON.stringify(details.body));
    assert.equal(details.body.error.code, "invalid_request");
    const more = await kit.more(res.body.search_id);
    assert.equal(more.status, 400);
    assert.match(more.body.error.violations[0].message, /single result; more is not offered/);
    const update = await kit.update(res.body.search_id, { mode: "walking" });
    assert.equal(update.status, 400);
    assert.match(update.body.error.violations[0].message, /does not offer update/);
  });

  test("the OSRM fallback's table: durations in minutes, distances null where its answer has none, and the demo note", async () => {
    const res = await withOrsDown(() => matrix({ locations: tablePoints, mode: "cycling" }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [record] = res.body.results;
    assert.equal(record.engine, "osrm");
    assert.equal(record.locations.length, 5);
    assert.deepEqual(record.durations_min[0], [0, 26, 69.9, 164.3, 128]);
    assert.ok(record.distances_km.every((row: unknown[]) => row.length === 5 && row.every((c) => c === null)), "record.distances_km.every((row: unknown[]) => row.length === 5 && row.every((c) => c ==...");
    assert.deepEqual(res.body.notes, [
      "Answered by the OSRM public demo server because openrouteservice was not available (not configured in this deployment, or it failed): car profile only, no service-level guarantee.",
      "`mode: cycling` was not applied: the demo engine routes cars only, so these are driving distances and times.",
      "osrm's answer carried no distances: every `distances_km` cell is null (unknown).",
    ]);
  });
});
