/**
 * Missing vendor keys for shopping.search, jobs.search, trends.search (SERPAPI_API_KEY) and
 * realestate.search (REALESTATE_API_KEY): each is listed as unavailable in the catalog and inspect
 * with the variable named, and its execute answers 503 capability_unavailable naming it, charging
 * nothing and calling no provider.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Harness, startHarness } from "./helpers/harness.ts";

let h: Harness;
let key: string;
before(async () => {
  h = await startHarness({ env: { SERPAPI_API_KEY: "", REALESTATE_API_KEY: "" } });
  ({ key } = await h.account("pro"));
});
after(async () => {
  await h.close();
});

const CASES: [id: string, variable: string, body: object][] = [
  ["shopping.search", "SERPAPI_API_KEY", { query: "coffee" }],
  ["jobs.search", "SERPAPI_API_KEY", { query: "barista" }],
  ["trends.search", "SERPAPI_API_KEY", { query: "Klima" }],
  ["realestate.search", "REALESTATE_API_KEY", { query: "Santa Monica, CA" }],
];

test("without its key each capability is unavailable, named in catalog, inspect and a 503", async () => {
  const catalog = (await h.call("GET", "/v1/catalog", { key })).body.capabilities;
  for (const [id, variable, body] of CASES) {
    const listed = catalog.find((c: { id: string }) => c.id === id);
    assert.equal(listed.available, false, id);
    assert.match(listed.unavailable_reason, new RegExp(variable), id);
    const inspect = (await h.call("GET", `/v1/capabilities/${id}`, { key })).body;
    assert.equal(inspect.available, false, id);
    assert.match(inspect.unavailable_reason, new RegExp(variable), id);
    const from = h.replay.requests.length;
    const res = await h.call("POST", `/v1/capabilities/${id}/execute`, { key, body });
    assert.equal(res.status, 503, `${id}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, new RegExp(`${variable} is not set`), id);
    assert.equal(h.replay.requests.length, from, `${id}: no provider call`);
  }
  assert.equal((await h.call("GET", "/v1/account", { key })).body.credits.used, 0);
});
