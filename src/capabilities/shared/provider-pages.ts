/**
 * Quarry pages cut from provider pages. Several providers answer a fixed number of items a page
 * (Google Jobs about 10, Google Shopping 40-60, the Zillow listing API up to 41) while a caller asks
 * for `num`. A slice cursor `{page, skip}` names the provider page (its page number, `start` offset
 * or token; `null` for the first) and how many of its items earlier calls already returned, so
 * `more` continues exactly after the last item returned: nothing repeats, nothing is skipped.
 *
 * One call reads the cursor's provider page and, while it still lacks items and the provider has a
 * next page, the pages after it, up to `maxRequests` provider requests. Each request is one billed
 * provider call: the caller charges it in `fetch` (its cost declaration reserves `maxRequests`).
 */
import type { JsonObject, JsonValue } from "../types.ts";
import { obj } from "./read.ts";

/** Where the next slice starts: a provider page and the items of it already returned. */
export interface SliceCursor {
  page: JsonValue;
  skip: number;
}

/** One provider page as the caller's `fetch` read it. */
export interface ProviderPage<T> {
  items: T[];
  /** The provider's next page (number, offset or token), or null when this is the last. */
  next: JsonValue;
}

/** A cursor as stored by an earlier call, or the start (first page, nothing skipped). */
export function sliceCursor(cursor: JsonValue): SliceCursor {
  const c = obj(cursor);
  const skip = c?.skip;
  return {
    page: (c?.page as JsonValue | undefined) ?? null,
    skip: typeof skip === "number" && Number.isInteger(skip) && skip > 0 ? skip : 0,
  };
}

/** What one call collected, and where the next one starts (null at the provider's end). */
export interface Collected<T> {
  items: T[];
  next: JsonObject | null;
  /** Provider requests made (each one billed by the caller's `fetch`). */
  requests: number;
}

/**
 * Collect up to `want` items from the cursor's provider page onwards. `fetch(page)` asks the
 * provider for one page (and charges it); a failure propagates, so a call is all or nothing.
 */
export async function collectPages<T>(options: {
  cursor: JsonValue;
  want: number;
  maxRequests: number;
  fetch(page: JsonValue): Promise<ProviderPage<T>>;
}): Promise<Collected<T>> {
  let { page, skip } = sliceCursor(options.cursor);
  const items: T[] = [];
  let requests = 0;
  for (;;) {
    const got = await options.fetch(page);
    requests += 1;
    const taken = got.items.slice(skip, skip + (options.want - items.length));
    items.push(...taken);
    if (skip + taken.length < got.items.length) return { items, next: { page, skip: skip + taken.length }, requests };
    // A provider that names the page it just answered as the next one would loop forever.
    if (got.next === null || JSON.stringify(got.next) === JSON.stringify(page)) return { items, next: null, requests };
    page = got.next;
    skip = 0;
    if (items.length >= options.want || requests >= options.maxRequests) return { items, next: { page, skip: 0 }, requests };
  }
}
