/**
 * Without SERPAPI_API_KEY, hotels.search, flights.search, places.search and transit.routes are
 * unavailable: the catalog and inspect say so naming the variable, and execute answers
 * `503 capability_unavailable` naming it, before any provider call and charging nothing.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
let key: string;
let accountId: string;
before(async () => {
  h = await startHarness({ env: { SERPAPI_API_KEY: "" } });
  ({ key, accountId } = await h.account("pro"));
});
after(async () => {
  await h.close();
});

const BODIES: Record<string, object> = {
  "hotels.search": { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28" },
  "flights.search": { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19" },
  "places.search": { query: "Coffee", location: { lat: 40.7455096, lon: -74.0083012 } },
  "transit.routes": { origin: "Times Square, New York", destination: "Brooklyn Bridge, New York" },
};

test("each travel capability is unavailable without SERPAPI_API_KEY, in the catalog, inspect and execute", async () => {
  const catalog = (await h.call("GET", "/v1/catalog", { key })).body.capabilities;
  const from = h.replay.requests.length;
  for (const [id, body] of Object.entries(BODIES)) {
    const listed = catalog.find((c: { id: string }) => c.id === id);
    assert.equal(listed.available, false, id);
    assert.match(listed.unavailable_reason, /SERPAPI_API_KEY/, id);
    const inspect = (await h.call("GET", `/v1/capabilities/${id}`, { key })).body;
    assert.equal(inspect.available, false, id);
    const res = await h.call("POST", `/v1/capabilities/${id}/execute`, { key, body });
    assert.equal(res.status, 503, `${id}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /SERPAPI_API_KEY/);
  }
  assert.equal(h.replay.requests.length, from, "no provider call");
  assert.equal((await h.store.getAccount(accountId))!.creditsUsed, 0);
});
