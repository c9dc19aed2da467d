/**
 * The bench's arithmetic for what the saturated added-p99 target would take (bench/stats.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { percentile, saturatedNeeds, tailShape } from "../bench/stats.ts";

test("saturatedNeeds: the ratio at which Little's law alone puts execute's p99 exactly on the line", () => {
  // Figures of a real run on this project's 2-core host (docs/performance.md, twenty-first session).
  const bare = { rps: 6955, p50: 6.67, p99: 13.41 };
  const execute = { rps: 4814, p50: 9.39, p99: 23.17 };
  const needs = saturatedNeeds(bare, execute, 3);
  assert.equal(needs.ratio.toFixed(4), "0.8172");
  assert.equal(needs.tailShape.toFixed(4), "1.7476");
  assert.equal(tailShape(bare).toFixed(4), "2.0105");
  // At exactly that ratio and the bare route's tail shape, execute's p99 is bare's + 3 ms.
  const p99AtRatio = bare.p99 / needs.ratio;
  assert.ok(Math.abs(p99AtRatio - bare.p99 - 3) < 1e-9);
  // At execute's measured p50 and exactly that tail shape, the same.
  assert.ok(Math.abs(execute.p50 * needs.tailShape - bare.p99 - 3) < 1e-9);
});

test("saturatedNeeds: a looser limit needs less, and a side already passing shows it", () => {
  const bare = { rps: 10_000, p50: 5, p99: 10 };
  const execute = { rps: 9_000, p50: 5.5, p99: 11 };
  const strict = saturatedNeeds(bare, execute, 3);
  const loose = saturatedNeeds(bare, execute, 6);
  assert.ok(loose.ratio < strict.ratio);
  assert.ok(loose.tailShape > strict.tailShape);
  // 0.9× measured against 0.77× needed; p99/p50 2.0 against 2.36 allowed.
  assert.ok(execute.rps / bare.rps >= strict.ratio);
  assert.ok(tailShape(execute) <= strict.tailShape);
});

test("percentile is nearest-rank over an ascending array", () => {
  const sorted = Float64Array.from({ length: 100 }, (_, i) => i + 1);
  assert.equal(percentile(sorted, 50), 50);
  assert.equal(percentile(sorted, 99), 99);
  assert.equal(percentile(sorted, 100), 100);
  assert.ok(Number.isNaN(percentile([], 50)));
});
