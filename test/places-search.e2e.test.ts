/**
 * places.search end to end over HTTP against the replay upstream (SerpApi google_maps recording of one
 * provider page, and a documented place_results example): execute (4 credits for the provider page),
 * `more` served from the rest of that page (free, no provider call) and then the next provider page,
 * the radius / open-now / rating filters, every bound and the `radius_m` rule at its pointer at execute
 * and through `update`, the billed update, and `details` fetched once for 4 credits then cached.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { ROOMY_PLANS } from "./helpers/roomy-plans.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("places.search", { env: ROOMY_PLANS });
});
after(async () => {
  await kit.close();
});

const CHELSEA = { lat: 40.7455096, lon: -74.0083012 };
const COFFEE = { query: "Coffee", location: CHELSEA, language: "en" };
const serpCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi");

test("page paging: a provider page for 4 credits, served num at a time; the next provider page after it", async () => {
  const start = await kit.used();
  let from = kit.h.replay.requests.length;
  const first = await kit.execute(COFFEE);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.result_count, 10);
  assert.equal(first.body.charged_credits, 4);
  assert.equal(first.body.has_more, true);
  assert.deepEqual(first.body.next.actions, ["more", "update"]);
  const sent = serpCalls(from)[0]?.query;
  assert.equal(sent?.engine, "google_maps");
  assert.equal(sent?.ll, "@40.7455096,-74.0083012,14z");
  assert.equal(sent?.start, "0");
  const r0 = first.body.results[0];
  assert.equal(r0.title, "Grace Street Coffee & Desserts");
  assert.equal(r0.distance_m, 1850);
  assert.equal(r0.open_now, true);
  assert.equal(r0.source, "Google Maps via SerpApi");
  assert.equal(r0.fetched_at, "2024-10-31T02:21:59Z");

  from = kit.h.replay.requests.length;
  const second = await kit.more(first.body.search_id);
  assert.equal(second.status, 200, JSON.stringify(second.body));
  assert.equal(second.body.result_count, 10);
  assert.equal(second.body.charged_credits, 0, "the rest of a fetched provider page is free");
  assert.equal(serpCalls(from).length, 0);
  assert.equal(second.body.results[0].title, "Perk Coffee");
  assert.equal(second.body.has_more, true);

  // The next provider page (start=20) has no recording: the replay answers 404 → 502, nothing charged.
  from = kit.h.replay.requests.length;
  const third = await kit.more(first.body.search_id);
  assert.equal(third.status, 502, JSON.stringify(third.body));
  assert.equal(third.body.error.code, "provider_error");
  assert.equal(serpCalls(from)[0]?.query.start, "20");
  assert.equal(await kit.used(), start + 4);
});

test("filters: radius keeps places with coordinates within it; open_now an explicit open state; a page can be empty", async () => {
  const near = await kit.execute({ ...COFFEE, radius_m: 1500, num: 20 });
  assert.equal(near.status, 200, JSON.stringify(near.body));
  assert.deepEqual(near.body.results.map((r: { title: string }) => r.title), ["Stone Street Coffee", "Fellini Coffee", "Gregorys Coffee"]);
  assert.match(near.body.notes.join(" "), /17 of 20 places/);
  const open = await kit.execute({ ...COFFEE, open_now: true, num: 20 });
  assert.ok(open.body.results.length > 0, "open.body.results.length > 0");
  for (const r of open.body.results) assert.equal(r.open_now, true);
  const empty = await kit.execute({ ...COFFEE, radius_m: 100 });
  assert.equal(empty.status, 200);
  assert.equal(empty.body.result_count, 0);
  assert.equal(empty.body.has_more, true);
  assert.deepEqual(empty.body.next.example, { search_id: empty.body.search_id, action: "more" });
});

test("every bound and the radius rule at their pointers, at execute and through update", async () => {
  const cases: [object, string, RegExp?][] = [
    [{ location: CHELSEA }, "/query"],
    [{ query: "   " }, "/query", /blank/],
    [{ query: "x".repeat(301) }, "/query"],
    [{ query: "x", location: { lat: -91, lon: 0 } }, "/location/lat"],
    [{ query: "x", location: { lat: 0, lon: 181 } }, "/location/lon"],
    [{ query: "x", location: { lon: 1 } }, "/location/lat"],
    [{ query: "x", location: CHELSEA, radius_m: 61.9 }, "/radius_m"],
    [{ query: "x", location: CHELSEA, radius_m: 50001 }, "/radius_m"],
    [{ query: "x", radius_m: 500 }, "/radius_m", /`radius_m` requires `location`/],
    [{ query: "x", country: "U" }, "/country"],
    [{ query: "x", language: "x".repeat(13) }, "/language"],
    [{ query: "x", min_rating: -0.5 }, "/min_rating"],
    [{ query: "x", open_now: 1 }, "/open_now"],
    [{ query: "x", num: 0 }, "/num"],
    [{ query: "x", num: 21 }, "/num"],
  ];
  for (const [body, pointer, message] of cases) await kit.expectViolation(body, pointer, message);
  const plain = await kit.execute({ query: "Coffee", language: "en" });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  assert.equal("distance_m" in plain.body.results[0], false, "distance_m only with a location");
  await kit.expectUpdateViolation(plain.body.search_id, { radius_m: 800 }, "/params/radius_m", /requires `location`/);
  const within = await kit.execute({ ...COFFEE, radius_m: 3000 });
  await kit.expectUpdateViolation(within.body.search_id, { location: null }, "/params/location", /requires `location`/);
  await kit.expectUpdateViolation(within.body.search_id, { num: 25 }, "/params/num");
  await kit.expectUpdateViolation(within.body.search_id, { location: { lat: 0 } }, "/params/location/lon");
});

test("update: merged params, paging reset, billed 4 credits for the provider page", async () => {
  const ex = await kit.execute(COFFEE);
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const up = await kit.update(ex.body.search_id, { min_rating: 4.5, num: 20 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.charged_credits, 4);
  assert.equal(serpCalls(from).length, 1);
  assert.equal((await kit.used()) - before, 4);
  assert.ok(up.body.results.length > 0, "up.body.results.length > 0");
  for (const r of up.body.results) assert.ok(r.rating >= 4.5, "r.rating >= 4.5");
});

test("details: fetched once for 4 credits, then cached at 0 credits", async () => {
  const ex = await kit.execute(COFFEE);
  const record = ex.body.results[0];
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const first = await kit.action(record.record_id, "details");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.charged_credits, 4);
  assert.equal(first.body.cached, false);
  assert.equal(serpCalls(from)[0]?.query.place_id, "ChIJ9Sto4ahZwokRXpWiQYiOOOo");
  assert.equal(serpCalls(from)[0]?.matched, "serpapi-google_maps/place_results_documented");
  const d = first.body.detail;
  assert.equal(d.contacts.phone, "(425) 226-7007");
  assert.equal(d.location.plus_code, "GRJ4+Q8 Renton, Washington");
  assert.equal(d.hours.length, 7);
  assert.ok(d.amenities.includes("Wi-Fi"), "d.amenities.includes(\"Wi-Fi\")");
  const again = await kit.action(record.record_id, "details");
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.deepEqual(again.body.detail, d);
  assert.equal(serpCalls(from).length, 1);
  assert.equal((await kit.used()) - before, 4);
});
