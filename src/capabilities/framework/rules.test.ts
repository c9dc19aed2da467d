// The rule vocabulary: each rule's violation and pointer at execute and in an update (a field the
// caller sent), and the JSON Schema fragments the published schema carries.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { JsonObject } from "../types.ts";
import { atLeastOne, checkRules, custom, excludes, exactlyOne, isIsoDate, notBlank, publishedSchema, range, requires, sentPointer, sumAtMost, validDate, when } from "./rules.ts";

const paths = (rules: Parameters<typeof checkRules>[0], query: JsonObject, sent?: string[]) =>
  checkRules(rules, sent === undefined ? { query } : { query, sent: new Set(sent) }).map((v) => v.path);

test("range: numbers and ISO dates; at `from` by default, at the field an update sent", () => {
  const r = [range("from_year", "to_year")];
  assert.deepEqual(paths(r, { from_year: 2021, to_year: 2020 }), ["/from_year"]);
  assert.deepEqual(paths(r, { from_year: 2020, to_year: 2020 }), []);
  assert.deepEqual(paths(r, { from_year: 2021 }), []);
  assert.deepEqual(paths(r, { from_year: 2021, to_year: 2020 }, ["to_year"]), ["/to_year"]);
  const [v] = checkRules(r, { query: { from_year: 2021, to_year: 2020 }, sent: new Set(["to_year"]) });
  assert.match(v!.message, /to_year must not be before from_year \(2021, from the search\)/);
  const dates = [range("departure_date", "return_date", { at: "to" })];
  assert.deepEqual(paths(dates, { departure_date: "2026-12-10", return_date: "2026-12-01" }), ["/return_date"]);
  assert.deepEqual(paths(dates, { departure_date: "2026-12-10", return_date: "2026-12-10" }), []);
  // An invalid date is validDate's to report, not range's.
  assert.deepEqual(paths(dates, { departure_date: "2026-02-30", return_date: "2026-02-01" }), []);
  assert.deepEqual(paths([range("search/from_year", "search/to_year")], { search: { from_year: 3, to_year: 2 } }), ["/search/from_year"]);
});

test("validDate: the calendar, not just the shape", () => {
  assert.deepEqual(paths([validDate("d")], { d: "2024-02-29" }), []);
  assert.deepEqual(paths([validDate("d")], { d: "2023-02-29" }), ["/d"]);
  assert.equal(isIsoDate("2026-13-01"), false);
});

test("exactlyOne and atLeastOne: none names the body; extras their own field", () => {
  const one = [exactlyOne(["a", "b", "c"])];
  assert.deepEqual(paths(one, {}), [""]);
  assert.deepEqual(paths(one, { a: 1, b: 2, c: 3 }), ["/b", "/c"]);
  assert.deepEqual(paths(one, { b: 1 }), []);
  // An update sending `c` beside a stored `a` keeps `c` and names it.
  assert.deepEqual(paths(one, { a: 1, c: 3 }, ["c"]), ["/c"]);
  assert.deepEqual(paths(one, {}, ["a"]), ["/a"], "an update that removed the only one names it");
  assert.deepEqual(paths(one, {}, ["num"]), [""], "an update that sent none of them names the body");
  const any = [atLeastOne(["query", "author"])];
  assert.deepEqual(paths(any, {}), [""]);
  assert.deepEqual(paths(any, {}, ["query"]), ["/query"], "an update that removed the last one names it");
  assert.deepEqual(paths(any, { author: "x" }), []);
});

test("requires and excludes, with a field or a value", () => {
  assert.deepEqual(paths([requires("radius_m", "location")], { radius_m: 100 }), ["/radius_m"]);
  assert.deepEqual(paths([requires("radius_m", "location")], { radius_m: 100 }, ["location"]), ["/location"]);
  assert.deepEqual(paths([requires("radius_m", "location")], { radius_m: 100, location: {} }), []);
  const geo = [requires("region", when("data_type", "GEO_MAP"))];
  assert.deepEqual(paths(geo, { region: "CITY", data_type: "TIMESERIES" }), ["/region"]);
  assert.deepEqual(paths(geo, { region: "CITY", data_type: "GEO_MAP" }), []);
  const ex = [excludes("children_ages", when("property_type", "vacation_rental"))];
  assert.deepEqual(paths(ex, { children_ages: [4], property_type: "vacation_rental" }), ["/children_ages"]);
  assert.deepEqual(paths(ex, { children_ages: [4], property_type: "hotel" }), []);
  assert.deepEqual(paths(ex, { children_ages: [4], property_type: "vacation_rental" }, ["property_type"]), ["/property_type"]);
});

test("sumAtMost: numbers and array lengths, another bound while a condition holds", () => {
  const guests = [sumAtMost(["adults", { length: "children_ages" }], 6, { what: "guests", otherwise: { when: when("property_type", "vacation_rental"), max: 10 } })];
  assert.deepEqual(paths(guests, { adults: 5, children_ages: [3, 4] }), ["/adults"]);
  assert.deepEqual(paths(guests, { adults: 5, children_ages: [3, 4], property_type: "vacation_rental" }), []);
  assert.deepEqual(paths(guests, { adults: 5, children_ages: [3, 4] }, ["children_ages"]), ["/children_ages"]);
  const [v] = checkRules(guests, { query: { adults: 7 } });
  assert.match(v!.message, /guests is 7; at most 6/);
});

test("notBlank and custom", () => {
  assert.deepEqual(paths([notBlank("o")], { o: " \u200b " }), ["/o"]);
  assert.deepEqual(paths([notBlank("o")], { o: "x" }), []);
  // The same characters as the schemas' not-blank pattern: soft hyphen, Hangul filler, controls.
  for (const blank of ["\u00ad", "\u3164", "\u0001 ", "\ufe0f\u200d"]) assert.deepEqual(paths([notBlank("o")], { o: blank }), ["/o"], JSON.stringify(blank));
  assert.deepEqual(paths([notBlank("o")], { o: "\u00adx" }), []);
  assert.deepEqual(paths([custom("c", () => [{ path: "/z", message: "m" }])], {}), ["/z"]);
});

test("the published schema says what JSON Schema can, and validates like the rules", () => {
  const rules = [exactlyOne(["a", "b"]), requires("r", "loc"), excludes("k", when("t", "v")), requires("g", when("d", "GEO")), range("x", "y")];
  const schema = publishedSchema({ type: "object", properties: { a: {}, b: {}, r: {}, loc: {}, k: {}, t: {}, g: {}, d: {}, x: {}, y: {} } }, rules);
  assert.equal((schema.allOf as unknown[]).length, 4, "range cannot be said in JSON Schema");
  assert.match(String(schema.description), /Rules: .*Exactly one of `a` or `b`.*`r` requires `loc`/);
  const valid = new Ajv2020({ strict: false }).compile(schema);
  for (const [body, ok] of [
    [{ a: 1 }, true],
    [{}, false],
    [{ a: 1, b: 1 }, false],
    [{ a: 1, r: 1 }, false],
    [{ a: 1, r: 1, loc: 1 }, true],
    [{ a: 1, k: 1, t: "v" }, false],
    [{ a: 1, k: 1, t: "w" }, true],
    [{ a: 1, g: 1, d: "X" }, false],
    [{ a: 1, g: 1, d: "GEO" }, true],
  ] as const) {
    assert.equal(valid(body), ok, JSON.stringify(body));
    assert.equal(checkRules(rules, { query: body as JsonObject }).length === 0, ok, `rules: ${JSON.stringify(body)}`);
  }
});

test("sentPointer: the field at execute or when sent; else the first other field the update sent, marked stored", () => {
  const query = { a: 1, b: 2, c: 3 };
  assert.deepEqual(sentPointer({ query }, "a", "b"), { path: "/a", stored: false }, "execute: the field itself");
  assert.deepEqual(sentPointer({ query, sent: new Set(["a", "b"]) }, "a", "b"), { path: "/a", stored: false });
  assert.deepEqual(sentPointer({ query, sent: new Set(["c", "b"]) }, "a", "b", "c"), { path: "/b", stored: true });
  assert.deepEqual(sentPointer({ query, sent: new Set(["c"]) }, "a", "b"), { path: "/a", stored: false }, "none sent: the field");
  assert.deepEqual(sentPointer({ query, sent: new Set(["x"]) }, "x/y", "b"), { path: "/x/y", stored: false }, "a nested field counts as sent with its top-level field");
});
