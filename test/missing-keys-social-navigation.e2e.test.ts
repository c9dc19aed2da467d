/**
 * A deployment without TWITTERAPI_API_KEY and ORS_API_KEY, over HTTP: social.search's microblog is
 * unavailable alone (503 naming the variable, also when an update switches to it; the catalog and
 * inspect say which variant), its forum keeps working; navigation stays available and the OSRM demo
 * server answers routes and matrices with notes saying why.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;

before(async () => {
  kit = await startCapabilityKit("social.search", { env: { TWITTERAPI_API_KEY: "", ORS_API_KEY: "" } });
});
after(async () => {
  await kit.close();
});

const execute = (id: string, body: unknown) => kit.h.call("POST", `/v1/capabilities/${id}/execute`, { key: kit.key, body });
const NOTE =
  "Answered by the OSRM public demo server because openrouteservice was not available (not configured in this deployment, or it failed): car profile only, no service-level guarantee.";

test("microblog without TWITTERAPI_API_KEY: 503 capability_unavailable naming the variable, nothing sent or charged", async () => {
  const from = kit.h.replay.requests.length;
  const res = await kit.execute({ platform: "microblog", query: "open data" });
  assert.equal(res.status, 503, JSON.stringify(res.body));
  assert.equal(res.body.error.code, "capability_unavailable");
  assert.match(res.body.error.message, /TWITTERAPI_API_KEY is not set in this deployment/);
  assert.equal(kit.h.replay.requests.length, from);
  assert.equal(await kit.used(), 0);
});

test("the forum keeps working; an update switching it to the microblog is 503 too", async () => {
  const forum = await kit.execute({ platform: "forum", query: "pop" });
  assert.equal(forum.status, 200, JSON.stringify(forum.body));
  assert.equal(forum.body.results[0].platform, "forum");
  const up = await kit.update(forum.body.search_id, { platform: "microblog" });
  assert.equal(up.status, 503, JSON.stringify(up.body));
  assert.match(up.body.error.message, /TWITTERAPI_API_KEY/);
});

test("the catalog and inspect keep social.search and navigation available, and name the unavailable variant", async () => {
  const catalog = (await kit.h.call("GET", "/v1/catalog", { key: kit.key })).body.capabilities;
  const social = catalog.find((c: { id: string }) => c.id === "social.search");
  assert.equal(social.available, true);
  assert.equal(social.unavailable_reason, 'platform "microblog" is unavailable: TWITTERAPI_API_KEY is not set in this deployment');
  for (const id of ["navigation.route", "navigation.matrix", "weather.forecast"]) {
    const cap = catalog.find((c: { id: string }) => c.id === id);
    assert.equal(cap.available, true, id);
    assert.equal(cap.unavailable_reason, undefined, id);
  }
  const inspect = (await kit.h.call("GET", "/v1/capabilities/social.search", { key: kit.key })).body;
  assert.equal(inspect.available, true);
  assert.match(inspect.unavailable_reason, /platform "microblog"/);
});

test("without ORS_API_KEY a route is answered by the OSRM demo server, openrouteservice not called", async () => {
  const from = kit.h.replay.requests.length;
  const res = await execute("navigation.route", { origin: { lat: 21.9598, lon: 41.5332 }, destination: { lat: 21.3114, lon: 41.9725 } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.notes, [NOTE]);
  assert.equal(res.body.results[0].engine, "osrm");
  assert.equal(res.body.results[0].distance_km, 256.88);
  const prefixes = kit.h.replay.requests.slice(from).map((r) => r.prefix);
  assert.deepEqual(prefixes, ["osrm"]);
});

test("without ORS_API_KEY a matrix is answered by the OSRM demo server too", async () => {
  const locations = [
    { lat: 42.004088575972, lon: 21.0566163803209 },
    { lat: 42.0094518118189, lon: 21.3856064050746 },
    { lat: 41.5286973392856, lon: 20.9574645547597 },
    { lat: 41.0691482795275, lon: 21.1477394809847 },
    { lat: 41.3532256406286, lon: 21.5506463080973 },
  ];
  const res = await execute("navigation.matrix", { locations });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.results[0].engine, "osrm");
  assert.equal(res.body.notes[0], NOTE);
  assert.equal(res.body.results[0].durations_min[1][0], 26.3);
});
