/**
 * shopping.search, jobs.search, trends.search and realestate.search as declared against spec 4.6's
 * summary table and sections: paging kind, deadline, typical credits, `num` bounds, update,
 * record actions with their mode and first-call credits, the worst case reserved, the key each
 * needs, and the published rules.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { registry } from "../src/capabilities/registry.ts";

const SPEC = {
  "shopping.search": { paging: "page", deadline: 40_000, credits: 4, num: [10, 25], key: "SERPAPI_API_KEY", action: ["fetched", 4], reserve: 8 },
  "jobs.search": { paging: "token", deadline: 40_000, credits: 4, num: [10, 25], key: "SERPAPI_API_KEY", action: ["stored", 0], reserve: 8 },
  "realestate.search": { paging: "page", deadline: 15_000, credits: 4, num: [10, 20], key: "REALESTATE_API_KEY", action: ["fetched", 4], reserve: 8 },
  "trends.search": { paging: "single", deadline: 40_000, credits: 4, num: null, key: "SERPAPI_API_KEY", action: ["stored", 0], reserve: 4 },
} as const;

test("each capability's declaration matches spec 4.6", () => {
  for (const [id, spec] of Object.entries(SPEC)) {
    const cap = registry[id]!;
    assert.equal(cap.paging, spec.paging, id);
    assert.equal(cap.deadlineMs, spec.deadline, id);
    assert.equal(cap.typicalCredits, spec.credits, id);
    assert.equal(cap.offersUpdate, true, `${id}: update offered`);
    assert.deepEqual(Object.keys(cap.actions), ["details"], id);
    assert.deepEqual([cap.actions.details!.mode, cap.actions.details!.credits], spec.action, id);
    assert.deepEqual(cap.availability(new Set()), { missing: spec.key }, id);
    assert.deepEqual(cap.availability(new Set([spec.key])), {}, id);
    const num = (cap.schema.properties as Record<string, { default?: number; maximum?: number; minimum?: number }>).num;
    if (spec.num === null) assert.equal(num, undefined, id);
    else assert.deepEqual([num?.minimum, num?.default, num?.maximum], [1, ...spec.num], id);
    const query = { ...cap.examples[0]!.body, ...(spec.num === null ? {} : { num: spec.num[0] }) };
    assert.equal(cap.maxCredits(query), spec.reserve, `${id}: worst case reserved`);
  }
  assert.equal(registry["jobs.search"]!.maxCredits({ query: "x", num: 25 }), 16, "three Google pages plus one started mid-page");
  assert.deepEqual(registry["shopping.search"]!.updateOnly, ["filter_id"]);
});

test("the rule sentences are published in each schema", () => {
  const rules = (id: string) => registry[id]!.ruleTexts.join(" ");
  assert.match(rules("shopping.search"), /`price_min` must not exceed `price_max`/);
  assert.match(rules("shopping.search"), /`filter_id` cannot be combined with `sort`/);
  assert.match(rules("shopping.search"), /`filter_id` cannot be combined with `condition`/);
  assert.match(rules("realestate.search"), /`min_price` must not exceed `max_price`/);
  assert.match(rules("trends.search"), /`region` requires `data_type`: "GEO_MAP"/);
  assert.match(rules("trends.search"), /`region: "COUNTRY"` requires worldwide geography/);
  assert.match(String(registry["shopping.search"]!.updateRule), /filter_id/);
});
