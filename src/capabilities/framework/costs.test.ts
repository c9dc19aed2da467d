// Costs as data: credits from USD, the worst case reserved, what a call used.
import assert from "node:assert/strict";
import { test } from "node:test";
import { creditsFor, isFree, Meter, typicalCredits, usedUsd, worstCredits } from "./costs.ts";

test("credits are ceil(USD / 0.001), without float noise", () => {
  assert.equal(creditsFor(0), 0);
  assert.equal(creditsFor(0.004), 4);
  assert.equal(creditsFor(0.005), 5);
  assert.equal(creditsFor(0.00015), 1);
  assert.equal(creditsFor(0.00015 * 10), 2);
  assert.equal(creditsFor(0.001 * 3), 3, "0.0030000000000000005 is 3, not 4");
  assert.equal(creditsFor(0.0041), 5);
});

test("worst case: per call, per item up to maxItems, per unit up to maxUnits, metered", () => {
  type Q = { num: number };
  const social = { perItem: 0.00015, maxItems: (q: Q) => q.num, basis: "" };
  assert.equal(worstCredits(social, { num: 25 }), 4);
  assert.equal(typicalCredits(social), 2, "the spec's 2 credits for 10 posts");
  const news = { perUnit: 0.001, maxUnits: () => 2, basis: "" };
  assert.equal(worstCredits(news, { num: 10 }), 2);
  assert.equal(worstCredits({ perCall: 0.004, maxMetered: () => 0.004, basis: "" }, { num: 1 }), 8);
  assert.throws(() => worstCredits({ perItem: 0.1, basis: "" }, { num: 1 }), /maxItems/);
  assert.equal(isFree({ basis: "" }), true);
  assert.equal(isFree(news), false);
});

test("a call's USD: calls × perCall + items × perItem + units × perUnit + metered", () => {
  const meter = new Meter();
  meter.page(7, 2);
  meter.charge(0.004);
  assert.deepEqual(meter.used, { calls: 1, items: 7, units: 2, meteredUsd: 0.004 });
  const usd = usedUsd({ perCall: 0.001, perItem: 0.00015, perUnit: 0.001, basis: "" }, meter.used);
  assert.equal(creditsFor(usd), 9);
});
