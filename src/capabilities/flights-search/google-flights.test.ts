// flights.search: the pure google_flights mappers over the recorded round-trip chain
// (fixtures/providers/serpapi-google_flights), the documented booking-options example, and the
// schema and rules as execute runs them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture, violationsOf } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import { type BookingAnswer, bookingAnswer, bookingRequest, returnSearchDetail, toBookingDetail } from "./booking-options.ts";
import { flightsSearch, type FlightsSearchQuery } from "./capability.ts";
import { durationLabel, type FlightsAnswer, flightsAnswer, stepOf, toPage, toRequest } from "./google-flights.ts";

// The recordings as the upstream client passes them: each fits its declared answer.
const flights = (file: string) => checkShape("serpapi", flightsAnswer, fixture("serpapi-google_flights", file)) as Record<string, unknown>;
const booking = () => checkShape("serpapi", bookingAnswer, fixture("serpapi-google_flights", "booking_options_documented.json"));
const PASSENGERS = { adults: 1, children: 0, infants_in_seat: 0, infants_on_lap: 0 };
const ROUND: FlightsSearchQuery = { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19", ...PASSENGERS, currency: "USD" };

/** What the source makes of an answer: the upstream client's check (SerpApi's refusals, then the schema), then the mapper. */
function page(body: unknown, query: FlightsSearchQuery = ROUND, status = 200) {
  checkJsonAnswer(toRequest(query), status, body);
  return toPage(body as FlightsAnswer, query);
}

function bookingOf(body: unknown, status = 200) {
  checkJsonAnswer(bookingRequest(ROUND, "BOOK"), status, body);
  return toBookingDetail(body as BookingAnswer, ROUND);
}

test("request: route, dates, trip type, passengers, cabin and stops as SerpApi's codes", () => {
  const req = toRequest({ ...ROUND, origin: "sin", adults: 2, children: 1, infants_on_lap: 1, cabin: "premium_economy", max_stops: 0, currency: "eur" });
  assert.equal(req.provider, "serpapi");
  assert.deepEqual(req.query, {
    engine: "google_flights",
    departure_id: "SIN",
    arrival_id: "AUS",
    outbound_date: "2025-09-09",
    return_date: "2025-09-19",
    type: 1,
    adults: 2,
    children: 1,
    infants_in_seat: 0,
    infants_on_lap: 1,
    travel_class: 2,
    stops: 1,
    currency: "EUR",
    hl: "en",
    departure_token: undefined,
  });
  const oneWay = toRequest({ ...ROUND, return_date: undefined, max_stops: 2 }).query as Record<string, unknown>;
  assert.equal(oneWay.type, 2);
  assert.equal(oneWay.stops, 3);
  assert.equal(oneWay.return_date, undefined);
  assert.equal((toRequest({ ...ROUND, departure_token: "T" }).query as Record<string, unknown>).departure_token, "T");
  assert.deepEqual([stepOf(ROUND), stepOf({ ...ROUND, departure_token: "T" }), stepOf({ ...ROUND, return_date: undefined })], ["outbound", "return", "one_way"]);
  assert.deepEqual([durationLabel(1480), durationLabel(45), durationLabel(120), durationLabel(undefined)], ["24 h 40 min", "45 min", "2 h", undefined]);
});

test("outbound options of a round trip: legs, price, stops, layovers, emissions, needs_return_selection", () => {
  const got = page(flights("search_round_trip_multi_leg.json"));
  assert.equal(got.next, null);
  assert.equal(got.records.length, 11, "best_flights then other_flights");
  const first = got.records[0]!;
  const s = first.summary;
  assert.equal(s.title, "Outbound SIN → AUS, Air Canada + United, departs 2025-09-09 09:10");
  assert.equal(s.currency, "USD");
  assert.deepEqual(s.requested_passengers, PASSENGERS);
  assert.equal(s.price, 920);
  assert.equal(s.total_duration, "24 h 40 min");
  assert.equal(s.stops, 2);
  assert.equal(s.departure, "2025-09-09 09:10");
  assert.equal(s.arrival, "2025-09-09 20:50");
  assert.equal(s.emissions_kg, 1076);
  assert.equal(s.needs_return_selection, true);
  assert.match(String(s.url), /^https:\/\/www\.google\.com\/travel\/flights\?/);
  const legs = s.legs as JsonObject[];
  assert.equal(legs.length, 3);
  assert.deepEqual(legs[0], {
    from: "SIN",
    from_name: "Singapore Changi Airport",
    departs_at: "2025-09-09 09:10",
    to: "YVR",
    to_name: "Vancouver International Airport",
    arrives_at: "2025-09-09 08:35",
    duration_min: 865,
    airline: "Air Canada",
    flight_number: "AC 20",
    airplane: "Boeing 787",
    travel_class: "Economy",
    legroom: "31 in",
    overnight: true,
  });
  assert.equal(legs[1]?.often_delayed, true);
  assert.deepEqual(s.layovers, [
    { airport: "YVR", name: "Vancouver International Airport", duration_min: 245 },
    { airport: "DEN", name: "Denver International Airport", duration_min: 64 },
  ]);
  assert.equal(typeof first.ref?.departure_token, "string");
  assert.match(got.notes?.join(" ") ?? "", /step 1 of 2/);
  assert.match(got.notes?.join(" ") ?? "", /rates these prices as low \(typical 1100-1200 USD\)/);
});

test("return options for an outbound: booking tokens, needs_return_selection false", () => {
  const token = (flights("return_flights_by_departure_token.json").search_parameters as JsonObject).departure_token as string;
  const got = page(flights("return_flights_by_departure_token.json"), { ...ROUND, departure_token: token });
  assert.equal(got.records.length, 6);
  const s = got.records[0]!.summary;
  assert.equal(s.title, "Return AUS → SIN, United + Air Canada, departs 2025-09-19 08:00");
  assert.equal(s.needs_return_selection, false);
  assert.equal(typeof got.records[0]!.ref?.booking_token, "string");
  assert.equal(got.records[0]!.ref?.departure_token, undefined);
  assert.match(got.notes?.join(" ") ?? "", /step 2 of 2/);
  // An answer whose echo names no departure_token is not this return search.
  assert.throws(() => page(flights("search_round_trip_multi_leg.json"), { ...ROUND, departure_token: "T" }), /answered a different search/);
});

test("details of an outbound: return_search with the original query and the token, not billed", () => {
  const out = returnSearchDetail({ ...ROUND, cabin: "business" }, "TOKEN");
  assert.equal(out.billed, false);
  assert.deepEqual(out.links, []);
  const d = out.detail as JsonObject;
  assert.equal(d.selection, "outbound");
  assert.deepEqual(d.return_search, {
    capability: "flights.search",
    params: { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19", ...PASSENGERS, cabin: "business", currency: "USD", departure_token: "TOKEN" },
  });
  const params = structuredClone((d.return_search as JsonObject).params as JsonObject);
  assert.deepEqual(violationsOf(flightsSearch, params), [], "return_search.params is a valid flights.search body");
});

test("booking options (documented example): both legs, one ticket or separate tickets, booking requests", () => {
  const req = bookingRequest({ ...ROUND, departure_token: "T" }, "BOOK");
  assert.equal((req.query as Record<string, unknown>).booking_token, "BOOK");
  assert.equal((req.query as Record<string, unknown>).departure_token, undefined);
  const { detail, links, billed } = toBookingDetail(booking(), ROUND);
  assert.equal(billed, undefined);
  const d = detail as JsonObject;
  assert.equal(d.selection, "round_trip");
  assert.equal(d.currency, "USD");
  const selected = d.selected_flights as JsonObject[];
  assert.equal(selected.length, 2);
  assert.equal((selected[0]!.legs as JsonObject[])[0]?.flight_number, "AC 20");
  assert.equal((selected[1]!.legs as JsonObject[])[0]?.flight_number, "UA 357");
  const options = d.booking_options as JsonObject[];
  assert.equal(options.length, 3);
  assert.equal(options[0]?.separate_tickets, false);
  assert.equal(options[0]?.book_with, "Air Canada");
  assert.equal(options[0]?.price, 920);
  assert.deepEqual(options[0]?.booking_request, { url: "https://www.google.com/travel/clk/f", post_data: "u=documented-example-post-data" });
  assert.equal(options[2]?.separate_tickets, true);
  assert.equal((options[2]!.departing as JsonObject).book_with, "United");
  assert.equal((options[2]!.returning as JsonObject).price, 455);
  assert.deepEqual(d.baggage_prices, { together: ["1 free carry-on", "1st checked bag: 75 USD"] });
  assert.equal(links[0]?.label, "Google Flights");
  const none = bookingOf({ search_metadata: { status: "Success" }, error: "Google Flights hasn't returned any results for this query." });
  assert.deepEqual((none.detail as JsonObject).booking_options, []);
  assert.throws(() => bookingOf({ error: "Invalid booking_token." }, 400), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  const drifted = structuredClone(booking()) as Record<string, unknown>;
  drifted.booking_choices = drifted.booking_options;
  delete drifted.booking_options;
  assert.throws(() => bookingOf(drifted), (e: unknown) => e instanceof ProviderDrift && /\/booking_options is missing/.test(e.message));
});

test("no results is an empty page; an answer in another shape is drift naming the field, never an empty page", () => {
  const empty = page({ search_metadata: { status: "Success" }, error: "Google Flights hasn't returned any results for this query." });
  assert.deepEqual(empty.records, []);
  assert.match(empty.notes?.[0] ?? "", /found no flights/);
  const oneWay = { ...ROUND, return_date: undefined };
  const got = page({ best_flights: [{ flights: [{ departure_airport: { id: "A" }, arrival_airport: { id: "B" } }] }] }, oneWay);
  assert.equal(got.records.length, 1);
  assert.deepEqual(Object.keys(got.records[0]!.summary).sort(), ["currency", "legs", "requested_passengers", "snippet", "stops", "title"]);
  assert.throws(() => page({ error: "This account has been disabled." }, ROUND, 403), /refused this deployment's account/);
  const drift = (body: unknown, pointer: RegExp) =>
    assert.throws(() => page(body, oneWay), (e: unknown) => e instanceof ProviderDrift && e.code === "provider_error" && pointer.test(e.message));
  drift({ best_flights: [{ price: 5 }] }, /\/best_flights\/0\/flights is missing/);
  drift({ best_flights: [{ flights: [{ departure_airport: { code: "A" }, arrival_airport: { id: "B" } }] }] }, /\/best_flights\/0\/flights\/0\/departure_airport\/id/);
  drift({ best_flights: [{ flights: [], price: "5" }] }, /\/best_flights\/0\/price/);
  drift({ search_metadata: { status: "Success" }, flight_options: [] }, /\/best_flights is missing/);
});

test("schema and rules: airports, dates, passengers, token at their pointers", () => {
  const at = (body: JsonObject, sent?: string[]) => {
    const b = structuredClone(body);
    const found = violationsOf(flightsSearch, b);
    return [...new Set((sent ? flightsSearch.checkRules(b, new Set(sent)) : found).map((v) => v.path))];
  };
  const base = { origin: "SIN", destination: "AUS", departure_date: "2025-09-09" };
  assert.deepEqual(at(base), []);
  assert.deepEqual(at({ ...base, origin: "SING" }), ["/origin"]);
  assert.deepEqual(at({ ...base, destination: "A1S" }), ["/destination"]);
  assert.deepEqual(at({ ...base, departure_date: "2025-02-29" }), ["/departure_date"]);
  assert.deepEqual(at({ ...base, return_date: "2025-09-08" }), ["/return_date"]);
  assert.deepEqual(at({ ...base, return_date: "2025-09-09" }), []);
  assert.deepEqual(at({ ...base, departure_token: "T" }), ["/departure_token"]);
  assert.deepEqual(at({ ...base, return_date: "2025-09-10", departure_token: "" }), ["/departure_token"]);
  assert.deepEqual(at({ ...base, return_date: "2025-09-10", departure_token: "x".repeat(16385) }), ["/departure_token"]);
  assert.deepEqual(at({ ...base, adults: 0 }), ["/adults"]);
  assert.deepEqual(at({ ...base, adults: 10 }), ["/adults"]);
  assert.deepEqual(at({ ...base, children: 9 }), ["/children"]);
  assert.deepEqual(at({ ...base, infants_in_seat: -1 }), ["/infants_in_seat"]);
  assert.deepEqual(at({ ...base, infants_on_lap: 9 }), ["/infants_on_lap"]);
  assert.deepEqual(at({ ...base, cabin: "coach" }), ["/cabin"]);
  assert.deepEqual(at({ ...base, max_stops: 3 }), ["/max_stops"]);
  assert.deepEqual(at({ ...base, currency: "DOLLAR" }), ["/currency"]);
  assert.deepEqual(at({ ...base, children_ages: [5] }), ["/children_ages"], "child ages are not accepted");
  assert.deepEqual(at({ ...base, adults: 9 }), []);
  assert.deepEqual(at({ ...base, adults: 5, children: 3, infants_on_lap: 2 }), ["/adults"]);
  assert.deepEqual(at({ ...base, children: 8, infants_on_lap: 2 }), ["/children"], "adults left at 1: the largest term sent");
  // In an update the pointer names what the caller sent.
  assert.deepEqual(at({ ...base, adults: 5, children: 3, infants_on_lap: 2 }, ["infants_on_lap"]), ["/infants_on_lap"]);
  assert.deepEqual(at({ ...base, return_date: "2025-09-01" }, ["departure_date"]), ["/departure_date"]);
});

test("capability metadata follows spec 4.6", () => {
  assert.equal(flightsSearch.paging, "single");
  assert.equal(flightsSearch.deadlineMs, 15_000);
  assert.equal(flightsSearch.typicalCredits, 4);
  assert.equal(flightsSearch.offersUpdate, false);
  assert.deepEqual(flightsSearch.availability(new Set()), { missing: "SERPAPI_API_KEY" });
  assert.deepEqual(Object.values(flightsSearch.actions).map((a) => [a.name, a.mode, a.credits]), [["details", "fetched", 4]]);
  assert.deepEqual(flightsSearch.recordKeys.required, ["currency", "requested_passengers", "legs"]);
});
