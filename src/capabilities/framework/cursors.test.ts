import assert from "node:assert/strict";
import { test } from "node:test";
import { pageCursor, pageOf } from "./cursors.ts";

test("pageOf: a { page: n } cursor's page; null and malformed cursors are page 1", () => {
  assert.equal(pageOf(null), 1);
  assert.equal(pageOf({ page: 3 }), 3);
  assert.equal(pageOf({ page: 0 }), 1);
  assert.equal(pageOf({ page: -2 }), 1);
  assert.equal(pageOf({ page: 2.5 }), 1);
  assert.equal(pageOf({ page: "2" }), 1);
  assert.equal(pageOf({ offset: 10 }), 1);
  assert.equal(pageOf("2"), 1);
  assert.equal(pageOf([{ page: 2 }]), 1);
});

test("pageCursor and pageOf round-trip", () => {
  for (const n of [1, 2, 40]) assert.equal(pageOf(pageCursor(n)), n);
});
