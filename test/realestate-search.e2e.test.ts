/**
 * realestate.search end to end over HTTP against the replay upstream (documented-example bodies of
 * the Zillow listing API): execute with the RapidAPI headers, every field's bounds and the price
 * rule (at execute and through update), page paging within and across the API's pages with nothing
 * repeated or skipped, home-type filtering, price kinds, update billed, and details fetched once
 * for 4 credits then cached, with an unreported last sale left unknown.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("realestate.search");
});
after(async () => {
  await kit.close();
});

const SM = { query: "Santa Monica, CA" };
const calls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === "realestate");

test("execute: ten listings with their keys, price_kind always, 4 credits, RapidAPI headers sent", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const res = await kit.execute(SM);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result_count, 10);
  assert.equal(res.body.has_more, true);
  assert.equal(res.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.deepEqual(res.body.next.actions, ["more", "update"]);
  const [call] = calls(from);
  assert.equal(call?.path, "/realestate/propertyExtendedSearch");
  assert.equal(call?.matched, "realestate/extended_search_santa_monica_for_sale_p1");
  assert.deepEqual(call?.query, { location: "Santa Monica, CA", status_type: "ForSale", page: "1" });
  assert.equal(call?.headers["x-rapidapi-key"], "demo-key");
  assert.equal(call?.headers["x-rapidapi-host"], "zillow-com1.p.rapidapi.com");
  const first = res.body.results[0];
  assert.equal(first.city, "Santa Monica");
  assert.equal(first.price, 1295000);
  assert.equal(first.price_kind, "listing_price");
  assert.equal(first.source, "Zillow via RapidAPI (zillow-com1)");
  assert.match(first.fetched_at, /^\d{4}-\d{2}-\d{2}T/);
  for (const r of res.body.results) assert.ok(["listing_price", "unknown"].includes(r.price_kind), "[\"listing_price\", \"unknown\"].includes(r.price_kind)");
  assert.doesNotMatch(JSON.stringify(res.body), /"zpid"/, "the property id stays private");
});

test("price kinds of rentals and sold listings", async () => {
  const rent = await kit.execute({ query: "Austin, TX", listing_status: "for_rent" });
  assert.equal(rent.status, 200, JSON.stringify(rent.body));
  assert.deepEqual(rent.body.results.map((r: { price_kind: string }) => r.price_kind), ["monthly_rent", "monthly_rent", "monthly_rent", "unknown"]);
  assert.equal("price" in rent.body.results[3], false);
  const sold = await kit.execute({ query: "Austin, TX", listing_status: "sold" });
  assert.deepEqual(sold.body.results.map((r: { price_kind: string }) => r.price_kind), ["reported_sold_price", "reported_sold_price"]);
});

test("every field's bounds and enums; min_price ≤ max_price at execute and through update", async () => {
  const before = await kit.used();
  const cases: [object, string][] = [
    [{}, "/query"],
    [{ query: "" }, "/query"],
    [{ query: "x".repeat(301) }, "/query"],
    [{ query: "x", listing_status: "pending" }, "/listing_status"],
    [{ query: "x", home_types: [] }, "/home_types"],
    [{ query: "x", home_types: ["house", "house"] }, "/home_types"],
    [{ query: "x", home_types: ["villa"] }, "/home_types/0"],
    [{ query: "x", home_types: "house" }, "/home_types"],
    [{ query: "x", min_price: -1 }, "/min_price"],
    [{ query: "x", max_price: "1000" }, "/max_price"],
    [{ query: "x", min_beds: 0 }, "/min_beds"],
    [{ query: "x", min_beds: 6 }, "/min_beds"],
    [{ query: "x", min_beds: 1.5 }, "/min_beds"],
    [{ query: "x", min_baths: 0 }, "/min_baths"],
    [{ query: "x", min_baths: 5 }, "/min_baths"],
    [{ query: "x", sort: "cheapest" }, "/sort"],
    [{ query: "x", num: 0 }, "/num"],
    [{ query: "x", num: 21 }, "/num"],
    [{ query: "x", zip: "90403" }, "/zip"],
  ];
  for (const [body, pointer] of cases) await kit.expectViolation(body, pointer);
  await kit.expectViolation({ query: "x", min_price: 900, max_price: 100 }, "/min_price", /must not exceed max_price/);
  assert.equal(await kit.used(), before, "refused calls cost nothing");
  const ex = await kit.execute({ ...SM, min_price: 500000 });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  await kit.expectUpdateViolation(ex.body.search_id, { max_price: 1000 }, "/params/max_price", /must not be before min_price \(500000, from the search\)/);
  await kit.expectUpdateViolation(ex.body.search_id, { min_price: 3e6, max_price: 1e6 }, "/params/min_price", /must not exceed max_price/);
  await kit.expectUpdateViolation(ex.body.search_id, { home_types: ["house", "villa"] }, "/params/home_types/1");
  await kit.expectUpdateViolation(ex.body.search_id, { num: 21 }, "/params/num");
});

test("page paging: num listings a call within and across the API's pages, none repeated or skipped", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const first = await kit.execute({ ...SM, num: 5 });
  const titles: string[] = first.body.results.map((r: { title: string }) => r.title);
  const counts = [first.body.result_count];
  const charges = [first.body.charged_credits];
  let page = first;
  while (page.body.has_more) {
    page = await kit.more(first.body.search_id);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    titles.push(...page.body.results.map((r: { title: string }) => r.title));
    counts.push(page.body.result_count);
    charges.push(page.body.charged_credits);
  }
  // The API's first page holds 12 listings, its second 3: 5, 5, then 2 + 3 from two pages.
  assert.deepEqual(counts, [5, 5, 5]);
  assert.deepEqual(charges, [4, 4, 8]);
  assert.equal(new Set(titles).size, 15, titles.join(" | "));
  assert.equal(titles[14], "1819 Franklin St, Santa Monica, CA 90404");
  assert.equal((await kit.used()) - before, 16);
  assert.deepEqual(
    calls(from).map((c) => c.query.page),
    ["1", "1", "1", "2"],
  );
  const end = await kit.more(first.body.search_id);
  assert.equal(end.body.result_count, 0);
  assert.equal(end.body.charged_credits, 0);
});

test("home types: the API's names sent, other types left out with a note, the next page read to fill the call", async () => {
  const from = kit.h.replay.requests.length;
  const res = await kit.execute({ ...SM, home_types: ["townhouse", "land"] });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(
    calls(from).map((c) => [c.query.home_type, c.query.page]),
    [
      ["Townhomes,LotsLand", "1"],
      ["Townhomes,LotsLand", "2"],
    ],
  );
  // Page 1 holds two townhouses and a lot among 12; page 2 none of those types among 3.
  assert.deepEqual(res.body.results.map((r: { home_type: string }) => r.home_type), ["townhouse", "land", "townhouse"]);
  assert.equal(res.body.charged_credits, 8);
  assert.equal(res.body.has_more, false);
  assert.equal(res.body.notes[0], "12 listings of other home types left out; a page can be short or empty while has_more is true.");
});

test("update: merged params, paging reset, same search_id, billed 4 credits", async () => {
  const ex = await kit.execute(SM);
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const up = await kit.update(ex.body.search_id, { sort: "price_asc", num: 3 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.result_count, 3);
  assert.equal(up.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.equal(calls(from)[0]?.query.sort, "Price_Low_High");
});

test("details: fetched once for 4 credits, then cached at 0; an unreported last sale stays unknown", async () => {
  const ex = await kit.execute(SM);
  const [condo, house, third] = ex.body.results;
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const d = await kit.action(condo.record_id, "details");
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.cached, false);
  assert.equal(d.body.charged_credits, 4);
  assert.deepEqual(d.body.detail.last_sale, { price: 880000, date: "2015-01-01" });
  assert.equal(d.body.detail.sale_history.length, 2);
  assert.equal(d.body.detail.listing_url, condo.url);
  assert.deepEqual(d.body.links, [{ label: "Listing on Zillow", url: condo.url }]);
  assert.equal(calls(from)[0]?.path, "/realestate/property");
  assert.equal(calls(from)[0]?.query.zpid, "20485717");
  const again = await kit.action(condo.record_id, "details");
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.deepEqual(again.body.detail, d.body.detail);
  assert.equal(calls(from).length, 1, "the repeat makes no provider call");
  const unknown = await kit.action(house.record_id, "details");
  assert.equal(unknown.status, 200, JSON.stringify(unknown.body));
  assert.deepEqual(unknown.body.detail.last_sale, { price: null, date: null });
  assert.equal(unknown.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 8);
  const missing = await kit.action(third.record_id, "details");
  assert.equal(missing.status, 502, JSON.stringify(missing.body));
  assert.equal((await kit.used()) - before, 8, "a failed fetch charges nothing");
});
