// Nominatim geocoding of navigation places: the recorded answers checked against the declared answer
// and read (string coordinates, numbers too), its refusals, a drifted answer, one lookup per distinct
// name and then the cache, a name that does not match refused at its pointer, and a request with more
// new names than fit in its deadline refused before anything is sent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { CapabilityContext } from "../types.ts";
import { locateOnce, locatePlaces, lookupsThatFit, nominatimProbe, nominatimRefusal, nominatimSearch, parseNominatim, toNominatimRequest } from "./nominatim.ts";

const gagarin = checkShape("nominatim", nominatimSearch, fixture("nominatim", "search_jsonv2.json"));
const empty = checkShape("nominatim", nominatimSearch, fixture("nominatim", "search_empty.json"));

/** A context whose Nominatim knows "Gagarin" only. */
function geocoder(): { ctx: CapabilityContext<unknown>; requests: UpstreamRequest[] } {
  const { ctx, requests } = fakeContext((r: UpstreamRequest) => (r.query?.q === "Gagarin" ? gagarin : empty));
  return { ctx: ctx as CapabilityContext<unknown>, requests };
}

test("the request is GET /search?format=jsonv2&q=&limit=1 on nominatim", () => {
  assert.deepEqual(toNominatimRequest("Ulm, Germany"), {
    provider: "nominatim",
    method: "GET",
    path: "/search",
    query: { format: "jsonv2", q: "Ulm, Germany", limit: 1 },
    refusal: nominatimRefusal,
    response: nominatimSearch,
  });
  assert.equal(nominatimProbe.provider, "nominatim");
  assert.equal(nominatimProbe.request.query?.limit, 1);
});

test("the first match's string coordinates are read as numbers; [] is no match; another shape is provider_error", () => {
  assert.deepEqual(parseNominatim(gagarin), {
    found: true,
    lat: 55.553306,
    lon: 34.9968416,
    matched: "Гагарин, Гагаринский муниципальный округ, Смоленская область, Центральный федеральный округ, 215010, Россия",
  });
  assert.deepEqual(parseNominatim(empty), { found: false });
  checkShape("nominatim", nominatimSearch, fixture("nominatim", "search_json_format.json"));
  // Nominatim sent numbers for a few days in April 2025 (osm-search/Nominatim#3723): read the same.
  assert.deepEqual(parseNominatim(checkShape("nominatim", nominatimSearch, [{ lat: 48.4, lon: 9.99 }])), { found: true, lat: 48.4, lon: 9.99 });
  assert.throws(() => parseNominatim([{ lat: "x", lon: "1" }]), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
});

test("Nominatim's refusals are provider_error in its words, at any status, before the shape check; a renamed coordinate is drift", () => {
  const request = toNominatimRequest("Ulm");
  const refused = (pattern: RegExp) => (e: unknown) => e instanceof ApiError && e.code === "provider_error" && pattern.test(e.message);
  assert.throws(() => checkJsonAnswer(request, 400, { error: { code: 400, message: "Parameter 'limit' must be a number." } }), refused(/'limit' must be a number/));
  assert.throws(() => checkJsonAnswer(request, 200, { error: "Bad request" }), refused(/Bad request/));
  assert.equal(nominatimRefusal(fixture("nominatim", "search_jsonv2.json")), undefined);
  const renamed = (fixture("nominatim", "search_jsonv2.json") as Record<string, unknown>[]).map(({ lat, ...rest }) => ({ ...rest, latitude: lat }));
  assert.throws(
    () => checkJsonAnswer(request, 200, renamed),
    (e: unknown) => e instanceof ProviderDrift && e.pointer === "/0/lat" && /^Nominatim answered in a shape Quarry does not read: \/0\/lat is missing/.test(e.message),
  );
});

test("coordinates pass through; a name is looked up once (case and spacing ignored) and then served from the cache", async () => {
  const { ctx, requests } = geocoder();
  const located = await locatePlaces(
    ctx,
    [
      { pointer: "/origin", place: "Gagarin" },
      { pointer: "/waypoints/0", place: { lat: 48.1, lon: 11.5 } },
      { pointer: "/destination", place: "  gagarin " },
    ],
    15_000,
  );
  assert.equal(requests.length, 1);
  assert.equal(requests[0]?.query?.q, "Gagarin");
  assert.deepEqual(
    located.map((p) => [p.label, p.lat, p.lon]),
    [
      ["Gagarin", 55.553306, 34.9968416],
      ["48.1,11.5", 48.1, 11.5],
      ["gagarin", 55.553306, 34.9968416],
    ],
  );
  await locatePlaces(ctx, [{ pointer: "/origin", place: "GAGARIN" }], 15_000);
  assert.equal(requests.length, 1, "the second request is answered from the cache");
});

test("names that do not match are refused at their pointers, all at once, and misses are cached too", async () => {
  const { ctx, requests } = geocoder();
  const places = [
    { pointer: "/locations/0", place: "Gagarin" },
    { pointer: "/locations/1", place: "Nowhere at all" },
    { pointer: "/locations/2", place: "Atlantis" },
  ];
  await assert.rejects(locatePlaces(ctx, places, 15_000), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "invalid_request", "e instanceof ApiError && e.code === \"invalid_request\"");
    assert.deepEqual(
      e.violations?.map((v) => v.path),
      ["/locations/1", "/locations/2"],
    );
    assert.match(e.violations?.[0]?.message ?? "", /"Nowhere at all" did not match any place/);
    return true;
  });
  assert.equal(requests.length, 3);
  await assert.rejects(locatePlaces(ctx, places, 15_000), (e: unknown) => e instanceof ApiError && e.code === "invalid_request");
  assert.equal(requests.length, 3, "found and missed names are both cached");
});

test("budget: one lookup a second plus a 3 s routing reserve; more new names than fit are refused before any request", async () => {
  assert.equal(lookupsThatFit(15_000), 12);
  assert.equal(lookupsThatFit(5_000), 2);
  assert.equal(lookupsThatFit(2_000), 0);
  const { ctx, requests } = geocoder();
  const places = ["A", "B", "C", "D"].map((place, i) => ({ pointer: `/locations/${i}`, place }));
  await assert.rejects(locatePlaces(ctx, places, 5_000), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "invalid_request", "e instanceof ApiError && e.code === \"invalid_request\"");
    assert.deepEqual(
      e.violations?.map((v) => v.path),
      ["/locations/2", "/locations/3"],
    );
    assert.match(e.violations?.[0]?.message ?? "", /4 place names .* at most 2 fit within the deadline/);
    return true;
  });
  assert.equal(requests.length, 0, "nothing was sent");
  // Cached names do not count: with "Gagarin" known, two new names fit.
  await locatePlaces(ctx, [{ pointer: "/origin", place: "Gagarin" }], 15_000);
  const mixed = [{ pointer: "/origin", place: "Gagarin" }, ...places.slice(0, 2)];
  await assert.rejects(locatePlaces(ctx, mixed, 5_000), (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && e.violations?.every((v) => /did not match/.test(v.message)) === true);
});

test("locateOnce shares one lookup between the sources of a call (a fallback does not geocode again)", async () => {
  const { ctx, requests } = geocoder();
  const places = [{ pointer: "/origin", place: "Gagarin" }];
  const first = locateOnce(ctx, places, 15_000);
  const second = locateOnce(ctx, places, 15_000);
  assert.equal(first, second);
  await first;
  assert.equal(requests.length, 1);
});

test("a provider failure is the call's failure (not a 400)", async () => {
  const { ctx } = fakeContext(new ApiError("provider_error", "nominatim failed: HTTP 503."));
  await assert.rejects(
    locatePlaces(ctx as CapabilityContext<unknown>, [{ pointer: "/origin", place: "Ulm" }], 15_000),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
});
