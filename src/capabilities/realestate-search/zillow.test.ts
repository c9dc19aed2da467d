// realestate.search's mappers for the Zillow listing API (documented-example bodies): the search
// request per status, listing records with their keys and price kind, home-type filtering, pages,
// and the property detail with its reported last sale (unknown when not reported).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import type { RealestateSearchQuery } from "./schema.ts";
import { type PropertyAnswer, propertyAnswer, propertyRequest, toPropertyDetail } from "./zillow-property.ts";
import {
  addressParts,
  type ExtendedSearchAnswer,
  extendedSearchAnswer,
  priceKind,
  SOURCE,
  toProviderPage,
  toRequest,
  zillowProbe,
} from "./zillow-search.ts";

const NOW = new Date("2030-01-02T03:04:05Z");
// The documented examples as the upstream client passes them: each fits its declared answer.
const body = (file: string) => checkShape("realestate", extendedSearchAnswer, fixture("realestate", file));
const property = (file: string) => checkShape("realestate", propertyAnswer, fixture("realestate", file));
/** What the source makes of a search answer: the upstream client's check (the API's refusals, then the schema), then the mapper. */
function listings(answer: unknown, query: RealestateSearchQuery, page = 1) {
  checkJsonAnswer(toRequest(query, page), 200, answer);
  return toProviderPage(answer as ExtendedSearchAnswer, page, query, NOW);
}
function detailOf(answer: unknown, zpid: string) {
  checkJsonAnswer(propertyRequest(zpid), 200, answer);
  return toPropertyDetail(answer as PropertyAnswer, zpid);
}
const q = (over: Partial<RealestateSearchQuery> = {}): RealestateSearchQuery => ({
  query: "Santa Monica, CA",
  listing_status: "for_sale",
  sort: "relevance",
  num: 10,
  ...over,
});

test("request: propertyExtendedSearch with the API's names for status, types, prices and order", () => {
  const sale = toRequest(q({ home_types: ["house", "condo", "land"], min_price: 500000, max_price: 2e6, min_beds: 2, min_baths: 1, sort: "price_desc" }), 1);
  assert.equal(sale.provider, "realestate");
  assert.equal(sale.path, "/propertyExtendedSearch");
  assert.deepEqual(sale.query, {
    location: "Santa Monica, CA",
    status_type: "ForSale",
    home_type: "Houses,Condos,LotsLand",
    minPrice: 500000,
    maxPrice: 2e6,
    bedsMin: 2,
    bathsMin: 1,
    sort: "Price_High_Low",
    page: 1,
  });
  const rent = toRequest(q({ listing_status: "for_rent", home_types: ["condo", "apartment"], min_price: 1000, sort: "price_asc" }), 3);
  assert.equal(rent.query?.status_type, "ForRent");
  assert.equal(rent.query?.home_type, "Apartments_Condos_Co-ops");
  assert.equal(rent.query?.rentMinPrice, 1000);
  assert.equal(rent.query?.minPrice, undefined);
  assert.equal(rent.query?.sort, "Payment_Low_High");
  assert.equal(rent.query?.page, 3);
  assert.equal(toRequest(q({ listing_status: "for_rent", home_types: ["land"] }), 1).query?.home_type, undefined, "no rental name: filtered locally");
  assert.equal(toRequest(q({ listing_status: "sold" }), 1).query?.status_type, "RecentlySold");
  assert.equal(toRequest(q(), 1).query?.sort, undefined);
});

test("listing records: address parts, keys when present, price_kind always, next page", () => {
  const page = toProviderPage(body("extended_search_santa_monica_for_sale_p1.json"), 1, q(), NOW);
  assert.equal(page.items.length, 12);
  assert.equal(page.next, 2);
  assert.deepEqual(page.items[0]!.summary, {
    title: "101 California Ave UNIT 506, Santa Monica, CA 90403",
    url: "https://www.zillow.com/homedetails/101-California-Ave-UNIT-506-Santa-Monica-CA-90403/20485717_zpid/",
    snippet: "2 bd · 2 ba · 1,284 sqft · 12 days on Zillow",
    street: "101 California Ave UNIT 506",
    city: "Santa Monica",
    state: "CA",
    zipcode: "90403",
    country: "USA",
    home_type: "condo",
    home_status: "FOR_SALE",
    beds: 2,
    baths: 2,
    sqft: 1284,
    lot_sqft: 34848,
    lot_area_unit: "acres",
    days_on_zillow: 12,
    currency: "USD",
    price: 1295000,
    latitude: 34.0214,
    longitude: -118.5012,
    price_kind: "listing_price",
    source: SOURCE,
    fetched_at: "2030-01-02T03:04:05.000Z",
  });
  assert.deepEqual(page.items[0]!.ref, { zpid: "20485717" });
  assert.equal(page.items[1]!.summary.date_price_changed, "2025-03-03");
  assert.equal(page.items[5]!.summary.broker, "Coastline Realty");
  assert.equal(page.items[8]!.summary.is_showcase, true);
  assert.equal("beds" in page.items[7]!.summary, false, "a lot has no bedrooms: none invented");
  assert.equal(toProviderPage(body("extended_search_santa_monica_for_sale_p2.json"), 2, q(), NOW).next, null);
});

test("price kinds: monthly rent, reported sold price, unknown without a price", () => {
  const rent = toProviderPage(body("extended_search_austin_for_rent.json"), 1, q({ listing_status: "for_rent" }), NOW).items;
  assert.deepEqual(rent.map((r) => r.summary.price_kind), ["monthly_rent", "monthly_rent", "monthly_rent", "unknown"]);
  assert.equal(rent[3]!.summary.title, "The Quarters on Campus, Austin, TX 78705");
  assert.equal("street" in rent[3]!.summary, true);
  const sold = toProviderPage(body("extended_search_austin_sold.json"), 1, q({ listing_status: "sold" }), NOW).items;
  assert.deepEqual(sold.map((r) => [r.summary.price_kind, r.summary.price]), [
    ["reported_sold_price", 815000],
    ["reported_sold_price", 432000],
  ]);
  assert.equal(priceKind("OTHER", 5), "unknown");
  assert.deepEqual(addressParts("Austin, TX 78704"), { city: "Austin", state: "TX", zipcode: "78704" });
  assert.deepEqual(addressParts("somewhere in Texas"), {});
});

test("home types: only the types asked for, the rest counted as left out", () => {
  const page = toProviderPage(body("extended_search_santa_monica_for_sale_p1.json"), 1, q({ home_types: ["townhouse", "land"] }), NOW);
  assert.deepEqual(page.items.map((r) => r.summary.home_type), ["townhouse", "land", "townhouse"]);
  assert.equal(page.left, 9);
  assert.equal(page.next, 2, "more pages remain even when this one is short");
});

test("answers without listings: an exact address match or no match is empty; a refusal is a provider error; anything else is drift", () => {
  assert.deepEqual(listings({ zpid: "20485717" }, q()).items, []);
  assert.deepEqual(listings({ props: [], totalPages: 0 }, q()), { items: [], next: null, left: 0 });
  assert.deepEqual(listings({ totalResultCount: 0 }, q()).items, []);
  assert.throws(
    () => listings({ message: "You are not subscribed to this API." }, q()),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /not subscribed/.test(e.message),
  );
  const drift = (answer: unknown, pointer: RegExp) =>
    assert.throws(() => listings(answer, q()), (e: unknown) => e instanceof ProviderDrift && e.code === "provider_error" && pointer.test(e.message));
  drift({ results: [], totalPages: 1 }, /\/props is missing/);
  const renamed = structuredClone(fixture("realestate", "extended_search_santa_monica_for_sale_p1.json")) as { props: Record<string, unknown>[] };
  renamed.props[0]!.id = renamed.props[0]!.zpid;
  delete renamed.props[0]!.zpid;
  drift(renamed, /\/props\/0\/zpid is missing/);
  const retyped = structuredClone(fixture("realestate", "extended_search_santa_monica_for_sale_p1.json")) as { props: Record<string, unknown>[] };
  retyped.props[0]!.bedrooms = "2";
  drift(retyped, /\/props\/0\/bedrooms/);
});

test("probe: one listing page, the adapter's own request and declared answer", () => {
  assert.equal(zillowProbe.provider, "realestate");
  assert.equal(zillowProbe.request.path, "/propertyExtendedSearch");
  assert.equal(zillowProbe.request.response, extendedSearchAnswer);
  const sent = Object.fromEntries(Object.entries(zillowProbe.request.query ?? {}).filter(([, v]) => v !== undefined));
  assert.deepEqual(sent, { location: "Santa Monica, CA", status_type: "ForSale", page: 1 });
});

test("property detail: facts, reported sale history, listing link; an unreported last sale stays unknown", () => {
  const sold = toPropertyDetail(property("property_20485717.json"), "20485717");
  assert.deepEqual(sold.detail.last_sale, { price: 880000, date: "2015-01-01" });
  assert.deepEqual((sold.detail.sale_history as JsonObject[]).map((e) => e.price), [880000, 700000]);
  assert.equal((sold.detail.price_history as JsonObject[]).length, 3);
  assert.equal((sold.detail.facts as JsonObject).year_built, 1989);
  assert.deepEqual(((sold.detail.facts as JsonObject).features as JsonObject).view, ["Ocean"]);
  assert.deepEqual(sold.links, [{ label: "Listing on Zillow", url: "https://www.zillow.com/homedetails/101-California-Ave-UNIT-506-Santa-Monica-CA-90403/20485717_zpid/" }]);
  const never = toPropertyDetail(property("property_20484923.json"), "20484923");
  assert.deepEqual(never.detail.last_sale, { price: null, date: null });
  assert.deepEqual(never.detail.sale_history, []);
  assert.equal("zestimate" in (never.detail.facts as JsonObject), false);
  assert.throws(() => detailOf({ message: "Property not found" }, "1"), (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /Property not found/.test(e.message));
  const renamed = structuredClone(fixture("realestate", "property_20485717.json")) as Record<string, unknown>;
  renamed.id = renamed.zpid;
  delete renamed.zpid;
  assert.throws(() => detailOf(renamed, "20485717"), (e: unknown) => e instanceof ProviderDrift && /\/zpid is missing/.test(e.message));
});
