/**
 * The bench's arithmetic for what the saturated added-p99 target would take (bench/stats.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { percentile } from "../bench/stats.ts";

test("percentile is nearest-rank over an ascending array", () => {
  const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(sorted, 50), 50);
  assert.equal(percentile(sorted, 99), 99);
  assert.equal(percentile(sorted, 100), 100);
  assert.ok(Number.isNaN(percentile([], 50)), "Number.isNaN(percentile([], 50))");
});
