// The framework's cursor codecs (cursors.ts): page numbers, and slices of provider pages.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pageCursor, pageOf, sliceCursor, slicePage } from "./cursors.ts";

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

test("slice cursors: {page, skip} read back; the older {cursor, skip} sessions stored is read too; junk is the start", () => {
  assert.deepEqual(sliceCursor({ page: "B", skip: 3 }), { page: "B", skip: 3 });
  assert.deepEqual(sliceCursor({ cursor: "B", skip: 3 }), { page: "B", skip: 3 }, "a cursor stored before the framework owned the codec");
  assert.deepEqual(sliceCursor(null), { page: null, skip: 0 });
  assert.deepEqual(sliceCursor({ page: 2, skip: -1 }), { page: 2, skip: 0 }, "a negative skip is none");
  assert.deepEqual(sliceCursor("junk"), { page: null, skip: 0 });
});

test("slicePage: stays on the provider page while it has items, then moves to its next; none after the last", () => {
  const page = { items: ["a", "b", "c"], next: "P2" };
  assert.deepEqual(slicePage(page, { page: null, skip: 0 }, 2), { items: ["a", "b"], next: { page: null, skip: 2 }, pageDone: false });
  assert.deepEqual(slicePage(page, { page: null, skip: 2 }, 2), { items: ["c"], next: { page: "P2", skip: 0 }, pageDone: true });
  assert.deepEqual(slicePage({ ...page, next: null }, { page: null, skip: 1 }, 5), { items: ["b", "c"], next: null, pageDone: true });
  assert.deepEqual(slicePage({ ...page, next: "P1" }, { page: "P1", skip: 3 }, 5).next, null, "a provider naming the same page next ends the paging");
});
