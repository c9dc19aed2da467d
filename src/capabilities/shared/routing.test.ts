// The routing engines' mappers with their recorded answers: openrouteservice directions and matrix,
// OSRM route (recorded without steps; the documented RouteStep example with them) and table, each
// checked against its declared answer first; their refusals as provider_error, drifted answers as
// ProviderDrift, and what records take from them (via roads, matrix cells, the credit line).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import { orsDirections, orsMatrix, orsProbe, orsRefusal, parseOrsDirections, parseOrsMatrix, toOrsDirectionsRequest, toOrsMatrixRequest } from "./ors.ts";
import { osrmInstruction, osrmProbe, osrmRefusal, osrmRoute, osrmTable, parseOsrmRoute, parseOsrmTable, toOsrmRouteRequest, toOsrmTableRequest } from "./osrm.ts";
import { creditOf, demoEngineNotes, durationText, ORS_ENGINE, OSRM_ENGINE, readMatrix, viaOf } from "./routing.ts";

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
  const [route, ...others] = parseOrsDirections(checkShape("ors", orsDirections, fixture("ors", "directions_json.json")));
  assert.equal(others.length, 0);
  assert.equal(route?.distance_m, 93528);
  assert.equal(route?.duration_s, 4540.8);
  assert.equal(route?.steps.length, 43);
  assert.deepEqual(route?.steps[0], { instruction: "Head west on Neue Straße", distance_m: 446.1, duration_s: 101.1, name: "Neue Straße" });
  assert.ok(route?.steps.every((s) => s.name !== "-"), "route?.steps.every((s) => s.name !== \"-\")");
  assert.deepEqual(route && viaOf(route), ["B 10", "A 8"]);
});

test("ORS refusals (an error body at any status, the gateway's string error) are provider_error with ORS's words, before the shape check", () => {
  const refusal = { error: { code: 2010, message: "Could not find routable point within a radius of 350.0 meters of specified coordinate 0" } };
  const directions = toOrsDirectionsRequest([ulm, stuttgart], "driving", false);
  assert.throws(() => checkJsonAnswer(directions, 404, refusal), providerError(/routable point/));
  assert.throws(() => checkJsonAnswer(toOrsMatrixRequest([ulm, stuttgart], "driving"), 400, { error: "Parameter 'locations' has incorrect value" }), providerError(/incorrect value/));
  assert.throws(() => checkJsonAnswer(directions, 403, { error: "Access to this API has been disallowed" }), providerError(/disallowed/));
  assert.equal(orsRefusal(fixture("ors", "directions_json.json"), 200), undefined);
  assert.throws(() => parseOrsDirections({ routes: [] }), providerError(/no route/));
});

test("ORS answers in another shape are drift naming the field: a renamed routes, steps, instruction or distances", () => {
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^openrouteservice answered in a shape/.test(e.message);
  const directions = fixture("ors", "directions_json.json") as { routes: { segments: { steps: Record<string, unknown>[] }[] }[] };
  assert.throws(() => checkShape("ors", orsDirections, { routes_v3: directions.routes }), drift("/routes"));
  const step = directions.routes[0]!.segments[0]!.steps[0]!;
  step.text = step.instruction;
  delete step.instruction;
  assert.throws(() => checkShape("ors", orsDirections, directions), drift("/routes/0/segments/0/steps/0/instruction"));
  const { distances, ...rest } = fixture("ors", "matrix_distances_km.json") as Record<string, unknown>;
  assert.throws(() => checkShape("ors", orsMatrix, { ...rest, distance_matrix: distances }), drift("/distances"));
  assert.throws(() => checkShape("ors", orsMatrix, { distances: [[0, "12.5"]] }), drift("/distances/0/1"));
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
  const recorded = checkShape("ors", orsMatrix, fixture("ors", "matrix_distances_km.json"));
  const matrix = parseOrsMatrix(recorded, 2);
  assert.deepEqual(matrix.distances_km, [
    [0, 382.56],
    [383.1, 0],
  ]);
  assert.equal(matrix.durations_s, undefined);
  assert.throws(() => parseOrsMatrix(recorded, 3), providerError(/wrong size/));
});

test("OSRM route: GET /route/v1/driving/{lon,lat;…} with steps; the recording without steps keeps its length and time", () => {
  const request = toOsrmRouteRequest([ulm, stuttgart], false);
  assert.equal(request.path, "/route/v1/driving/9.9934336,48.3974003;9.1800132,48.7784485");
  assert.deepEqual(request.query, { overview: "false", steps: "true", alternatives: "false" });
  const [route] = parseOsrmRoute(checkShape("osrm", osrmRoute, fixture("osrm", "route_polyline6.json")));
  assert.equal(route?.distance_m, 4731.8);
  assert.equal(route?.duration_s, 630.7);
  assert.deepEqual(route?.steps, []);
  assert.equal(route && viaOf(route), undefined, "no steps and empty leg summaries: no via");
});

test("OSRM route steps (the documented RouteStep example): instructions composed from maneuver and road name", () => {
  const [route] = parseOsrmRoute(checkShape("osrm", osrmRoute, fixture("osrm", "route_documented_steps.json")));
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
  const matrix = parseOsrmTable(checkShape("osrm", osrmTable, fixture("osrm", "table_square.json")), 5);
  assert.deepEqual(matrix.durations_s?.[0], [0, 1559.9, 4192.8, 9858.4, 7679.7]);
  assert.equal(matrix.distances_km, undefined);
  assert.throws(() => checkJsonAnswer(toOsrmRouteRequest([ulm, stuttgart], false), 400, { code: "NoRoute", message: "Impossible route between points" }), providerError(/Impossible route/));
  assert.throws(() => checkJsonAnswer(request, 400, { code: "InvalidQuery" }), providerError(/InvalidQuery/));
  assert.equal(osrmRefusal(fixture("osrm", "table_square.json")), undefined);
});

test("every OSRM recording fits its declared answer; a renamed routes, legs, maneuver or durations is drift naming it", () => {
  for (const name of ["route_polyline6", "route_simple_polyline5", "route_documented_steps"]) checkShape("osrm", osrmRoute, fixture("osrm", `${name}.json`));
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^OSRM public demo server answered in a shape/.test(e.message);
  const route = fixture("osrm", "route_documented_steps.json") as { routes: { legs: { steps: Record<string, unknown>[] }[] }[] };
  const step = route.routes[0]!.legs[0]!.steps[0]!;
  step.maneuvre = step.maneuver;
  delete step.maneuver;
  assert.throws(() => checkShape("osrm", osrmRoute, route), drift("/routes/0/legs/0/steps/0/maneuver"));
  const { durations, ...table } = fixture("osrm", "table_square.json") as Record<string, unknown>;
  assert.throws(() => checkShape("osrm", osrmTable, { ...table, duration_matrix: durations }), drift("/durations"));
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

test("the credit line: the engine's and OpenStreetMap's (ODbL), and Nominatim's when a place name was geocoded", () => {
  assert.equal(creditOf(ORS_ENGINE, [{ ...ulm, label: "Ulm" }]), ORS_ENGINE);
  const geocoded = creditOf(OSRM_ENGINE, [{ ...ulm, label: "48.3974,9.993434" }, { ...stuttgart, label: "Stuttgart", geocoded: true }]);
  assert.equal(geocoded.attribution, "Routing: OSRM (Project OSRM public demo server) | Map data © OpenStreetMap contributors | Geocoding: Nominatim (OpenStreetMap)");
  assert.deepEqual({ license: geocoded.license, license_url: geocoded.license_url }, { license: "ODbL-1.0 (OpenStreetMap data)", license_url: "https://www.openstreetmap.org/copyright" });
  assert.match(ORS_ENGINE.attribution, /^© openrouteservice\.org by HeiGIT \| Map data © OpenStreetMap contributors$/);
});

test("the probes are one cheap request each, built by the adapters with their declared answers", () => {
  assert.equal(orsProbe.provider, "ors");
  assert.equal(orsProbe.request.response, orsDirections);
  assert.equal((orsProbe.request.body as { coordinates: unknown[] }).coordinates.length, 2);
  assert.equal(osrmProbe.provider, "osrm");
  assert.equal(osrmProbe.request.response, osrmRoute);
  assert.equal(osrmProbe.request.query?.alternatives, "false");
});
