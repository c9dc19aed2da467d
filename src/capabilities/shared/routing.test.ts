// The routing engines' mappers with their recorded answers: openrouteservice directions and matrix,
// OSRM route (recorded without steps; the documented RouteStep example with them) and table, their
// refusals as provider_error, and what records take from them (via roads, matrix cells).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { parseOrsDirections, parseOrsMatrix, toOrsDirectionsRequest, toOrsMatrixRequest } from "./ors.ts";
import { osrmInstruction, parseOsrmRoute, parseOsrmTable, toOsrmRouteRequest, toOsrmTableRequest } from "./osrm.ts";
import { demoEngineNotes, durationText, readMatrix, viaOf } from "./routing.ts";

const ulm = { lat: 48.3974003, lon: 9.9934336 };
const stuttgart = { lat: 48.7784485, lon: 9.1800132 };
const providerError = (pattern: RegExp) => (e: unknown) => e instanceof ApiError && e.code === "provider_error" && pattern.test(e.message);

test("ORS directions: POST /v2/directions/{profile}/json with [lon, lat], instructions on, geometry off", () => {
  const request = toOrsDirectionsRequest([ulm, stuttgart], "cycling", true);
  assert.equal(request.provider, "ors");
  assert.equal(request.method, "POST");
  assert.equal(request.path, "/v2/directions/cycling-regular/json");
  assert.deepEqual(request.body, {
    coordinates: [
      [9.9934336, 48.3974003],
      [9.1800132, 48.7784485],
    ],
    instructions: true,
    geometry: false,
    units: "m",
    alternative_routes: { target_count: 3 },
  });
  assert.equal(toOrsDirectionsRequest([ulm, stuttgart], "walking", false).path, "/v2/directions/foot-walking/json");
  assert.equal("alternative_routes" in (toOrsDirectionsRequest([ulm, stuttgart], "driving", false).body as object), false);
});

test("ORS directions: the recorded Ulm → Stuttgart route, 43 steps with ORS's instructions; unnamed ways (-) have no name", () => {
  const [route, ...others] = parseOrsDirections(200, fixture("ors", "directions_json.json"));
  assert.equal(others.length, 0);
  assert.equal(route?.distance_m, 93528);
  assert.equal(route?.duration_s, 4540.8);
  assert.equal(route?.steps.length, 43);
  assert.deepEqual(route?.steps[0], { instruction: "Head west on Neue Straße", distance_m: 446.1, duration_s: 101.1, name: "Neue Straße" });
  assert.ok(route?.steps.every((s) => s.name !== "-"));
  assert.deepEqual(route && viaOf(route), ["B 10", "A 8"]);
});

test("ORS refusals (an error body, HTTP 4xx) are provider_error with ORS's words", () => {
  const refusal = { error: { code: 2010, message: "Could not find routable point within a radius of 350.0 meters of specified coordinate 0" } };
  assert.throws(() => parseOrsDirections(404, refusal), providerError(/routable point/));
  assert.throws(() => parseOrsDirections(200, { routes: [] }), providerError(/no route/));
  assert.throws(() => parseOrsMatrix(400, { error: "Parameter 'locations' has incorrect value" }, 2), providerError(/incorrect value/));
});

test("ORS matrix: distances and durations asked in km; the recording (distances only) leaves durations absent", () => {
  const request = toOrsMatrixRequest([ulm, stuttgart], "driving");
  assert.equal(request.path, "/v2/matrix/driving-car");
  assert.deepEqual(request.body, {
    locations: [
      [9.9934336, 48.3974003],
      [9.1800132, 48.7784485],
    ],
    metrics: ["distance", "duration"],
    units: "km",
  });
  const matrix = parseOrsMatrix(200, fixture("ors", "matrix_distances_km.json"), 2);
  assert.deepEqual(matrix.distances_km, [
    [0, 382.56],
    [383.1, 0],
  ]);
  assert.equal(matrix.durations_s, undefined);
  assert.throws(() => parseOrsMatrix(200, fixture("ors", "matrix_distances_km.json"), 3), providerError(/wrong size/));
});

test("OSRM route: GET /route/v1/driving/{lon,lat;…} with steps; the recording without steps keeps its length and time", () => {
  const request = toOsrmRouteRequest([ulm, stuttgart], false);
  assert.equal(request.path, "/route/v1/driving/9.9934336,48.3974003;9.1800132,48.7784485");
  assert.deepEqual(request.query, { overview: "false", steps: "true", alternatives: "false" });
  const [route] = parseOsrmRoute(fixture("osrm", "route_polyline6.json"));
  assert.equal(route?.distance_m, 4731.8);
  assert.equal(route?.duration_s, 630.7);
  assert.deepEqual(route?.steps, []);
  assert.equal(route && viaOf(route), undefined, "no steps and empty leg summaries: no via");
});

test("OSRM route steps (the documented RouteStep example): instructions composed from maneuver and road name", () => {
  const [route] = parseOsrmRoute(fixture("osrm", "route_documented_steps.json"));
  assert.deepEqual(route?.steps, [
    { instruction: "Turn right onto Lortzingstraße", distance_m: 152.3, duration_s: 15.6, name: "Lortzingstraße" },
    { instruction: "Arrive at the destination", distance_m: 0, duration_s: 0, name: "Lortzingstraße" },
  ]);
  assert.deepEqual(route && viaOf(route), ["Lortzingstraße"]);
  assert.equal(osrmInstruction("depart", undefined, "Neue Straße"), "Head out on Neue Straße");
  assert.equal(osrmInstruction("roundabout", "right", "A 8", 2), "Enter the roundabout and take exit 2 onto A 8");
  assert.equal(osrmInstruction("fork", "slight left", undefined), "Keep slight left");
  assert.equal(osrmInstruction("weird", undefined, undefined), "Continue");
});

test("OSRM table: durations in seconds as recorded, distances absent; an error code is provider_error", () => {
  const request = toOsrmTableRequest([ulm, stuttgart]);
  assert.equal(request.path, "/table/v1/driving/9.9934336,48.3974003;9.1800132,48.7784485");
  assert.deepEqual(request.query, { annotations: "duration,distance" });
  const matrix = parseOsrmTable(fixture("osrm", "table_square.json"), 5);
  assert.deepEqual(matrix.durations_s?.[0], [0, 1559.9, 4192.8, 9858.4, 7679.7]);
  assert.equal(matrix.distances_km, undefined);
  assert.throws(() => parseOsrmRoute({ code: "NoRoute", message: "Impossible route between points" }), providerError(/Impossible route/));
  assert.throws(() => parseOsrmTable({ code: "InvalidQuery" }, 2), providerError(/InvalidQuery/));
});

test("matrix cells: null stays null (no route), metres scale to km, a ragged matrix is provider_error", () => {
  assert.deepEqual(readMatrix([[0, null], [1500, 0]], 2, 0.001, "OSRM", "distance"), [
    [0, null],
    [1.5, 0],
  ]);
  assert.equal(readMatrix(undefined, 2, 1, "OSRM", "distance"), undefined);
  assert.throws(() => readMatrix([[0, 1], [1]], 2, 1, "OSRM", "duration"), providerError(/wrong size/));
});

test("the demo-engine note says car only and no service level, and names a mode that was not applied", () => {
  assert.equal(demoEngineNotes("driving").length, 1);
  assert.match(demoEngineNotes("driving")[0] ?? "", /car profile only, no service-level guarantee/);
  assert.match(demoEngineNotes("walking")[1] ?? "", /`mode: walking` was not applied/);
  assert.equal(durationText(75.7), "1 h 16 min");
  assert.equal(durationText(45), "45 min");
  assert.equal(durationText(120), "2 h");
  assert.equal(durationText(0.2), "under 1 min");
});
