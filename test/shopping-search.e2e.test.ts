/**
 * shopping.search end to end over HTTP against the replay upstream: execute on the recorded page,
 * every field's bounds and the price rule (at execute and through update), page paging within and
 * across Google's pages with nothing repeated or skipped, update billed like a search, and details:
 * fetched once for 4 credits then cached, or the result's own offer at no charge. The filter rules
 * have their own file (shopping-filters.e2e.test.ts).
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
const shoppingCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.query.engine?.startsWith("google_"));

test("execute: the recorded page, products with their keys, filters without tokens, 4 credits", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const res = await kit.execute(SOCCER);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.result_count, 10);
  assert.equal(res.body.has_more, true);
  assert.equal(res.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.deepEqual(res.body.next.actions, ["more", "update"]);
  assert.deepEqual(res.body.record_actions, ["details"]);
  const [call] = shoppingCalls(from);
  assert.equal(call?.matched, "serpapi-google_shopping/search_shopping_tbm_shop");
  assert.deepEqual({ ...call?.query, api_key: undefined }, { engine: "google_shopping", q: "soccerl", gl: "us", hl: "en", location: "India", api_key: undefined });
  const second = res.body.results[1];
  assert.equal(second.title, "Nike Premier League Skills Mini Soccer Ball");
  assert.equal(second.price, 15);
  assert.equal(second.price_display, "$15.00");
  assert.equal(second.seller, "DICK'S Sporting Goods");
  assert.equal(second.rating, 4.5);
  assert.equal(second.reviews, 2);
  assert.equal(second.delivery, "$8.99 delivery · Free 90-day returns");
  assert.equal(second.source, "Google Shopping via SerpApi");
  assert.ok(res.body.filters.length > 5, "res.body.filters.length > 5");
  assert.deepEqual(res.body.filters[3], { id: "price:up-to-15", label: "Up to $15", group: "Price" });
  assert.doesNotMatch(JSON.stringify(res.body), /"token"|ppr_max|product_id|page_token/, "provider data stays private");
});

test("every field's bounds and enums; filter_id only in update; price_min ≤ price_max", async () => {
  const before = await kit.used();
  const cases: [object, string][] = [
    [{}, "/query"],
    [{ query: "" }, "/query"],
    [{ query: "x".repeat(501) }, "/query"],
    [{ query: "x", country: "usa" }, "/country"],
    [{ query: "x", language: "e" }, "/language"],
    [{ query: "x", language: "e".repeat(13) }, "/language"],
    [{ query: "x", location: "" }, "/location"],
    [{ query: "x", location: "l".repeat(201) }, "/location"],
    [{ query: "x", num: 0 }, "/num"],
    [{ query: "x", num: 26 }, "/num"],
    [{ query: "x", price_min: -1 }, "/price_min"],
    [{ query: "x", price_max: 100_000_001 }, "/price_max"],
    [{ query: "x", price_min: "5" }, "/price_min"],
    [{ query: "x", condition: "refurbished" }, "/condition"],
    [{ query: "x", sort: "relevance" }, "/sort"],
    [{ query: "x", filter_id: "price:up-to-15" }, "/filter_id"],
    [{ query: "x", filter_id: null }, "/filter_id"],
  ];
  for (const [body, pointer] of cases) await kit.expectViolation(body, pointer);
  await kit.expectViolation({ query: "x", price_min: 50, price_max: 10 }, "/price_min", /must not exceed price_max/);
  assert.equal(await kit.used(), before, "refused calls cost nothing");

  const ex = await kit.execute({ ...SOCCER, price_min: 5 });
  assert.equal(ex.status, 200, JSON.stringify(ex.body));
  const id = ex.body.search_id;
  await kit.expectUpdateViolation(id, { price_max: 1 }, "/params/price_max", /must not be before price_min \(5, from the search\)/);
  await kit.expectUpdateViolation(id, { num: 26 }, "/params/num");
  await kit.expectUpdateViolation(id, { condition: "mint" }, "/params/condition");
  await kit.expectUpdateViolation(id, { price_min: 1e9 }, "/params/price_min");
});

test("page paging: num products a call within and across Google's pages, none repeated or skipped", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const first = await kit.execute({ ...COFFEE, num: 5 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
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
  // Google's first page holds 12, the next (start=40) 3: 5, 5, then 2 + 3 from two pages (8 credits).
  assert.deepEqual(counts, [5, 5, 5]);
  assert.deepEqual(charges, [4, 4, 8]);
  assert.equal(new Set(titles).size, 15, titles.join(" | "));
  assert.equal(titles[14], "Nespresso Vertuo Pods Variety Pack, 30 count");
  assert.equal((await kit.used()) - before, 16);
  assert.deepEqual(
    shoppingCalls(from).map((c) => [c.matched, c.query.start ?? "0"]),
    [
      ["serpapi-google_shopping/search_coffee_new_layout", "0"],
      ["serpapi-google_shopping/search_coffee_new_layout", "0"],
      ["serpapi-google_shopping/search_coffee_new_layout", "0"],
      ["serpapi-google_shopping/search_coffee_new_layout_start40", "40"],
    ],
  );
  const end = await kit.more(first.body.search_id);
  assert.equal(end.body.result_count, 0);
  assert.equal(end.body.charged_credits, 0);
});

test("update: merged params, paging reset, same search_id, billed like a search", async () => {
  const ex = await kit.execute({ ...COFFEE, num: 5 });
  await kit.more(ex.body.search_id);
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const up = await kit.update(ex.body.search_id, { num: 3, price_max: 30 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.result_count, 3);
  assert.equal(up.body.results[0].title, ex.body.results[0].title, "paging starts again");
  assert.equal(up.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.equal(shoppingCalls(from)[0]?.query.max_price, "30");
});

test("details: fetched from the product page for 4 credits, then cached at 0", async () => {
  const ex = await kit.execute(COFFEE);
  const record = ex.body.results[0];
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const d = await kit.action(record.record_id, "details");
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.cached, false);
  assert.equal(d.body.charged_credits, 4);
  assert.equal(d.body.detail.brand, "Folgers");
  assert.equal(d.body.detail.offers.length, 3);
  assert.deepEqual(d.body.detail.specifications[1], { name: "Form", value: "Ground" });
  assert.equal(d.body.links[0].label, "Walmart");
  const calls = shoppingCalls(from);
  assert.equal(calls.length, 1);
  assert.equal(calls[0]?.query.engine, "google_immersive_product");
  assert.equal(calls[0]?.matched, "serpapi-google_shopping/immersive_product_folgers");
  const again = await kit.action(record.record_id, "details");
  assert.equal(again.status, 200);
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.deepEqual(again.body.detail, d.body.detail);
  assert.equal(shoppingCalls(from).length, 1, "the repeat makes no provider call");
  assert.equal((await kit.used()) - before, 4);
});

test("details: a product page SerpApi cannot give is a 502, charged nothing and not cached", async () => {
  const ex = await kit.execute(COFFEE);
  const before = await kit.used();
  for (let i = 0; i < 2; i++) {
    const d = await kit.action(ex.body.results[1].record_id, "details");
    assert.equal(d.status, 502, JSON.stringify(d.body));
    assert.equal(d.body.error.code, "provider_error");
  }
  assert.equal(await kit.used(), before);
});

test("details: a result without a product page answers its own offer, free, no provider call", async () => {
  const ex = await kit.execute(SOCCER);
  const record = ex.body.results[0];
  const from = kit.h.replay.requests.length;
  const before = await kit.used();
  const d = await kit.action(record.record_id, "details");
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.charged_credits, 0);
  assert.deepEqual(d.body.detail.offers, [
    { seller: "detec.in", price: 3.4, price_display: "$3.40", delivery: "Delivery by Sun, Jul 24", link: record.url },
  ]);
  assert.match(d.body.detail.note, /no Google product page/);
  assert.equal(kit.h.replay.requests.length, from);
  const again = await kit.action(record.record_id, "details");
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.equal(await kit.used(), before);
});

test("sort and condition SerpApi's Google Shopping no longer reads: nothing stale sent, the answer says what it did", async () => {
  const from = kit.h.replay.requests.length;
  const rated = await kit.execute({ ...COFFEE, sort: "rating_high_to_low" });
  assert.equal(rated.status, 200, JSON.stringify(rated.body));
  assert.equal(rated.body.result_count, 10);
  assert.match(rated.body.notes.join(" "), /`sort: rating_high_to_low` was not applied/);
  const used = await kit.execute({ ...COFFEE, condition: "used" });
  assert.equal(used.status, 200, JSON.stringify(used.body));
  assert.deepEqual(
    used.body.results.map((r: { condition?: string }) => r.condition),
    ["refurbished"],
    "only the product Google marks second-hand",
  );
  assert.equal(used.body.has_more, false);
  assert.match(used.body.notes.join(" "), /`condition: used` is checked on each product as Google marks it/);
  const fresh = await kit.execute({ ...COFFEE, condition: "new", num: 25 });
  assert.equal(fresh.status, 200, JSON.stringify(fresh.body));
  assert.equal(fresh.body.results.some((r: { condition?: string }) => r.condition !== undefined), false);
  for (const call of shoppingCalls(from)) {
    assert.equal(call.query.tbs, undefined, "tbs is not read by Google Shopping's current layout");
    assert.equal(call.query.sort_by, undefined);
  }
  const cheap = await kit.execute({ ...COFFEE, sort: "price_low_to_high" });
  assert.equal(cheap.status, 200, JSON.stringify(cheap.body));
  assert.equal(shoppingCalls(from).at(-1)?.query.sort_by, "1");
  assert.equal(cheap.body.notes, undefined);
});
