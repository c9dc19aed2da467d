// transit.routes: the pure google_maps_directions mappers over the documented transit example
// (fixtures/providers/serpapi-google_maps_directions), the time parameter, the statuses, and the
// schema's two time shapes and the not-blank rules.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import { transitRoutes, type TransitRoutesQuery } from "./capability.ts";
import { type DirectionsAnswer, directionsAnswer, requestedTimeStatus, timeParam, toPage, toRequest } from "./google-directions.ts";

// The documented example as the upstream client passes it: it fits the declared answer.
const routes = () =>
  checkShape("serpapi", directionsAnswer, fixture("serpapi-google_maps_directions", "transit_times_square_brooklyn_bridge_documented.json")) as Record<string, unknown>;
const Q: TransitRoutesQuery = { origin: "Times Square, New York", destination: "Brooklyn Bridge, New York", preference: "best", num: 5 };
const NOW = new Date("2030-01-01T00:00:00Z");

/** What the source makes of an answer: the upstream client's check (SerpApi's refusals, then the schema), then the mapper. */
function page(body: unknown, query: TransitRoutesQuery = Q) {
  checkJsonAnswer(toRequest(query), 200, body);
  return toPage(body as DirectionsAnswer, query, NOW);
}

test("request: addresses or coordinates, transit mode, time as Unix seconds, route and prefer codes", () => {
  assert.deepEqual(toRequest({ ...Q, language: "en", country: "US" }).query, {
    engine: "google_maps_directions",
    start_addr: "Times Square, New York",
    end_addr: "Brooklyn Bridge, New York",
    travel_mode: 3,
    time: undefined,
    route: undefined,
    prefer: undefined,
    hl: "en",
    gl: "us",
  });
  const q = toRequest({
    ...Q,
    origin: { lat: 40.758, lon: -73.9855 },
    destination: { lat: 40.7061, lon: -73.9969 },
    time: { mode: "arrive_by", at: "2025-03-03T09:45:00-05:00" },
    preference: "wheelchair_accessible",
    prefer: ["subway", "tram_and_light_rail"],
  }).query as Record<string, unknown>;
  assert.equal(q.start_coords, "40.758,-73.9855");
  assert.equal(q.end_coords, "40.7061,-73.9969");
  assert.equal(q.start_addr, undefined);
  assert.equal(q.time, "arrive_by:1741013100");
  assert.equal(q.route, 4);
  assert.equal(q.prefer, "subway,tram_light_rail");
  assert.equal(timeParam({ mode: "depart_at", at: "2025-03-03T14:45:00Z" }), "depart_at:1741013100");
  assert.equal(timeParam({ mode: "last_available" }), "last_available");
  assert.equal(timeParam(undefined), undefined);
  // SerpApi's documented `route` values (its playground's engine parameters): 2, 3, 4.
  assert.equal((toRequest({ ...Q, preference: "fewer_transfers" }).query as Record<string, unknown>).route, 2);
  assert.equal((toRequest({ ...Q, preference: "less_walking" }).query as Record<string, unknown>).route, 3);
});

test("requested_time_status: not_requested, sent when the echo names the time, else unconfirmed", () => {
  const time = { mode: "depart_at" as const, at: "2025-03-03T09:00:00-05:00" };
  assert.equal(requestedTimeStatus(Q, { travel_mode: "3" }), "not_requested");
  assert.equal(requestedTimeStatus({ ...Q, time }, { time: "depart_at:1741010400" }), "sent");
  assert.equal(requestedTimeStatus({ ...Q, time }, { time: "depart_at:1" }), "unconfirmed");
  assert.equal(requestedTimeStatus({ ...Q, time }, {}), "unconfirmed");
  assert.equal(requestedTimeStatus({ ...Q, time }, undefined), "unconfirmed");
  assert.equal(requestedTimeStatus({ ...Q, time: { mode: "last_available" } }, { time: "last_available" }), "sent");
});

test("each alternative is a record with the spec keys and its itinerary stored", () => {
  const got = page(routes());
  assert.equal(got.next, null);
  assert.deepEqual(got.notes, []);
  assert.equal(got.records.length, 3);
  const first = got.records[0]!;
  assert.deepEqual(first.summary, {
    title: "2 train, 9:05 AM–9:31 AM",
    url: "https://www.google.com/maps/dir/Times+Square,+New+York/Brooklyn+Bridge,+New+York/data=!4m2!4m1!3e3?hl=en",
    snippet: "26 min · 4.8 miles · 2 (no transfer) · fare 2.9 USD",
    duration_seconds: 1560,
    distance_m: 7730,
    duration_label: "26 min",
    distance_label: "4.8 miles",
    time_window: { departs: "9:05 AM", arrives: "9:31 AM" },
    lines: ["2"],
    requested_time_status: "not_requested",
    source: "Google Maps via SerpApi",
    fetched_at: "2025-03-03T14:02:11Z",
    realtime_status: "not_indicated",
  });
  const d = first.detail as JsonObject;
  assert.deepEqual(d.fare, { amount: 2.9, currency: "USD" });
  assert.equal(d.transfers, 0);
  const steps = d.steps as JsonObject[];
  assert.equal(steps.length, 3);
  assert.deepEqual(steps[0]?.instructions, ["Head south on 7th Ave toward W 42nd St", "Take the stairs down to the station"]);
  assert.equal(steps[1]?.line, "2");
  assert.equal(steps[1]?.headsign, "Flatbush Av-Brooklyn College");
  assert.deepEqual(steps[1]?.from, { name: "Times Sq-42 St", time: "9:07 AM" });
  assert.equal((steps[1]!.stops as JsonObject[]).length, 3);
  assert.deepEqual(first.links?.map((l) => l.label), ["Google Maps directions", "MTA New York City Transit"]);
  assert.deepEqual(got.records[1]!.summary.lines, ["N", "R"]);
  assert.equal(got.records[2]!.summary.title, "M20 bus, 9:10 AM–10:02 AM");
});

test("a requested time is echoed on every record; an answer that does not show it says so", () => {
  const time = { mode: "arrive_by" as const, at: "2025-03-03T09:45:00-05:00" };
  const got = page(routes(), { ...Q, time });
  assert.deepEqual(got.records[0]!.summary.requested_time, time);
  assert.equal(got.records[0]!.summary.requested_time_status, "unconfirmed");
  assert.match(got.notes?.[0] ?? "", /does not show the requested time/);
  const body = routes();
  (body.search_parameters as JsonObject).time = "arrive_by:1741013100";
  assert.equal(page(body, { ...Q, time }).records[0]!.summary.requested_time_status, "sent");
});

test("no route is an empty page; keys the source lacks are left out", () => {
  const empty = page({ search_metadata: { status: "Success" }, error: "Google Maps hasn't returned any results for this query." });
  assert.deepEqual(empty.records, []);
  assert.match(empty.notes?.[0] ?? "", /no transit route/);
  const bare = page({ directions: [{ travel_mode: "Transit" }] });
  assert.deepEqual(bare.records[0]!.summary, {
    title: "Transit route",
    requested_time_status: "not_requested",
    source: "Google Maps via SerpApi",
    fetched_at: NOW.toISOString(),
    realtime_status: "not_indicated",
  });
});

test("drift: a renamed or retyped field the mapper reads is an error naming it, never an empty page", () => {
  const drifted = (change: (body: Record<string, unknown>) => void, pointer: RegExp) => {
    const body = structuredClone(routes());
    change(body);
    assert.throws(() => page(body), (e: unknown) => e instanceof ProviderDrift && e.code === "provider_error" && pointer.test(e.message));
  };
  drifted((b) => {
    b.routes = b.directions;
    delete b.directions;
  }, /\/directions is missing/);
  drifted((b) => {
    (b.directions as Record<string, unknown>[])[0]!.duration = "31 min";
  }, /\/directions\/0\/duration/);
  drifted((b) => {
    ((b.directions as Record<string, unknown>[])[0]!.trips as Record<string, unknown>[])[0]!.stops = "none";
  }, /\/directions\/0\/trips\/0\/stops/);
});

test("schema and rules: endpoints, the two time shapes, preference, prefer, num", () => {
  const at = (body: JsonObject) => [...new Set(violationsOf(transitRoutes, structuredClone(body)).map((v) => v.path))];
  const base = { origin: "A", destination: "B" };
  assert.deepEqual(at(base), []);
  assert.deepEqual(at({ ...base, origin: { lat: 1, lon: 2 }, destination: { lat: 3, lon: 4 } }), []);
  assert.deepEqual(at({ ...base, origin: "" }), ["/origin"]);
  assert.deepEqual(at({ ...base, destination: " \u200b " }), ["/destination"]);
  assert.deepEqual(at({ ...base, origin: "\u00ad\u3164" }), ["/origin"], "soft hyphen and Hangul filler are blank too");
  assert.deepEqual(at({ ...base, origin: "x".repeat(301) }), ["/origin"]);
  // Only the object branch speaks for an object: no "must be string" beside the real fault.
  assert.deepEqual(at({ ...base, origin: { lat: 91, lon: 0 } }), ["/origin/lat"]);
  assert.deepEqual(at({ destination: "B" }), ["/origin"]);
  for (const mode of ["depart_at", "arrive_by"]) {
    assert.deepEqual(at({ ...base, time: { mode, at: "2025-03-03T09:00:00+01:00" } }), []);
    assert.deepEqual(at({ ...base, time: { mode, at: "2025-03-03T09:00:00.250Z" } }), []);
    assert.deepEqual(at({ ...base, time: { mode, at: "2025-03-03t09:00:00z" } }), [], "RFC 3339 §5.6 allows lower-case t and z");
    assert.deepEqual(at({ ...base, time: { mode, at: "2025-03-03T09:00:00" } }), ["/time/at"], "an offset is required");
    assert.deepEqual(at({ ...base, time: { mode, at: "2025-03-03 09:00:00Z" } }), ["/time/at"]);
    assert.deepEqual(at({ ...base, time: { mode, at: "2025-02-30T09:00:00Z" } }), ["/time/at"]);
    assert.deepEqual(at({ ...base, time: { mode, at: `2025-03-03T09:00:00.${"1".repeat(20)}Z` } }), ["/time/at"], "at most 40 characters");
    assert.deepEqual(at({ ...base, time: { mode } }), ["/time/at"]);
  }
  assert.deepEqual(at({ ...base, time: { mode: "last_available" } }), []);
  assert.deepEqual(at({ ...base, time: { mode: "last_available", at: "2025-03-03T09:00:00Z" } }), ["/time/at"]);
  assert.deepEqual(at({ ...base, time: { mode: "now" } }), ["/time/mode"]);
  assert.deepEqual(at({ ...base, time: {} }), ["/time/mode"]);
  assert.deepEqual(at({ ...base, preference: "fastest" }), ["/preference"]);
  assert.deepEqual(at({ ...base, prefer: [] }), ["/prefer"]);
  assert.deepEqual(at({ ...base, prefer: ["bus", "subway", "train", "tram_and_light_rail", "bus"] }), ["/prefer"]);
  assert.deepEqual(at({ ...base, prefer: ["train", "train"] }), ["/prefer"]);
  assert.deepEqual(at({ ...base, prefer: ["ferry"] }), ["/prefer/0"]);
  assert.deepEqual(at({ ...base, country: "USA" }), ["/country"]);
  assert.deepEqual(at({ ...base, language: "e" }), ["/language"]);
  assert.deepEqual(at({ ...base, num: 11 }), ["/num"]);
  const defaults: JsonObject = structuredClone(base);
  violationsOf(transitRoutes, defaults);
  assert.deepEqual(defaults, { ...base, preference: "best", num: 5 });
});

test("capability metadata follows spec 4.6", () => {
  assert.equal(transitRoutes.paging, "local");
  assert.equal(transitRoutes.deadlineMs, 40_000);
  assert.equal(transitRoutes.typicalCredits, 4);
  assert.equal(transitRoutes.pageSize({ origin: "a", destination: "b", num: 3 }), 3);
  assert.equal(transitRoutes.offersUpdate, true);
  assert.deepEqual(transitRoutes.availability(new Set()), { missing: "SERPAPI_API_KEY" });
  assert.deepEqual(Object.values(transitRoutes.actions).map((a) => [a.name, a.mode, a.credits]), [["details", "stored", 0]]);
  assert.deepEqual(transitRoutes.recordKeys.required, ["requested_time_status", "source", "fetched_at", "realtime_status"]);
});
