/**
 * shopping.search's filter rules end to end over HTTP (spec 4.6): `filter_id` only in `update`,
 * only an id of this search's `filters[]`, `null` clears it, not with `sort` or `condition`,
 * cleared by a change of query/country/language/location and refused when sent together with one;
 * the filter's private token reaches SerpApi (new layout: its q and shoprs; older layout: tbs) and
 * never the caller; a filtered search keeps its filters and its filter on `more`.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("shopping.search");
});
after(async () => {
  await kit.close();
});

const SOCCER = { query: "soccerl", country: "us", language: "en", location: "India" };
const COFFEE = { query: "coffee", country: "us", language: "en" };
const SALE_SHOPRS = "CAESBEoCCAEYBiIGY29mZmVlMhMIBhIHT24gc2FsZRgCIgRKAggBWKPSIGAC";
const lastShopping = () => kit.h.replay.requests.filter((r) => r.query.engine === "google_shopping").at(-1)!;

async function coffee(): Promise<{ id: string; filters: { id: string; label: string; group: string }[] }> {
  const ex = await kit.execute(COFFEE);
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  return { id: ex.body.search_id, filters: ex.body.filters };
}

test("filter_id is refused at execute, and must be an id of this search's filters[]", async () => {
  await kit.expectViolation({ ...COFFEE, filter_id: "quick-filters:on-sale" }, "/filter_id", /only in update/);
  const { id, filters } = await coffee();
  assert.deepEqual(
    filters.map((f) => f.id),
    ["quick-filters:on-sale", "quick-filters:used", "price:under-20", "price:20-40", "brand:folgers", "brand:lavazza"],
  );
  assert.deepEqual(filters[0], { id: "quick-filters:on-sale", label: "On sale", group: "Quick filters" });
  const before = await kit.used();
  await kit.expectUpdateViolation(id, { filter_id: "brand:nescafe" }, "/params/filter_id", /must be one of this search's filters\[\] ids: quick-filters:on-sale/);
  await kit.expectUpdateViolation(id, { filter_id: "" }, "/params/filter_id");
  await kit.expectUpdateViolation(id, { filter_id: 7 }, "/params/filter_id");
  assert.equal(await kit.used(), before);
});

test("applying a filter sends its token (q and shoprs), keeps the search's filters", async () => {
  const { id, filters } = await coffee();
  const before = await kit.used();
  const up = await kit.update(id, { filter_id: "quick-filters:on-sale" });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, id);
  assert.equal(up.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.deepEqual(
    up.body.results.map((r: { title: string }) => r.title),
    [
      "Lavazza Super Crema Whole Bean Coffee Blend, 2.2 lb",
      "Peet's Coffee Big Bang Medium Roast Ground Coffee, 18 oz",
      "Folgers Black Silk Dark Roast Ground Coffee, 24.2 oz",
    ],
  );
  const call = lastShopping();
  assert.equal(call.matched, "serpapi-google_shopping/search_coffee_on_sale_filter");
  assert.equal(call.query.q, "coffee sale");
  assert.equal(call.query.shoprs, SALE_SHOPRS);
  assert.deepEqual(up.body.filters, filters, "a filtered answer publishes the search's filters");
  assert.doesNotMatch(JSON.stringify(up.body), /shoprs|CAES|"token"/);
  // The same filter again, with an unchanged query, is fine (no change of scope).
  const again = await kit.update(id, { filter_id: "quick-filters:on-sale", query: "coffee" });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(lastShopping().query.shoprs, SALE_SHOPRS);
});

test("null clears the filter: the next search goes without its token", async () => {
  const { id } = await coffee();
  assert.equal((await kit.update(id, { filter_id: "quick-filters:on-sale" })).status, 200);
  const cleared = await kit.update(id, { filter_id: null });
  assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
  assert.equal(cleared.body.charged_credits, 4);
  const call = lastShopping();
  assert.equal(call.query.shoprs, undefined);
  assert.equal(call.query.q, "coffee");
  assert.equal(cleared.body.results[0].title, "Folgers Classic Roast Ground Coffee, 25.9 oz Canister");
});

test("filter_id cannot be combined with sort or condition, whichever was sent", async () => {
  const { id } = await coffee();
  await kit.expectUpdateViolation(id, { filter_id: "price:under-20", sort: "price_low_to_high" }, "/params/filter_id", /cannot be combined with `sort`/);
  await kit.expectUpdateViolation(id, { filter_id: "price:under-20", condition: "used" }, "/params/filter_id", /cannot be combined with `condition`/);
  assert.equal((await kit.update(id, { filter_id: "quick-filters:on-sale" })).status, 200);
  await kit.expectUpdateViolation(id, { sort: "price_high_to_low" }, "/params/sort", /cannot be combined with `sort`/);
  await kit.expectUpdateViolation(id, { condition: "new" }, "/params/condition", /cannot be combined with `condition`/);
  const sorted = await kit.execute({ ...COFFEE, sort: "price_low_to_high" });
  assert.equal(sorted.status, 200, JSON.stringify(sorted.body));
  await kit.expectUpdateViolation(sorted.body.search_id, { filter_id: "price:under-20" }, "/params/filter_id", /cannot be combined with `sort`/);
  // Clearing the sort in the same update lets the filter apply.
  const swapped = await kit.update(sorted.body.search_id, { filter_id: "quick-filters:on-sale", sort: null });
  assert.equal(swapped.status, 200, JSON.stringify(swapped.body));
  assert.equal(lastShopping().query.sort_by, undefined);
});

test("a change of query, country, language or location clears the filter; sending one with it is refused", async () => {
  const { id } = await coffee();
  assert.equal((await kit.update(id, { filter_id: "quick-filters:on-sale" })).status, 200);
  for (const params of [{ query: "tea" }, { country: "de" }, { language: "de" }, { location: "Austin, Texas" }, { language: null }]) {
    const field = Object.keys(params)[0]!;
    await kit.expectUpdateViolation(id, { ...params, filter_id: "quick-filters:on-sale" }, "/params/filter_id", new RegExp(`change of \`${field}\``));
  }
  // A scope change alone: the filter is dropped and the new search runs without it.
  const moved = await kit.update(id, SOCCER);
  assert.equal(moved.status, 200, JSON.stringify(moved.body));
  const call = lastShopping();
  assert.equal(call.query.q, "soccerl");
  assert.equal(call.query.shoprs, undefined);
  assert.equal(moved.body.filters[3].id, "price:up-to-15", "the new search's own filters");
  // Its stored query holds no filter any more: sort is accepted.
  const sorted = await kit.update(id, { sort: "price_low_to_high" });
  assert.equal(sorted.status, 200, JSON.stringify(sorted.body));
});

test("older-layout filters apply through tbs, and more keeps the filter", async () => {
  const ex = await kit.execute(SOCCER);
  const up = await kit.update(ex.body.search_id, { filter_id: "price:up-to-15", num: 5 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(lastShopping().query.tbs, "mr:1,price:1,ppr_max:15");
  const more = await kit.more(ex.body.search_id);
  assert.equal(more.status, 200, JSON.stringify(more.body));
  assert.equal(lastShopping().query.tbs, "mr:1,price:1,ppr_max:15", "more stays filtered");
  assert.deepEqual(more.body.filters, ex.body.filters);
  assert.deepEqual(up.body.filters, ex.body.filters);
});
