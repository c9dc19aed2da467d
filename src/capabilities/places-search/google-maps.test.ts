// places.search: the pure google_maps mappers over the recorded local results and the documented
// place_results example (fixtures/providers/serpapi-google_maps), open-state reading, distance and
// radius filtering, cursor paging over provider pages, and the schema and rule.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import { placesSearch, type PlacesSearchQuery } from "./capability.ts";
import { cursorOf, llOf, MAX_PROVIDER_PAGES, type MapsSearchAnswer, mapsSearchAnswer, openNowOf, pendingSlice, toPage, toRequest } from "./google-maps.ts";
import { detailRequest, type PlaceAnswer, placeAnswer, toDetail } from "./place-details.ts";

// The recordings as the upstream client passes them: each fits its declared answer.
const local = () => checkShape("serpapi", mapsSearchAnswer, fixture("serpapi-google_maps", "search_local_results.json")) as Record<string, unknown>;
const place = () => checkShape("serpapi", placeAnswer, fixture("serpapi-google_maps", "place_results_documented.json"));
const CHELSEA = { lat: 40.7455096, lon: -74.0083012 };
const Q: PlacesSearchQuery = { query: "Coffee", location: CHELSEA, language: "en", num: 10 };
const NOW = new Date("2030-01-01T00:00:00Z");

/** What the source makes of an answer: the upstream client's check (SerpApi's refusals, then the schema), then the mapper. */
function page(body: unknown, query: PlacesSearchQuery = Q, cursor = cursorOf(null)) {
  checkJsonAnswer(toRequest(query, cursor.start ?? 0, cursor.ll), 200, body);
  return toPage(body as MapsSearchAnswer, query, cursor, NOW);
}

test("request: q, ll from location (zoom, or twice the radius in metres), hl, gl, start", () => {
  assert.deepEqual(toRequest({ ...Q, country: "US" }, 0, undefined).query, {
    engine: "google_maps",
    type: "search",
    q: "Coffee",
    ll: "@40.7455096,-74.0083012,14z",
    hl: "en",
    gl: "us",
    start: 0,
  });
  assert.equal(llOf({ ...Q, radius_m: 1500 }), "@40.7455096,-74.0083012,3000m");
  assert.equal(llOf({ query: "x", num: 10 }), undefined);
  // Without a location, SerpApi's own ll (from its next-page link) is what pages.
  assert.equal((toRequest({ query: "x", num: 10 }, 20, "@1,2,14z").query as Record<string, unknown>).ll, "@1,2,14z");
});

test("open state: explicit open or closed labels only; anything else is unknown", () => {
  for (const s of ["Open ⋅ Closes 12 AM", "Closes soon ⋅ 11 PM ⋅ Opens 11 AM Thu", "Open 24 hours"]) assert.equal(openNowOf(s), true, s);
  for (const s of ["Closed ⋅ Opens 7 AM Thu", "Opens soon ⋅ 7 AM", "Temporarily closed", "Permanently closed"]) assert.equal(openNowOf(s), false, s);
  for (const s of [undefined, "Abierto ⋅ Cierra a las 12 a.m.", "Hours might differ"]) assert.equal(openNowOf(s), undefined, String(s));
});

test("the recorded page: num records with the spec keys, the rest pending in the cursor", () => {
  const got = page(local(), Q);
  assert.equal(got.records.length, 10);
  const s = got.records[0]!.summary;
  assert.equal(s.title, "Grace Street Coffee & Desserts");
  assert.equal(s.url, "https://www.google.com/maps/place/?q=place_id:ChIJ9Sto4ahZwokRXpWiQYiOOOo");
  assert.equal(s.address, "17 W 32nd St, New York, NY 10001");
  assert.equal(s.phone, "(917) 540-2776");
  assert.equal(s.type, "Coffee shop");
  assert.equal((s.types as string[]).length, 7);
  assert.equal(s.open_state, "Closes soon ⋅ 11\u202fPM ⋅ Opens 11\u202fAM Thu");
  assert.equal(s.open_now, true);
  assert.equal(s.website, "https://www.bygracestreet.com/");
  assert.equal(s.rating, 4.5);
  assert.equal(s.reviews, 3108);
  assert.deepEqual(s.coordinates, { lat: 40.7477172, lon: -73.98653019999999 });
  assert.equal(s.distance_m, 1850);
  assert.equal(s.source, "Google Maps via SerpApi");
  assert.equal(s.fetched_at, "2024-10-31T02:21:59Z");
  assert.equal("price_level_label" in s, false);
  assert.equal(got.records[1]!.summary.price_level_label, "$$");
  // Stone Street Coffee has no open state: no open_now, never guessed.
  const stone = got.records.find((r) => r.summary.title === "Stone Street Coffee")!;
  assert.equal("open_now" in stone.summary, false);
  assert.deepEqual(got.records[0]!.ref, { place_id: "ChIJ9Sto4ahZwokRXpWiQYiOOOo", data_id: "0x89c259a8e1682bf5:0xea388e8841a2955e", lat: 40.7477172, lon: -73.98653019999999 });

  const c = cursorOf(got.next);
  assert.equal(c.start, 20);
  assert.equal(c.pages, 1);
  assert.equal(c.pending.length, 10);
  const rest = pendingSlice(c, 10)!;
  assert.equal(rest.records[0]!.summary.title, "Perk Coffee");
  assert.deepEqual(rest.next, { start: 20, pages: 1, pending: [] });
  assert.equal(pendingSlice(cursorOf(rest.next), 10), null, "nothing pending: the next provider page is fetched");
  // Without a location: no distance_m; the next page's ll comes from SerpApi's next link.
  const nowhere = page(local(), { query: "Coffee", num: 20 });
  assert.equal("distance_m" in nowhere.records[0]!.summary, false);
  assert.equal(cursorOf(nowhere.next).ll, "@40.7455096,-74.0083012,14z");
  assert.equal(cursorOf(nowhere.next).pending.length, 0);
});

test("filters: radius (coordinates required), min_rating, open_now; an empty page keeps has_more", () => {
  const near = page(local(), { ...Q, radius_m: 1500 });
  assert.deepEqual(near.records.map((r) => [r.summary.title, r.summary.distance_m]), [["Stone Street Coffee", 485], ["Fellini Coffee", 1204], ["Gregorys Coffee", 1411]]);
  assert.ok(near.records.every((r) => (r.summary.distance_m as number) <= 1500), "near.records.every((r) => (r.summary.distance_m as number) <= 1500)");
  assert.match(near.notes?.[0] ?? "", /17 of 20 places on provider page 1 did not meet radius_m 1500/);
  const open = page(local(), { ...Q, open_now: true, num: 20 });
  assert.ok(open.records.length > 0, "open.records.length > 0");
  assert.ok(open.records.every((r) => r.summary.open_now === true), "open.records.every((r) => r.summary.open_now === true)");
  const rated = page(local(), { ...Q, min_rating: 4.6, num: 20 });
  assert.deepEqual(rated.records.map((r) => r.summary.rating), [4.8, 4.6, 4.6, 4.8]);
  const body = local();
  for (const r of body.local_results as JsonObject[]) delete r.gps_coordinates;
  const none = page(body, { ...Q, radius_m: 50000 });
  assert.equal(none.records.length, 0, "places without coordinates are left out with a radius");
  assert.equal(cursorOf(none.next).start, 20, "has_more stays true");
});

test("paging stops after 20 provider pages; no next link ends it", () => {
  const last = page(local(), Q, { start: 380, pages: MAX_PROVIDER_PAGES - 1, pending: [] });
  assert.equal(cursorOf(last.next).start, null);
  assert.match(last.notes?.join(" ") ?? "", /stops after 20 provider pages/);
  const body = local();
  delete body.serpapi_pagination;
  const end = page(body, { ...Q, num: 20 });
  assert.equal(end.next, null);
  const empty = page({ search_metadata: { status: "Success" }, error: "Google Maps hasn't returned any results for this query." }, Q);
  assert.deepEqual(empty.records, []);
  assert.equal(empty.next, null);
});

test("drift: a renamed or retyped field the mapper reads is an error naming it; one place's page is one record", () => {
  const drifted = (change: (body: Record<string, unknown>) => void, pointer: RegExp) => {
    const body = structuredClone(local());
    change(body);
    assert.throws(() => page(body), (e: unknown) => e instanceof ProviderDrift && e.code === "provider_error" && pointer.test(e.message));
  };
  drifted((b) => {
    b.places = b.local_results;
    delete b.local_results;
  }, /\/local_results is missing/);
  drifted((b) => {
    const first = (b.local_results as Record<string, unknown>[])[0]!;
    first.name = first.title;
    delete first.title;
  }, /\/local_results\/0\/title is missing/);
  drifted((b) => {
    ((b.local_results as Record<string, unknown>[])[0]!.gps_coordinates as Record<string, unknown>).latitude = "40.7";
  }, /\/local_results\/0\/gps_coordinates\/latitude/);
  const one = page({ ...structuredClone(place()), search_metadata: { status: "Success" } });
  assert.equal(one.records.length, 1);
  const s = one.records[0]!.summary;
  assert.equal(s.title, "Starbucks");
  assert.equal(s.type, "Coffee shop");
  assert.equal((s.types as string[]).length, 6);
  assert.equal("hours" in s, false, "day-by-day hours are not a label");
});

test("search through the source: a provider page is charged once; its pending places are free", async () => {
  const { ctx, requests } = fakeContext(() => local());
  const first = await placesSearch.search(ctx, { ...Q }, null);
  assert.equal(first.credits, 4);
  assert.equal(requests.length, 1);
  const second = await placesSearch.search(ctx, { ...Q }, first.next);
  assert.equal(second.credits, 0);
  assert.equal(requests.length, 1, "served from the cursor, no provider call");
  assert.equal(second.records.length, 10);
  const third = await placesSearch.search(ctx, { ...Q }, second.next);
  assert.equal(third.credits, 4);
  assert.equal((requests[1]!.query as Record<string, unknown>).start, 20);
});

test("details: by place id (or data id and coordinates), mapped to contacts, hours, location, amenities", () => {
  assert.deepEqual(detailRequest(Q, { place_id: "P" })?.query, { engine: "google_maps", place_id: "P", hl: "en", gl: undefined });
  assert.equal((detailRequest(Q, { data_id: "0x1:0x2", lat: 1.5, lon: 2 })!.query as Record<string, unknown>).data, "!4m5!3m4!1s0x1:0x2!8m2!3d1.5!4d2");
  assert.equal(detailRequest(Q, { data_id: "0x1:0x2" }), undefined);
  const { detail, links } = toDetail(place(), NOW);
  const d = detail as JsonObject;
  assert.equal(d.name, "Starbucks");
  assert.deepEqual(d.contacts, { phone: "(425) 226-7007", website: "https://www.starbucks.com/store-locator/store/10581/" });
  assert.deepEqual(d.location, { address: "1785 NE 44th St, Renton, WA 98056", plus_code: "GRJ4+Q8 Renton, Washington", lat: 47.5319688, lon: -122.1942498 });
  assert.deepEqual((d.hours as JsonObject[])[0], { day: "tuesday", hours: "4:30AM–6:30PM" });
  assert.equal(d.open_now, false);
  assert.deepEqual(d.amenities, ["Good for kids", "Restroom", "Wi-Fi", "dine in", "drive through", "delivery"]);
  assert.deepEqual((d.features as JsonObject).payments, ["Debit cards", "NFC mobile payments"]);
  assert.equal(d.fetched_at, NOW.toISOString(), "no created_at in the example: the time of the call");
  assert.deepEqual(links.map((l) => l.label), ["Website", "Google Maps"]);
  const gone = { search_metadata: { status: "Success" }, error: "Google Maps hasn't returned any results for this query." };
  checkJsonAnswer(detailRequest(Q, { place_id: "P" })!, 200, gone);
  assert.deepEqual((toDetail(gone as unknown as PlaceAnswer).detail as JsonObject).found, false);
  assert.throws(
    () => checkJsonAnswer(detailRequest(Q, { place_id: "P" })!, 200, { search_metadata: { status: "Success" }, local_results: [] }),
    (e: unknown) => e instanceof ProviderDrift && /\/place_results is missing/.test(e.message),
  );
});

test("schema and rule: bounds at their pointers; radius_m requires location", () => {
  const at = (body: JsonObject) => [...new Set(violationsOf(placesSearch, structuredClone(body)).map((v) => v.path))];
  assert.deepEqual(at({ query: "Coffee" }), []);
  assert.deepEqual(at({ query: " \u200b" }), ["/query"]);
  assert.deepEqual(at({ query: "x".repeat(301) }), ["/query"]);
  assert.deepEqual(at({ query: "x", location: { lat: 91, lon: 0 } }), ["/location/lat"]);
  assert.deepEqual(at({ query: "x", location: { lat: 0 } }), ["/location/lon"]);
  assert.deepEqual(at({ query: "x", location: { lat: 0, lon: 0, alt: 1 } }), ["/location/alt"]);
  assert.deepEqual(at({ query: "x", location: CHELSEA, radius_m: 61 }), ["/radius_m"]);
  assert.deepEqual(at({ query: "x", location: CHELSEA, radius_m: 50001 }), ["/radius_m"]);
  assert.deepEqual(at({ query: "x", radius_m: 500 }), ["/radius_m"]);
  assert.deepEqual(at({ query: "x", country: "USA" }), ["/country"]);
  assert.deepEqual(at({ query: "x", language: "e" }), ["/language"]);
  assert.deepEqual(at({ query: "x", min_rating: 6 }), ["/min_rating"]);
  assert.deepEqual(at({ query: "x", open_now: "yes" }), ["/open_now"]);
  assert.deepEqual(at({ query: "x", num: 21 }), ["/num"]);
  assert.deepEqual(placesSearch.checkRules({ query: "x", radius_m: 500, num: 10 }, new Set(["radius_m"])).map((v) => v.path), ["/radius_m"]);
  assert.deepEqual(placesSearch.checkRules({ query: "x", radius_m: 500, num: 10 }, new Set(["location"])).map((v) => v.path), ["/location"]);
});

test("capability metadata follows spec 4.6", () => {
  assert.equal(placesSearch.paging, "page");
  assert.equal(placesSearch.deadlineMs, 15_000);
  assert.equal(placesSearch.typicalCredits, 4);
  assert.equal(placesSearch.maxCredits({ query: "x", num: 10 }), 4);
  assert.equal(placesSearch.pageSize({ query: "x", num: 7 }), 7);
  assert.equal(placesSearch.offersUpdate, true);
  assert.deepEqual(placesSearch.availability(new Set()), { missing: "SERPAPI_API_KEY" });
  assert.deepEqual(Object.values(placesSearch.actions).map((a) => [a.name, a.mode, a.credits]), [["details", "fetched", 4]]);
  assert.deepEqual(placesSearch.recordKeys.required, ["source", "fetched_at"]);
});
