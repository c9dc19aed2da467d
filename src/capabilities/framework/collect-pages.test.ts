// Slices of provider pages (framework/cursors.ts, collectPages): within a page, across pages up to the bound,
// the end of the provider's pages, an empty page with more after it, and a provider that names the
// page it answered as its next one.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { JsonValue } from "../types.ts";
import { collectPages, type ProviderPage, sliceCursor } from "./cursors.ts";
import { serpApiPagedCost } from "../shared/serpapi-paged.ts";
import { worstCredits } from "./costs.ts";

/** Pages "A" (5 items) → "B" (3) → end; records which pages were asked. */
function provider(pages: Record<string, { items: string[]; next: JsonValue }>) {
  const asked: JsonValue[] = [];
  const fetch = async (page: JsonValue): Promise<ProviderPage<string>> => {
    asked.push(page);
    return pages[String(page ?? "A")]!;
  };
  return { asked, fetch };
}
const PAGES = { A: { items: ["a1", "a2", "a3", "a4", "a5"], next: "B" }, B: { items: ["b1", "b2", "b3"], next: null } };

test("calls continue after the last item returned, crossing pages, until the provider's end", async () => {
  const p = provider(PAGES);
  const one = await collectPages({ cursor: null, want: 2, maxRequests: 2, fetch: p.fetch });
  assert.deepEqual(one, { items: ["a1", "a2"], next: { page: null, skip: 2 }, requests: 1 });
  const two = await collectPages({ cursor: one.next, want: 4, maxRequests: 2, fetch: p.fetch });
  assert.deepEqual(two, { items: ["a3", "a4", "a5", "b1"], next: { page: "B", skip: 1 }, requests: 2 });
  const three = await collectPages({ cursor: two.next, want: 4, maxRequests: 2, fetch: p.fetch });
  assert.deepEqual(three, { items: ["b2", "b3"], next: null, requests: 1 });
  assert.deepEqual(p.asked, [null, null, "B", "B"]);
});

test("a page that ends exactly at want moves the cursor to the next page without asking it", async () => {
  const p = provider(PAGES);
  const got = await collectPages({ cursor: null, want: 5, maxRequests: 2, fetch: p.fetch });
  assert.deepEqual(got, { items: ["a1", "a2", "a3", "a4", "a5"], next: { page: "B", skip: 0 }, requests: 1 });
});

test("the request bound stops a call short; empty pages in between are read through", async () => {
  const p = provider({ A: { items: [], next: "B" }, B: { items: [], next: "C" }, C: { items: ["c1"], next: null } });
  const short = await collectPages({ cursor: null, want: 3, maxRequests: 2, fetch: p.fetch });
  assert.deepEqual(short, { items: [], next: { page: "C", skip: 0 }, requests: 2 }, "empty, with more to come");
  const rest = await collectPages({ cursor: short.next, want: 3, maxRequests: 2, fetch: p.fetch });
  assert.deepEqual(rest, { items: ["c1"], next: null, requests: 1 });
});

test("a provider naming the page it answered as the next one ends the paging", async () => {
  const p = provider({ A: { items: ["a1"], next: "A" } });
  assert.deepEqual(await collectPages({ cursor: { page: "A", skip: 0 }, want: 5, maxRequests: 3, fetch: p.fetch }), {
    items: ["a1"],
    next: null,
    requests: 1,
  });
});

test("cursors as stored, and the paged SerpApi cost: 4 credits a page, the bound reserved", () => {
  assert.deepEqual(sliceCursor(null), { page: null, skip: 0 });
  assert.deepEqual(sliceCursor({ page: 40, skip: 7 }), { page: 40, skip: 7 });
  assert.deepEqual(sliceCursor({ page: "t", skip: -3 }), { page: "t", skip: 0 });
  const cost = serpApiPagedCost((q: { num: number }) => Math.ceil(q.num / 10) + 1, "basis");
  assert.equal(cost.typicalCredits, 4);
  assert.equal(worstCredits(cost, { num: 10 }), 8);
  assert.equal(worstCredits(cost, { num: 25 }), 16);
});
