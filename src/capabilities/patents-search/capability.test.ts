/**
 * patents.search declaration (Quarry's design, spec "not shown"): free, 15 s, token paging, num 10/25,
 * PATENTSVIEW_API_KEY required, and the rules at their pointers (also with an update's sent fields).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { violationsOf } from "../../../test/helpers/capability-kit.ts";
import type { JsonObject } from "../types.ts";
import { patentsSearch } from "./capability.ts";

test("metadata", () => {
  assert.equal(patentsSearch.topic, "research and reading");
  assert.equal(patentsSearch.paging, "token");
  assert.equal(patentsSearch.deadlineMs, 15_000);
  assert.equal(patentsSearch.typicalCredits, 0);
  assert.deepEqual(patentsSearch.availability(new Set()), { missing: "PATENTSVIEW_API_KEY" });
  assert.deepEqual(patentsSearch.availability(new Set(["PATENTSVIEW_API_KEY"])), {});
  assert.deepEqual(patentsSearch.recordKeys.required, ["patent_id"]);
  assert.deepEqual(
    Object.values(patentsSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 0]],
  );
  assert.ok(patentsSearch.ruleTexts.length === 5);
});

test("defaults and rules", () => {
  const body = { query: "patch" };
  assert.deepEqual(violationsOf(patentsSearch, body), []);
  assert.deepEqual(body, { query: "patch", sort: "newest", num: 10 });
  const at = (b: JsonObject) => violationsOf(patentsSearch, b).map((v) => v.path);
  assert.deepEqual(at({}), [""]);
  assert.deepEqual(at({ to_date: "2000-01-01" }), []);
  assert.deepEqual(at({ inventor: "x", match: "all" }), ["/match"]);
  assert.deepEqual(at({ from_date: "2000-02-30" }), ["/from_date"]);
  assert.deepEqual(at({ from_date: "2001-01-01", to_date: "2000-01-01" }), ["/from_date"]);
  const stored = { query: "x", from_date: "2001-01-01", to_date: "2000-01-01", sort: "newest", num: 10 };
  assert.deepEqual(patentsSearch.checkRules(stored, new Set(["to_date"])).map((v) => v.path), ["/to_date"]);
  for (const e of patentsSearch.examples) assert.deepEqual(violationsOf(patentsSearch, structuredClone(e.body)), [], e.title);
});
