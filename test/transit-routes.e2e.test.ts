/**
 * transit.routes end to end over HTTP against the replay upstream (a documented SerpApi
 * google_maps_directions transit example): one search for 4 credits, local paging of the alternatives
 * (`more` free, no provider call), the time shapes and statuses, every bound and rule at its pointer at
 * execute and through `update`, the billed update, and the stored itinerary as a free `details`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { ROOMY_PLANS } from "./helpers/roomy-plans.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("transit.routes", { env: ROOMY_PLANS });
});
after(async () => {
  await kit.close();
});

const TRIP = { origin: "Times Square, New York", destination: "Brooklyn Bridge, New York", language: "en" };
const serpCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi");

test("one search for 4 credits; local paging of its alternatives, free", async () => {
  const start = await kit.used();
  let from = kit.h.replay.requests.length;
  const first = await kit.execute({ ...TRIP, num: 2 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.charged_credits, 4);
  assert.equal(first.body.result_count, 2);
  assert.equal(first.body.has_more, true);
  const sent = serpCalls(from)[0]?.query;
  assert.equal(sent?.engine, "google_maps_directions");
  assert.equal(sent?.travel_mode, "3");
  assert.equal(sent?.start_addr, "Times Square, New York");
  assert.equal(sent?.time, undefined, "no time: departs now");
  const r = first.body.results[0];
  assert.equal(r.requested_time_status, "not_requested");
  assert.equal(r.realtime_status, "not_indicated");
  assert.equal(r.source, "Google Maps via SerpApi");
  assert.equal(typeof r.fetched_at, "string");
  assert.deepEqual(r.time_window, { departs: "9:05 AM", arrives: "9:31 AM" });
  assert.equal("requested_time" in r, false);

  from = kit.h.replay.requests.length;
  const more = await kit.more(first.body.search_id);
  assert.equal(more.status, 200, JSON.stringify(more.body));
  assert.equal(more.body.charged_credits, 0);
  assert.equal(more.body.result_count, 1);
  assert.equal(more.body.results[0].title, "M20 bus, 9:10 AM–10:02 AM");
  assert.equal(more.body.has_more, false);
  assert.equal(serpCalls(from).length, 0, "local paging: no provider call");
  assert.equal(await kit.used(), start + 4);
});

test("time: depart_at / arrive_by as Unix seconds, last_available as is; echoed on each record", async () => {
  let from = kit.h.replay.requests.length;
  const time = { mode: "depart_at", at: "2025-03-03T09:00:00-05:00" };
  const dep = await kit.execute({ ...TRIP, time });
  assert.equal(dep.status, 200, JSON.stringify(dep.body));
  assert.equal(serpCalls(from)[0]?.query.time, "depart_at:1741010400");
  assert.deepEqual(dep.body.results[0].requested_time, time);
  // The example's echo names no time: the answer does not confirm it.
  assert.equal(dep.body.results[0].requested_time_status, "unconfirmed");
  assert.match(dep.body.notes.join(" "), /does not show the requested time/);
  from = kit.h.replay.requests.length;
  const last = await kit.execute({ ...TRIP, time: { mode: "last_available" }, prefer: ["bus", "train"], preference: "less_walking" });
  assert.equal(last.status, 200, JSON.stringify(last.body));
  const q = serpCalls(from)[0]?.query;
  assert.equal(q?.time, "last_available");
  assert.equal(q?.prefer, "bus,train");
  assert.equal(q?.route, "3", "less walking is SerpApi's route 3");
  assert.deepEqual(last.body.results[0].requested_time, { mode: "last_available" });
});

test("every bound and rule at its pointer, at execute and through update", async () => {
  const cases: [object, string, RegExp?][] = [
    [{ destination: "B" }, "/origin"],
    [{ origin: "A" }, "/destination"],
    [{ origin: "", destination: "B" }, "/origin", /blank/],
    [{ origin: "A", destination: "\t " }, "/destination", /blank/],
    [{ origin: { lat: 0, lon: 200 }, destination: "B" }, "/origin/lon"],
    [{ origin: "A", destination: "B", time: { mode: "depart_at", at: "2025-03-03T09:00:00" } }, "/time/at"],
    [{ origin: "A", destination: "B", time: { mode: "arrive_by", at: "tomorrow 9am" } }, "/time/at"],
    [{ origin: "A", destination: "B", time: { mode: "arrive_by" } }, "/time/at", /is required/],
    [{ origin: "A", destination: "B", time: { mode: "last_available", at: "2025-03-03T09:00:00Z" } }, "/time/at", /unknown field/],
    [{ origin: "A", destination: "B", time: { mode: "leave_now" } }, "/time/mode", /must be one of "depart_at", "arrive_by", "last_available"/],
    [{ origin: "A", destination: "B", preference: "quickest" }, "/preference"],
    [{ origin: "A", destination: "B", prefer: [] }, "/prefer"],
    [{ origin: "A", destination: "B", prefer: ["bus", "bus"] }, "/prefer"],
    [{ origin: "A", destination: "B", prefer: ["boat"] }, "/prefer/0"],
    [{ origin: "A", destination: "B", country: "usa" }, "/country"],
    [{ origin: "A", destination: "B", language: "x" }, "/language"],
    [{ origin: "A", destination: "B", num: 0 }, "/num"],
    [{ origin: "A", destination: "B", num: 11 }, "/num"],
  ];
  for (const [body, pointer, message] of cases) await kit.expectViolation(body, pointer, message);
  const ex = await kit.execute(TRIP);
  const before = await kit.used();
  await kit.expectUpdateViolation(ex.body.search_id, { origin: "  " }, "/params/origin", /blank/);
  await kit.expectUpdateViolation(ex.body.search_id, { time: { mode: "depart_at", at: "2025-03-03T25:00:00Z" } }, "/params/time/at");
  await kit.expectUpdateViolation(ex.body.search_id, { time: { mode: "soon" } }, "/params/time/mode");
  await kit.expectUpdateViolation(ex.body.search_id, { prefer: ["ferry"] }, "/params/prefer/0");
  await kit.expectUpdateViolation(ex.body.search_id, { num: 20 }, "/params/num");
  assert.equal(await kit.used(), before, "refused updates cost nothing");
});

test("update: merged params, same search_id, billed 4 credits", async () => {
  const ex = await kit.execute(TRIP);
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const up = await kit.update(ex.body.search_id, { preference: "fewer_transfers", time: { mode: "arrive_by", at: "2025-03-03T09:45:00-05:00" } });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.charged_credits, 4);
  assert.equal(serpCalls(from)[0]?.query.route, "2", "fewer transfers is SerpApi's route 2");
  assert.equal(serpCalls(from)[0]?.query.time, "arrive_by:1741013100");
  assert.equal((await kit.used()) - before, 4);
});

test("details: the stored itinerary, free, no provider call, the same on repeat", async () => {
  const ex = await kit.execute(TRIP);
  const record = ex.body.results[1];
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const first = await kit.action(record.record_id, "details");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.charged_credits, 0);
  assert.equal(first.body.cached, true);
  assert.deepEqual(first.body.detail.lines, ["N", "R"]);
  assert.equal(first.body.detail.steps.length, 4);
  assert.equal(first.body.detail.steps[1].headsign, "Coney Island-Stillwell Av");
  assert.ok(first.body.links.some((l: { label: string }) => l.label === "MTA New York City Transit"), "first.body.links.some((l: { label: string }) => l.label === \"MTA New York City Transit\")");
  const again = await kit.action(record.record_id, "details");
  assert.equal(again.body.charged_credits, 0);
  assert.equal(again.body.cached, true);
  assert.deepEqual(again.body.detail, first.body.detail);
  assert.equal(serpCalls(from).length, 0);
  assert.equal(await kit.used(), before);
});
