// shopping.search's mappers: the google_shopping request, product records and filters from the
// recorded bodies (older layout with tbs filters; the new layout's shoprs filters) and the
// documented example, and the product details from google_immersive_product.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture } from "../../../test/helpers/capability-kit.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { readSerpApi } from "../shared/serpapi.ts";
import type { JsonObject } from "../types.ts";
import { shoppingSearch, type ShoppingSearchQuery } from "./capability.ts";
import { detailRequest, immersiveProductAnswer, storedOffer, toDetail } from "./immersive-product.ts";
import { SOURCE, shoppingAnswer, toProviderPage, toRequest } from "./serpapi-shopping.ts";
import { filtersAnswer, filtersOf, layoutOf, tokenParams, UNTYPED_GROUP } from "./shopping-filters.ts";

const raw = (file: string) => fixture("serpapi-google_shopping", file);
// The recordings as the upstream client passes them: each search fits the declared answer.
const body = (file: string) => checkShape("serpapi", shoppingAnswer, raw(file));
const q = (over: Partial<ShoppingSearchQuery> = {}): ShoppingSearchQuery => ({ query: "coffee", num: 10, ...over });
/** What the source makes of an answer: the upstream client's check (SerpApi's refusals, then the schema), then the mapper. */
const pageOf = (answer: unknown, query: ShoppingSearchQuery = q()) => {
  checkJsonAnswer(toRequest(query, 0), 200, answer);
  return toProviderPage(readSerpApi(answer), query);
};
const page = (file: string, query: ShoppingSearchQuery = q()) => pageOf(raw(file), query);

test("request: fields to google_shopping params; price sorts as SerpApi documents them, no tbs", () => {
  const r = toRequest(q({ country: "US", language: "en", location: "Austin, Texas", price_min: 5, price_max: 20 }), 0);
  assert.equal(r.provider, "serpapi");
  assert.deepEqual(r.query, {
    engine: "google_shopping",
    q: "coffee",
    gl: "us",
    hl: "en",
    location: "Austin, Texas",
    min_price: 5,
    max_price: 20,
    sort_by: undefined,
    start: undefined,
  });
  assert.equal(toRequest(q({ sort: "price_low_to_high" }), 0).query?.sort_by, "1");
  assert.equal(toRequest(q({ sort: "price_high_to_low" }), 0).query?.sort_by, "2");
  // Google's current layout has no rating order and no condition parameter; SerpApi reads no tbs.
  for (const over of [{ sort: "rating_high_to_low" as const }, { condition: "new" as const }, { condition: "used" as const }]) {
    const sent = toRequest(q(over), 0).query ?? {};
    assert.equal("tbs" in sent, false, JSON.stringify(over));
    assert.equal(sent.sort_by, undefined, JSON.stringify(over));
  }
  assert.equal(toRequest(q(), 40).query?.start, 40);
});

test("request: a filter's token sets its own q and shoprs (new layout) or tbs (older layout)", () => {
  const shoprs = toRequest(q({ filter_id: "x" }), 0, "q=coffee+sale&shoprs=ABC");
  assert.equal(shoprs.query?.q, "coffee sale");
  assert.equal(shoprs.query?.shoprs, "ABC");
  const tbs = toRequest(q(), 0, "tbs=mr%3A1%2Cprice%3A1%2Cppr_max%3A15");
  assert.equal(tbs.query?.tbs, "mr:1,price:1,ppr_max:15");
  assert.deepEqual(tokenParams("q=a&shoprs=b&api_key=k&engine=google"), { q: "a", shoprs: "b" }, "only filter params");
});

test("recorded page (older layout): products with their keys, tbs filters, the next start", () => {
  const got = page("search_shopping_tbm_shop.json");
  assert.equal(got.items.length, 25);
  assert.equal(got.next, 60);
  const [first, second] = got.items;
  assert.deepEqual(first!.summary, {
    title: "Detec Nivia Soccer L / Black",
    url: first!.summary.url,
    price: 3.4,
    price_display: "$3.40",
    seller: "detec.in",
    delivery: "Delivery by Sun, Jul 24",
    source: SOURCE,
  });
  assert.match(String(first!.summary.url), /^https:\/\/www\.google\.com\/url\?url=https:\/\/detec\.in/);
  assert.equal(first!.ref, undefined, "no product page token");
  assert.equal(second!.summary.url, "https://www.google.com/shopping/product/13765853140225750859");
  assert.equal(second!.summary.rating, 4.5);
  assert.equal(second!.summary.reviews, 2);
  assert.deepEqual(second!.ref, { product_id: "13765853140225750859" });
  const ids = got.filters.map((f) => f.id);
  assert.equal(new Set(ids).size, ids.length, "ids are unique");
  assert.deepEqual(got.filters.slice(0, 4), [
    { id: "show-only:buy-on-google", label: "Buy on Google", group: "Show only", token: "tbs=mr%3A1%2Cbuy%3Ag" },
    { id: "show-only:on-sale", label: "On sale", group: "Show only", token: "tbs=mr%3A1%2Csales%3A1" },
    { id: "show-only:smaller-stores", label: "Smaller stores", group: "Show only", token: "tbs=mr%3A1%2Csmb%3A1" },
    { id: "price:up-to-15", label: "Up to $15", group: "Price", token: "tbs=mr%3A1%2Cprice%3A1%2Cppr_max%3A15" },
  ]);
  assert.ok(ids.includes("price:15-45"), "ids.includes(\"price:15-45\")");
  assert.ok(!got.filters.some((f) => f.group === "Color"), "options without a label (colour swatches) are left out");
});

test("recorded new-layout filters: shoprs tokens with the filter's q, untyped group named, Sort by left out", () => {
  // The recording holds an answer's filters[] only (the source kept that part): it fits their schema.
  const filters = filtersOf(checkShape("serpapi", filtersAnswer, raw("filters_google_shopping_engine.json")) as JsonObject);
  assert.equal(filters[0]!.group, UNTYPED_GROUP);
  assert.equal(filters[0]!.id, "quick-filters:on-sale");
  const hario = filters.find((f) => f.id === "brand:hario");
  assert.ok(hario, "hario");
  assert.deepEqual(tokenParams(hario.token!), {
    q: "hario pour over coffee maker set with gooseneck kettle",
    shoprs: "CAEYASowcG91ciBvdmVyIGNvZmZlZSBtYWtlciBzZXQgd2l0aCBnb29zZW5lY2sga2V0dGxlMhUIARIFSEFSSU86CgiD8zwQiPs_MAFYo9IgYAI",
  });
  assert.ok(!filters.some((f) => /^sort/i.test(f.group)), "!filters.some((f) => /^sort/i.test(f.group))");
  assert.deepEqual([...new Set(filters.map((f) => f.group))], [UNTYPED_GROUP, "Features", "Category", "Price", "Brand", "Shops", "Finish"]);
});

test("documented new-layout page: product page tokens kept private, condition, next start", () => {
  const got = page("search_coffee_new_layout.json");
  assert.equal(got.items.length, 12);
  assert.equal(got.next, 40);
  assert.match(String(got.items[0]!.ref?.page_token), /^eyJ/);
  assert.equal("page_token" in got.items[0]!.summary, false);
  assert.equal(got.items[10]!.summary.condition, "refurbished");
  assert.equal(page("search_coffee_new_layout_start40.json").next, null);
});

test("details: specifications and merchant offers from the immersive product answer", () => {
  const { detail, links } = toDetail(checkShape("serpapi", immersiveProductAnswer, raw("immersive_product_folgers.json")));
  assert.equal(detail.brand, "Folgers");
  assert.deepEqual((detail.specifications as JsonObject[])[0], { name: "Roast", value: "Medium" });
  const offers = detail.offers as JsonObject[];
  assert.equal(offers.length, 3);
  assert.deepEqual(offers[2], {
    seller: "Amazon.com",
    title: "Folgers Classic Roast Medium Roast Ground Coffee, 25.9 Ounce",
    price: 15.99,
    price_display: "$15.99",
    original_price: 17.49,
    details: ["Free delivery", "Sale"],
    link: "https://www.amazon.com/dp/B00I5FWWPI",
  });
  assert.deepEqual(links[0], { label: "Walmart", url: "https://www.walmart.com/ip/Folgers-Classic-Roast-Ground-Coffee-25-9-oz/10535114" });
});

test("details of a result without a product page: its own offer, nothing invented", () => {
  const { detail, links } = storedOffer({ title: "T", seller: "S", price: 3.4, price_display: "$3.40", url: "https://x.example/p" });
  assert.deepEqual(detail.offers, [{ seller: "S", price: 3.4, price_display: "$3.40", link: "https://x.example/p" }]);
  assert.deepEqual(detail.specifications, []);
  assert.deepEqual(links, [{ label: "S", url: "https://x.example/p" }]);
});

test("layouts: the recordings' filters say which layout answered", () => {
  assert.equal(layoutOf(body("search_coffee_new_layout.json") as JsonObject), "new");
  assert.equal(layoutOf(body("search_shopping_tbm_shop.json") as JsonObject), "older");
  assert.equal(layoutOf(body("search_coffee_new_layout_start40.json") as JsonObject), undefined);
  for (const file of ["search_coffee_on_sale_filter.json", "search_coffee_new_layout_start40.json"]) body(file);
});

test("condition is checked on each product as Google marks it; the call says what it left out", async () => {
  const used = page("search_coffee_new_layout.json", q({ condition: "used" }));
  assert.deepEqual(
    used.items.map((r) => r.summary.condition),
    ["refurbished"],
  );
  assert.equal(used.left, 11);
  const fresh = page("search_coffee_new_layout.json", q({ condition: "new" }));
  assert.equal(fresh.items.length, 11);
  assert.equal(fresh.items.some((r) => "condition" in r.summary), false);
  assert.equal(page("search_coffee_new_layout.json").items.length, 12);

  const { ctx } = fakeContext((request: UpstreamRequest) => raw(request.query?.start === 40 ? "search_coffee_new_layout_start40.json" : "search_coffee_new_layout.json"));
  const got = await shoppingSearch.search(ctx, { ...q({ condition: "used" }) }, null);
  assert.deepEqual(got.records.map((r) => r.summary.condition), ["refurbished"]);
  assert.match(got.notes?.join(" ") ?? "", /`condition: used` is checked on each product .* 14 products were left out/);
  const rated = await shoppingSearch.search(ctx, { ...q({ sort: "rating_high_to_low" }) }, null);
  assert.equal(rated.records.length, 10);
  assert.match(rated.notes?.join(" ") ?? "", /`sort: rating_high_to_low` was not applied/);
  const plain = await shoppingSearch.search(ctx, { ...q() }, null);
  assert.equal(plain.notes, undefined);
});

test("an older-layout filter answered in the current layout was not applied, and the answer says so", async () => {
  const filters = [{ id: "price:up-to-15", label: "Up to $15", group: "Price", token: "tbs=mr%3A1%2Cprice%3A1%2Cppr_max%3A15" }];
  const { ctx, requests } = fakeContext(() => raw("search_coffee_new_layout.json"), { filters });
  const got = await shoppingSearch.search(ctx, { ...q({ filter_id: "price:up-to-15" }) }, null);
  assert.equal((requests[0]!.query as Record<string, unknown>).tbs, "mr:1,price:1,ppr_max:15");
  assert.match(got.notes?.join(" ") ?? "", /The filter "Up to \$15" was not applied: it comes from Google Shopping's older layout/);
  const older = fakeContext(() => raw("search_shopping_tbm_shop.json"), { filters });
  assert.equal((await shoppingSearch.search(older.ctx, { ...q({ filter_id: "price:up-to-15" }) }, null)).notes, undefined);
});

test("drift: a renamed or retyped field the mapper reads is an error naming it, never an empty page", () => {
  const drifted = (change: (b: Record<string, unknown>) => void, pointer: RegExp) => {
    const b = structuredClone(raw("search_coffee_new_layout.json")) as Record<string, unknown>;
    change(b);
    assert.throws(() => pageOf(b), (e: unknown) => e instanceof ProviderDrift && e.code === "provider_error" && pointer.test(e.message));
  };
  drifted((b) => {
    b.products = b.shopping_results;
    delete b.shopping_results;
  }, /\/shopping_results is missing/);
  drifted((b) => {
    const first = (b.shopping_results as Record<string, unknown>[])[0]!;
    first.name = first.title;
    delete first.title;
  }, /\/shopping_results\/0\/title is missing/);
  drifted((b) => {
    (b.shopping_results as Record<string, unknown>[])[0]!.extracted_price = "15.99";
  }, /\/shopping_results\/0\/extracted_price/);
  drifted((b) => {
    ((b.filters as Record<string, unknown>[])[0]!.options as Record<string, unknown>[])[0]!.serpapi_link = 1;
  }, /\/filters\/0\/options\/0\/serpapi_link/);
  // SerpApi's "no results" answer is an empty page, never checked as a product list.
  assert.deepEqual(pageOf({ search_metadata: { status: "Success" }, error: "Google Shopping hasn't returned any results for this query." }).items, []);
  const product = structuredClone(raw("immersive_product_folgers.json")) as Record<string, unknown>;
  product.product = product.product_results;
  delete product.product_results;
  assert.throws(() => checkJsonAnswer(detailRequest("T"), 200, product), /\/product_results is missing/);
});
