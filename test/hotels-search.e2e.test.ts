/**
 * hotels.search end to end over HTTP against the replay upstream (SerpApi google_hotels recordings):
 * execute (4 credits), token paging with `more` (4 credits a provider page, free past the end), every
 * bound and rule at its pointer at execute and through `update` (under /params), the billed update,
 * and `details` fetched once for 4 credits then cached (0 credits, `cached: true`).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { ROOMY_PLANS } from "./helpers/roomy-plans.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("hotels.search", { env: ROOMY_PLANS });
});
after(async () => {
  await kit.close();
});

const STAY = { destination: "Lucknow", check_in: "2024-09-25", check_out: "2024-09-28" };
const serpCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === "serpapi");

test("execute: 20 properties for 4 credits, occupancy on every record, a next page by token", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const res = await kit.execute(STAY);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.capability, "hotels.search");
  assert.equal(res.body.result_count, 20);
  assert.equal(res.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.equal(res.body.has_more, true);
  assert.deepEqual(res.body.next.actions, ["more", "update"]);
  assert.deepEqual(res.body.record_actions, ["details"]);
  const calls = serpCalls(from);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]?.query.engine, "google_hotels");
  assert.equal(calls[0]?.query.q, "Lucknow");
  assert.equal(calls[0]?.query.adults, "2");
  assert.equal(calls[0]?.query.children, "0");
  assert.equal(calls[0]?.query.api_key, "demo-key");
  for (const r of res.body.results) {
    assert.deepEqual(r.requested_occupancy, { adults: 2, children: 0 });
    assert.equal(r.occupancy_status, "as_requested");
  }
  assert.equal(res.body.results[0].title, "Hyatt Regency Lucknow");
  assert.equal(res.body.results[0].price_per_night, 107);
});

test("more: the next provider page by next_page_token (4 credits); past the end, empty and free", async () => {
  const ex = await kit.execute(STAY);
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const page2 = await kit.more(ex.body.search_id);
  assert.equal(page2.status, 200, JSON.stringify(page2.body));
  assert.equal(page2.body.search_id, ex.body.search_id);
  assert.equal(page2.body.charged_credits, 4);
  assert.equal(serpCalls(from)[0]?.query.next_page_token, "CBI=");
  assert.equal(page2.body.results[0].title, "Quality Inn & Suites South San Jose / Morgan Hill");
  // That page's echo names 1 adult: the source ignored part of the request.
  assert.equal(page2.body.results[0].occupancy_status, "partially_applied");
  assert.equal(page2.body.results[0].occupancy_note, "The source answered for 1 adult, 2 requested.");
  assert.equal(page2.body.has_more, false);
  const past = await kit.more(ex.body.search_id);
  assert.equal(past.status, 200);
  assert.equal(past.body.result_count, 0);
  assert.equal(past.body.charged_credits, 0);
  assert.equal((await kit.used()) - before, 4);
});

test("a filtered page can be empty while has_more stays true; more still pages on", async () => {
  const ex = await kit.execute({ ...STAY, min_rating: 5 });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  assert.equal(ex.body.result_count, 0);
  assert.equal(ex.body.has_more, true);
  assert.match(ex.body.notes.join(" "), /20 of 20 properties on this provider page did not meet min_rating 5/);
  assert.deepEqual(ex.body.next.example, { search_id: ex.body.search_id, action: "more" });
  const more = await kit.more(ex.body.search_id);
  assert.equal(more.status, 200);
  assert.equal(more.body.charged_credits, 4);
});

test("every bound at its pointer", async () => {
  const cases: [object, string][] = [
    [{ check_in: STAY.check_in, check_out: STAY.check_out }, "/destination"],
    [{ ...STAY, destination: "x".repeat(201) }, "/destination"],
    [{ ...STAY, check_in: "25-09-2024" }, "/check_in"],
    [{ ...STAY, check_out: undefined }, "/check_out"],
    [{ ...STAY, adults: 0 }, "/adults"],
    [{ ...STAY, adults: 11 }, "/adults"],
    [{ ...STAY, adults: 2.5 }, "/adults"],
    [{ ...STAY, children_ages: [0] }, "/children_ages/0"],
    [{ ...STAY, children_ages: [18] }, "/children_ages/0"],
    [{ ...STAY, children_ages: [1, 1, 1, 1, 1, 1] }, "/children_ages"],
    [{ ...STAY, currency: "EURO" }, "/currency"],
    [{ ...STAY, max_price: -0.01 }, "/max_price"],
    [{ ...STAY, min_rating: -1 }, "/min_rating"],
    [{ ...STAY, amenities: [""] }, "/amenities/0"],
    [{ ...STAY, property_type: "apartment" }, "/property_type"],
    [{ ...STAY, sort: "price" }, "/sort"],
    [{ ...STAY, num: 10 }, "/num"],
  ];
  for (const [body, pointer] of cases) await kit.expectViolation(body, pointer);
});

test("every rule at its pointer at execute", async () => {
  await kit.expectViolation({ ...STAY, check_in: "2024-02-30" }, "/check_in", /valid calendar date/);
  await kit.expectViolation({ ...STAY, check_out: "2024-09-24" }, "/check_out", /check_out must not be before check_in/);
  await kit.expectViolation({ ...STAY, adults: 7 }, "/adults", /is 7; at most 6 allowed/);
  await kit.expectViolation({ ...STAY, adults: 4, children_ages: [3, 9, 12] }, "/adults", /is 7; at most 6 allowed/);
  // Ten guests for vacation rentals, and no child ages there.
  const ten = await kit.execute({ ...STAY, adults: 10, property_type: "vacation_rental" });
  assert.equal(ten.status, 200, JSON.stringify(ten.body));
  await kit.expectViolation({ ...STAY, children_ages: [8], property_type: "vacation_rental" }, "/children_ages", /not accepted with `property_type`: "vacation_rental"/);
});

test("every rule at its pointer through update, and nothing is charged for a refused update", async () => {
  const withChild = await kit.execute({ ...STAY, adults: 2, children_ages: [6] });
  assert.equal(withChild.status, 200, JSON.stringify(withChild.body));
  const id = withChild.body.search_id;
  const before = await kit.used();
  await kit.expectUpdateViolation(id, { property_type: "vacation_rental" }, "/params/property_type", /`children_ages` is not accepted with `property_type`: "vacation_rental"/);
  await kit.expectUpdateViolation(id, { adults: 6 }, "/params/adults", /is 7; at most 6 allowed/);
  await kit.expectUpdateViolation(id, { children_ages: [1, 2, 3, 4, 5] }, "/params/children_ages", /is 7; at most 6 allowed/);
  await kit.expectUpdateViolation(id, { check_out: "2024-09-01" }, "/params/check_out", /not be before check_in \("2024-09-25", from the search\)/);
  await kit.expectUpdateViolation(id, { check_in: "2024-13-01" }, "/params/check_in", /valid calendar date/);
  await kit.expectUpdateViolation(id, { children_ages: [19] }, "/params/children_ages/0");
  await kit.expectUpdateViolation(id, { adults: 0 }, "/params/adults");
  await kit.expectUpdateViolation(id, { sorting: "x" }, "/params/sorting");
  const rental = await kit.execute({ ...STAY, adults: 8, property_type: "vacation_rental" });
  await kit.expectUpdateViolation(rental.body.search_id, { children_ages: [4] }, "/params/children_ages", /from the search/);
  await kit.expectUpdateViolation(rental.body.search_id, { property_type: "hotel" }, "/params/property_type", /is 8; at most 6 allowed/);
  assert.equal(await kit.used(), before + 4, "only the vacation-rental execute was charged");
});

test("update: merged params, same search_id, billed 4 credits like a search", async () => {
  const ex = await kit.execute(STAY);
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const up = await kit.update(ex.body.search_id, { sort: "lowest_price", children_ages: [9] });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  const sent = serpCalls(from)[0]?.query;
  assert.equal(sent?.sort_by, "3");
  assert.equal(sent?.children, "1");
  assert.equal(sent?.children_ages, "9");
  assert.deepEqual(up.body.results[0].requested_occupancy, { adults: 2, children: 1, children_ages: [9] });
  assert.equal(up.body.results[0].occupancy_note, "The source answered for 0 children, 1 requested.");
});

test("details: fetched once for 4 credits, then cached at 0 credits", async () => {
  const ex = await kit.execute(STAY);
  const record = ex.body.results[0];
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const first = await kit.action(record.record_id, "details");
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.cached, false);
  assert.equal(first.body.charged_credits, 4);
  const call = serpCalls(from)[0];
  assert.equal(call?.query.property_token, "ChoIo5z-pJbJ-uPPARoNL2cvMTFidzR3djlzcxAB");
  assert.equal(call?.matched, "serpapi-google_hotels/property_details_for_lucknow");
  assert.equal(first.body.detail.name, "Quality Inn & Suites South San Jose / Morgan Hill");
  assert.ok(first.body.detail.nearby_places.length > 0, "first.body.detail.nearby_places.length > 0");
  assert.equal(typeof first.body.detail.booking_link, "string");
  assert.ok(first.body.links.some((l: { label: string }) => l.label.startsWith("Book with")), "first.body.links.some((l: { label: string }) => l.label.startsWith(\"Book with\"))");
  const again = await kit.action(record.record_id, "details");
  assert.equal(again.status, 200);
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.deepEqual(again.body.detail, first.body.detail);
  assert.equal(serpCalls(from).length, 1, "the repeat makes no provider call");
  assert.equal((await kit.used()) - before, 4);
});
