// hotels.search: the pure google_hotels mappers over the recorded search and property-details
// answers (fixtures/providers/serpapi-google_hotels), the occupancy verdicts, and the schema and
// rules as execute runs them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import { hotelsSearch, type HotelsSearchQuery } from "./capability.ts";
import { type HotelsAnswer, hotelsAnswer, passes, ratingStep, toPage, toRequest } from "./google-hotels.ts";
import { propertyFindings, searchFindings } from "./occupancy.ts";
import { detailRequest, propertyDetailsAnswer, toDetail } from "./property-details.ts";

// The recordings as the upstream client passes them: each fits its declared answer.
const search = () => checkShape("serpapi", hotelsAnswer, fixture("serpapi-google_hotels", "search_hotels.json")) as Record<string, unknown>;
const details = () => checkShape("serpapi", propertyDetailsAnswer, fixture("serpapi-google_hotels", "property_details_by_token.json"));

const STAY: HotelsSearchQuery = { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28", adults: 2, currency: "USD" };

/** What the source makes of an answer: the upstream client's check (SerpApi's refusals, then the schema), then the mapper. */
function page(body: unknown, query: HotelsSearchQuery = STAY, status = 200) {
  checkJsonAnswer(toRequest(query, null), status, body);
  return toPage(body as HotelsAnswer, query);
}

test("request: q, dates, occupancy, currency; filters as SerpApi's steps; the token of a next page", () => {
  const req = toRequest(
    { ...STAY, adults: 1, children_ages: [5, 8], currency: "eur", sort: "most_reviewed", min_rating: 4.2, max_price: 120.5, property_type: "vacation_rental" },
    { token: "CBI=" },
  );
  assert.equal(req.provider, "serpapi");
  assert.equal(req.path, "/search.json");
  assert.deepEqual(req.query, {
    engine: "google_hotels",
    q: "Lucknow",
    check_in_date: "2024-09-25",
    check_out_date: "2024-09-28",
    adults: 1,
    children: 2,
    children_ages: "5,8",
    currency: "EUR",
    vacation_rentals: true,
    sort_by: 13,
    max_price: 121,
    rating: 8,
    next_page_token: "CBI=",
  });
  const plain = toRequest(STAY, null).query as Record<string, unknown>;
  assert.equal(plain.children, 0);
  for (const k of ["children_ages", "sort_by", "rating", "max_price", "vacation_rentals", "next_page_token"]) assert.equal(plain[k], undefined, k);
  assert.deepEqual([ratingStep(undefined), ratingStep(3), ratingStep(3.5), ratingStep(4.4), ratingStep(4.5), ratingStep(5)], [undefined, undefined, 7, 8, 9, 9]);
});

test("the recorded page maps to 20 records with the spec keys; its token is the next cursor", () => {
  const got = page(search(), STAY);
  assert.deepEqual(got.next, { token: "CBI=" });
  assert.equal(got.records.length, 20);
  const hyatt = got.records[0]!;
  assert.deepEqual(hyatt.ref, { property_token: "ChoIo5z-pJbJ-uPPARoNL2cvMTFidzR3djlzcxAB" });
  const s = hyatt.summary;
  assert.equal(s.title, "Hyatt Regency Lucknow");
  assert.equal(s.url, "https://www.hyatt.com/hyatt-regency/en-US/lkorl-hyatt-regency-lucknow/?src=corp_lclb_gmb_seo_lkorl");
  assert.equal(s.price_per_night, 107);
  assert.equal(s.total_price, 322);
  assert.equal(s.currency, "USD");
  assert.equal(s.rating, 4.3);
  assert.equal(s.reviews, 9031);
  assert.equal(s.hotel_class, 5);
  assert.equal(s.type, "hotel");
  assert.equal(s.lat, 26.866091899999997);
  assert.equal(s.lon, 81.0057359);
  assert.equal((s.amenities as string[])[1], "Free Wi-Fi");
  assert.deepEqual(s.requested_occupancy, { adults: 2, children: 0 });
  assert.equal(s.occupancy_status, "as_requested");
  assert.equal("occupancy_note" in s, false);
  assert.equal("location" in s, false, "the list gives no address: never invented");
  // A property without a price or class keeps neither key (Radisson has no rates in the recording).
  const radisson = got.records.find((r) => r.summary.title === "Radisson Lucknow City Center")!;
  for (const k of ["price_per_night", "total_price", "currency"]) assert.equal(k in radisson.summary, false, k);
  const nest = got.records.at(-1)!.summary;
  assert.equal(nest.type, "vacation rental");
  assert.equal("hotel_class" in nest, false);
  assert.equal("url" in nest, false);
});

test("occupancy: the echo names other guests → partially_applied with a note; no echo → unconfirmed", () => {
  const withChild = page(search(), { ...STAY, children_ages: [7] });
  const s = withChild.records[0]!.summary;
  assert.deepEqual(s.requested_occupancy, { adults: 2, children: 1, children_ages: [7] });
  assert.equal(s.occupancy_status, "partially_applied");
  assert.equal(s.occupancy_note, "The source answered for 0 children, 1 requested.");

  const three = page(search(), { ...STAY, adults: 3 });
  assert.equal(three.records[0]!.summary.occupancy_note, "The source answered for 2 adults, 3 requested.");
  // Vacation rentals quote prices for 2 guests and say how many they sleep.
  const nest = three.records.at(-1)!.summary;
  assert.equal(nest.occupancy_note, "The source answered for 2 adults, 3 requested; its prices are for 2 guests, 3 requested.");

  const body = search();
  delete body.search_parameters;
  const silent = page(body);
  assert.equal(silent.records[0]!.summary.occupancy_status, "unconfirmed");
  assert.equal("occupancy_note" in silent.records[0]!.summary, false);
  assert.match(silent.notes?.join(" ") ?? "", /does not say which occupancy/);

  assert.deepEqual(searchFindings({ adults: 2, children: 2, children_ages: "5,8" }, { adults: 2, children: 2, children_ages: [5, 8] }), []);
  assert.deepEqual(searchFindings({ adults: 2, children: 2, children_ages: "5,9" }, { adults: 2, children: 2, children_ages: [5, 8] }), [
    "the source answered for child ages 5, 9, 5, 8 requested",
  ]);
  assert.deepEqual(propertyFindings({ essential_info: ["Sleeps 3"] }, { adults: 4, children: 0 }), ["it sleeps 3, 4 guests requested"]);
  assert.deepEqual(propertyFindings({ prices: [{ num_guests: 2 }, { num_guests: 4 }] }, { adults: 4, children: 0 }), []);
});

test("filters checked on each property: rating, price, amenities, type; a page can be empty with a next token", () => {
  const props = (search().properties as JsonObject[]);
  const hyatt = props[0] as JsonObject;
  assert.equal(passes(hyatt, { ...STAY, min_rating: 4.3 }), true);
  assert.equal(passes(hyatt, { ...STAY, min_rating: 4.31 }), false);
  assert.equal(passes(hyatt, { ...STAY, max_price: 107 }), true);
  assert.equal(passes(hyatt, { ...STAY, max_price: 106.99 }), false);
  assert.equal(passes(hyatt, { ...STAY, amenities: ["free wi-fi", "SPA"] }), true);
  assert.equal(passes(hyatt, { ...STAY, amenities: ["Hot tub"] }), false);
  assert.equal(passes(hyatt, { ...STAY, property_type: "vacation_rental" }), false);

  const rentals = page(search(), { ...STAY, property_type: "vacation_rental" });
  assert.deepEqual(rentals.records.map((r) => r.summary.type), ["vacation rental", "vacation rental"]);
  const none = page(search(), { ...STAY, min_rating: 5 });
  assert.equal(none.records.length, 0);
  assert.deepEqual(none.next, { token: "CBI=" }, "has_more stays true on an empty filtered page");
  assert.match(none.notes?.[0] ?? "", /20 of 20 properties .* min_rating 5; more pages may still hold matches/);
});

test("SerpApi answers: no results is an empty page; errors are provider errors", () => {
  const empty = page({ search_metadata: { status: "Success" }, error: "Google Hotels hasn't returned any results for this query." });
  assert.deepEqual(empty.records, []);
  assert.equal(empty.next, null);
  assert.throws(() => page({ error: "Invalid API key." }, STAY, 401), (e: unknown) => e instanceof ApiError && /refused this deployment's account/.test(e.message));
  assert.throws(() => page({ error: "Your account has run out of searches." }), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  assert.throws(() => page({ error: "Invalid check_out_date." }, STAY, 400), /SerpApi reported: Invalid check_out_date/);
  assert.throws(() => page({ search_metadata: { status: "Error" } }), /reported the search as failed/);
});

test("drift: a renamed or retyped field the mapper reads is an error naming it, never an empty page", () => {
  const drifted = (change: (body: Record<string, unknown>) => void, pointer: RegExp) => {
    const body = structuredClone(search());
    change(body);
    assert.throws(() => page(body), (e: unknown) => e instanceof ProviderDrift && e.code === "provider_error" && pointer.test(e.message));
  };
  drifted((b) => {
    b.hotels = b.properties;
    delete b.properties;
  }, /\/properties is missing/);
  drifted((b) => {
    const first = (b.properties as Record<string, unknown>[])[0]!;
    first.title = first.name;
    delete first.name;
  }, /\/properties\/0\/name is missing/);
  drifted((b) => {
    ((b.properties as Record<string, unknown>[])[0]!.rate_per_night as Record<string, unknown>).extracted_lowest = "107";
  }, /\/properties\/0\/rate_per_night\/extracted_lowest/);
  drifted((b) => {
    (b.search_parameters as Record<string, unknown>).currency = 1;
  }, /\/search_parameters\/currency/);
  const detail = structuredClone(details()) as Record<string, unknown>;
  delete detail.name;
  assert.throws(() => checkJsonAnswer(detailRequest(STAY, "T"), 200, detail), /\/name is missing/);
});

test("a search Google answers with one property's page is that one property", () => {
  const one = { ...structuredClone(details()), search_information: { hotels_results_state: "Showing results for property details" } };
  const got = page(one);
  assert.equal(got.records.length, 1);
  assert.equal(got.records[0]!.summary.title, "Quality Inn & Suites South San Jose / Morgan Hill");
  assert.equal(got.next, null);
});

test("details: the property-details search and its bounded detail, with occupancy and booking links", () => {
  const req = detailRequest({ ...STAY, children_ages: [4] }, "TOKEN");
  assert.deepEqual(req.query, {
    engine: "google_hotels",
    q: "Lucknow",
    check_in_date: "2024-09-25",
    check_out_date: "2024-09-28",
    adults: 2,
    children: 1,
    children_ages: "4",
    currency: "USD",
    vacation_rentals: undefined,
    property_token: "TOKEN",
  });
  const { detail, links } = toDetail(details(), STAY, new Date("2030-01-01T00:00:00Z"));
  const d = detail as JsonObject;
  assert.equal(d.name, "Quality Inn & Suites South San Jose / Morgan Hill");
  assert.equal(d.address, "16525 Condit Rd, Morgan Hill, CA 95037");
  assert.equal(d.phone, "(408) 779-0447");
  assert.equal(d.currency, "BRL");
  assert.equal(d.price_per_night, 409);
  assert.deepEqual(d.typical_price_range, { lowest: 327, highest: 408 });
  assert.equal(d.fetched_at, "2024-09-09T01:41:27Z");
  const nearby = d.nearby_places as JsonObject[];
  assert.equal(nearby.length, 10);
  assert.deepEqual(nearby[0], { name: "Gilroy Gardens Family Theme Park", category: "Ponto de interesse", rating: 4.5, how_to_get_there: [{ mode: "Taxi", duration: "20 min" }] });
  const offers = d.booking_offers as JsonObject[];
  assert.equal(offers[0]?.source, "Booking.com");
  assert.equal(new Set(offers.map((o) => o.source)).size, offers.length, "one offer per source");
  assert.equal(d.booking_link, offers[0]?.link);
  assert.equal(d.occupancy_status, "partially_applied");
  assert.match(String(d.occupancy_note), /^The source answered for 1 adult, 2 requested/);
  assert.equal(links[0]?.label, "Property website");
  assert.ok(links.some((l) => l.label === "Book with Booking.com"), "links.some((l) => l.label === \"Book with Booking.com\")");
  assert.ok(links.length <= 6, "links.length <= 6");
  assert.equal("description" in d, false, "the recording has none: never invented");
});

test("schema and rules: bounds, occupancy limits and the vacation-rental rule at their pointers", () => {
  const ok = (body: JsonObject) => violationsOf(hotelsSearch, structuredClone(body));
  const base = { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28" };
  assert.deepEqual(ok(base), []);
  const at = (body: JsonObject) => [...new Set(ok(body).map((v) => v.path))];
  assert.deepEqual(at({ ...base, adults: 0 }), ["/adults"]);
  assert.deepEqual(at({ ...base, adults: 11 }), ["/adults"]);
  assert.deepEqual(at({ ...base, children_ages: [0] }), ["/children_ages/0"]);
  assert.deepEqual(at({ ...base, children_ages: [18] }), ["/children_ages/0"]);
  assert.deepEqual(at({ ...base, children_ages: [1, 2, 3, 4, 5, 6] }), ["/children_ages"]);
  assert.deepEqual(at({ ...base, check_in: "2024-9-25" }), ["/check_in"]);
  assert.deepEqual(at({ ...base, check_in: "2024-02-30" }), ["/check_in"]);
  assert.deepEqual(at({ ...base, check_out: "2024-09-24" }), ["/check_out"]);
  assert.deepEqual(at({ ...base, currency: "US" }), ["/currency"]);
  assert.deepEqual(at({ ...base, max_price: -1 }), ["/max_price"]);
  assert.deepEqual(at({ ...base, min_rating: 5.1 }), ["/min_rating"]);
  assert.deepEqual(at({ ...base, amenities: Array.from({ length: 11 }, () => "Pool") }), ["/amenities"]);
  assert.deepEqual(at({ ...base, property_type: "hostel" }), ["/property_type"]);
  assert.deepEqual(at({ ...base, sort: "cheapest" }), ["/sort"]);
  assert.deepEqual(at({ ...base, num: 5 }), ["/num"], "hotels has no num field");
  assert.deepEqual(at({ ...base, destination: "" }), ["/destination"]);
  // Six guests for hotels, ten for vacation rentals; child ages refused with vacation rentals.
  assert.deepEqual(ok({ ...base, adults: 6 }), []);
  assert.deepEqual(ok({ ...base, adults: 2, children_ages: [3, 4, 5, 6] }), []);
  const seven = ok({ ...base, adults: 3, children_ages: [3, 4, 5, 6] });
  assert.deepEqual(seven.map((v) => v.path), ["/children_ages"], "the term adding the most");
  // Adults left at their default (2): the pointer lands on the children the caller sent.
  assert.deepEqual(at({ ...base, children_ages: [3, 4, 5, 6, 7] }), ["/children_ages"]);
  assert.match(seven[0]!.message, /guests .* is 7; at most 6 allowed/);
  assert.deepEqual(ok({ ...base, adults: 10, property_type: "vacation_rental" }), []);
  assert.deepEqual(at({ ...base, adults: 7 }), ["/adults"]);
  const rental = ok({ ...base, children_ages: [5], property_type: "vacation_rental" });
  assert.deepEqual(rental.map((v) => v.path), ["/children_ages"]);
  assert.match(rental[0]!.message, /children_ages.* is not accepted with .property_type.: "vacation_rental"/);
  // In an update, the guest limit points at a field the caller sent: a term, else the field that set the limit.
  const stored = { ...base, adults: 8, currency: "USD", property_type: "hotel" };
  assert.deepEqual(hotelsSearch.checkRules(stored, new Set(["property_type"])).map((v) => v.path), ["/property_type"]);
  assert.deepEqual(hotelsSearch.checkRules(stored, new Set(["adults", "property_type"])).map((v) => v.path), ["/adults"]);
  assert.deepEqual(hotelsSearch.checkRules(stored).map((v) => v.path), ["/adults"]);
});

test("capability metadata follows spec 4.6", () => {
  assert.equal(hotelsSearch.paging, "token");
  assert.equal(hotelsSearch.deadlineMs, 15_000);
  assert.equal(hotelsSearch.typicalCredits, 4);
  assert.equal(hotelsSearch.offersUpdate, true);
  assert.equal(hotelsSearch.topic, "travel and places");
  assert.deepEqual(hotelsSearch.availability(new Set()), { missing: "SERPAPI_API_KEY" });
  assert.deepEqual(Object.values(hotelsSearch.actions).map((a) => [a.name, a.mode, a.credits]), [["details", "fetched", 4]]);
  assert.equal(hotelsSearch.maxCredits({ destination: "x", check_in: "2024-01-01", check_out: "2024-01-02", adults: 2, currency: "USD" }), 4);
  assert.deepEqual(hotelsSearch.recordKeys.required, ["requested_occupancy", "occupancy_status"]);
});
