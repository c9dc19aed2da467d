/**
 * flights.search end to end over HTTP against the replay upstream (SerpApi google_flights recordings
 * of one SIN→AUS round-trip chain, and a documented booking-options example): the whole round-trip
 * flow (outbound search → free `return_search` → return search → booking options for both legs, 4
 * credits, then cached), every bound and rule at its pointer, single-result paging and no update.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { ROOMY_PLANS } from "./helpers/roomy-plans.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("flights.search", { env: ROOMY_PLANS });
});
after(async () => {
  await kit.close();
});

const ROUND = { origin: "SIN", destination: "AUS", departure_date: "2025-09-09", return_date: "2025-09-19" };
const serpCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi");

test("the round-trip flow: outbound → return_search (free) → return flights → booking options for both legs", async () => {
  const start = await kit.used();
  let from = kit.h.replay.requests.length;

  // 1. Outbound options: one search, 4 credits, every option on one page.
  const outbound = await kit.execute(ROUND);
  assert.equal(outbound.status, 200, JSON.stringify(outbound.body));
  assert.equal(outbound.body.charged_credits, 4);
  assert.equal(outbound.body.result_count, 11);
  assert.equal(outbound.body.has_more, false);
  assert.deepEqual(outbound.body.next.actions, []);
  assert.equal(outbound.body.next.example.action, "details");
  assert.match(outbound.body.notes.join(" "), /step 1 of 2/);
  const sent = serpCalls(from)[0]?.query;
  assert.equal(sent?.engine, "google_flights");
  assert.equal(sent?.type, "1");
  assert.equal(sent?.departure_id, "SIN");
  for (const r of outbound.body.results) {
    assert.equal(r.needs_return_selection, true);
    assert.deepEqual(r.requested_passengers, { adults: 1, children: 0, infants_in_seat: 0, infants_on_lap: 0 });
    assert.equal(r.currency, "USD");
    assert.ok(r.legs.length >= 1, "r.legs.length >= 1");
  }
  const chosen = outbound.body.results[1];
  assert.deepEqual(chosen.legs.map((l: { flight_number: string }) => l.flight_number), ["AC 20", "UA 2470", "UA 1942"]);

  // 2. Details on the outbound: return_search, no provider call, no charge; cached on repeat.
  from = kit.h.replay.requests.length;
  const selection = await kit.action(chosen.record_id, "details");
  assert.equal(selection.status, 200, JSON.stringify(selection.body));
  assert.equal(selection.body.charged_credits, 0);
  assert.equal(selection.body.cached, false);
  assert.equal(serpCalls(from).length, 0, "no provider call");
  const returnSearch = selection.body.detail.return_search;
  assert.equal(returnSearch.capability, "flights.search");
  assert.equal(returnSearch.params.origin, "SIN");
  assert.equal(returnSearch.params.return_date, "2025-09-19");
  assert.equal(typeof returnSearch.params.departure_token, "string");
  const repeat = await kit.action(chosen.record_id, "details");
  assert.equal(repeat.body.cached, true);
  assert.equal(repeat.body.charged_credits, 0);
  assert.deepEqual(repeat.body.detail, selection.body.detail);
  assert.equal(await kit.used(), start + 4);

  // 3. Executing return_search lists that outbound's return flights (a search: 4 credits).
  from = kit.h.replay.requests.length;
  const returns = await kit.execute(returnSearch.params);
  assert.equal(returns.status, 200, JSON.stringify(returns.body));
  assert.equal(returns.body.charged_credits, 4);
  assert.equal(serpCalls(from)[0]?.query.departure_token, returnSearch.params.departure_token);
  assert.equal(serpCalls(from)[0]?.matched, "serpapi-google_flights/return_flights_sin_aus");
  assert.equal(returns.body.result_count, 6);
  assert.match(returns.body.notes.join(" "), /step 2 of 2/);
  for (const r of returns.body.results) assert.equal(r.needs_return_selection, false);
  const back = returns.body.results[0];
  assert.equal(back.title, "Return AUS → SIN, United + Air Canada, departs 2025-09-19 08:00");

  // 4. Details on the chosen return: booking options for both legs, 4 credits, then cached.
  from = kit.h.replay.requests.length;
  const booking = await kit.action(back.record_id, "details");
  assert.equal(booking.status, 200, JSON.stringify(booking.body));
  assert.equal(booking.body.charged_credits, 4);
  assert.equal(booking.body.cached, false);
  const call = serpCalls(from)[0];
  assert.equal(typeof call?.query.booking_token, "string");
  assert.equal(call?.matched, "serpapi-google_flights/booking_options_sin_aus");
  const detail = booking.body.detail;
  assert.equal(detail.selection, "round_trip");
  assert.deepEqual(
    detail.selected_flights.map((s: { legs: { flight_number: string }[] }) => s.legs.map((l) => l.flight_number).join(",")),
    ["AC 20,UA 2470,UA 1942", "UA 357,AC 557,AC 19"],
  );
  assert.equal(detail.booking_options[0].book_with, "Air Canada");
  assert.equal(detail.booking_options[2].separate_tickets, true);
  assert.deepEqual(booking.body.links.map((l: { label: string }) => l.label), ["Google Flights"]);
  const cached = await kit.action(back.record_id, "details");
  assert.equal(cached.body.cached, true);
  assert.equal(cached.body.charged_credits, 0);
  assert.deepEqual(cached.body.detail, detail);
  assert.equal(serpCalls(from).length, 1, "the repeat makes no provider call");
  assert.equal(await kit.used(), start + 12);
});

test("a return search the provider cannot answer is 502 provider_error, nothing charged", async () => {
  const ex = await kit.execute({ origin: "BER", destination: "ORY", departure_date: "2025-03-12", return_date: "2025-03-20", currency: "EUR" });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  assert.equal(ex.body.results[0].currency, "EUR");
  assert.equal(ex.body.results[0].price, 69);
  const selection = await kit.action(ex.body.results[0].record_id, "details");
  const before = await kit.used();
  const res = await kit.execute(selection.body.detail.return_search.params);
  assert.equal(res.status, 502, JSON.stringify(res.body));
  assert.equal(res.body.error.code, "provider_error");
  assert.equal(await kit.used(), before);
});

test("single result: more is refused; update is not offered", async () => {
  const ex = await kit.execute(ROUND);
  const more = await kit.more(ex.body.search_id);
  assert.equal(more.status, 400);
  assert.equal(more.body.error.violations[0].path, "/action");
  const up = await kit.update(ex.body.search_id, { adults: 2 });
  assert.equal(up.status, 400, JSON.stringify(up.body));
  assert.equal(up.body.error.code, "invalid_request");
  assert.equal(up.body.error.violations[0].path, "/action");
});

test("every bound and rule at its pointer", async () => {
  const cases: [object, string, RegExp?][] = [
    [{ ...ROUND, origin: undefined }, "/origin"],
    [{ ...ROUND, origin: "SINGAPORE" }, "/origin"],
    [{ ...ROUND, destination: "A-S" }, "/destination"],
    [{ ...ROUND, departure_date: "9/9/2025" }, "/departure_date"],
    [{ ...ROUND, departure_date: "2025-09-31" }, "/departure_date", /valid calendar date/],
    [{ ...ROUND, return_date: "2025-13-01" }, "/return_date", /valid calendar date/],
    [{ ...ROUND, return_date: "2025-09-08" }, "/return_date", /return_date must not be before departure_date/],
    [{ ...ROUND, return_date: undefined, departure_token: "WyJ" }, "/departure_token", /requires the original round-trip `return_date`/],
    [{ ...ROUND, departure_token: "" }, "/departure_token"],
    [{ ...ROUND, adults: 0 }, "/adults"],
    [{ ...ROUND, adults: 10 }, "/adults"],
    [{ ...ROUND, children: -1 }, "/children"],
    [{ ...ROUND, infants_in_seat: 9 }, "/infants_in_seat"],
    [{ ...ROUND, infants_on_lap: 1.5 }, "/infants_on_lap"],
    [{ ...ROUND, adults: 4, children: 4, infants_in_seat: 1, infants_on_lap: 1 }, "/adults", /number of passengers is 10; at most 9 allowed/],
    [{ ...ROUND, children: 2, children_ages: [4, 9] }, "/children_ages", /unknown field/],
    [{ ...ROUND, cabin: "coach" }, "/cabin"],
    [{ ...ROUND, max_stops: -1 }, "/max_stops"],
    [{ ...ROUND, currency: "E" }, "/currency"],
  ];
  for (const [body, pointer, message] of cases) await kit.expectViolation(body, pointer, message);
  const nine = await kit.execute({ ...ROUND, adults: 3, children: 3, infants_in_seat: 2, infants_on_lap: 1 });
  assert.equal(nine.status, 200, JSON.stringify(nine.body));
  assert.deepEqual(nine.body.results[0].requested_passengers, { adults: 3, children: 3, infants_in_seat: 2, infants_on_lap: 1 });
});
