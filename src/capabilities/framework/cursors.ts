/**
 * Cursor codecs owned by the framework, one per way a source pages; a source never writes its own.
 *
 * - Page numbers (`paging: "page"`): the cursor is `{ page: n }` (the first slice has none); `pageOf`
 *   reads one back, `pageCursor` writes one.
 * - Slices of provider pages (any paging kind whose provider page holds a fixed number of items while
 *   a caller asks for `num`: Google Jobs about 10, Google Shopping 40-60, the Zillow listing API up to
 *   41, CourtListener 20, twitterapi.io 20): the cursor is `{ page, skip }`, the provider page (its
 *   number, offset or token; null for the first) and how many of its items earlier calls already
 *   returned, so `more` continues exactly after the last item returned: nothing repeats, nothing is
 *   skipped. `slicePage` cuts one provider page (pure, for a declared HTTP source's `toPage`);
 *   `collectPages` reads as many pages as a call needs, up to `maxRequests` provider requests (each one
 *   billed by the caller's `fetch`; its cost declaration reserves `maxRequests`).
 *
 * Anything else (a cursor from an older shape, a hand-made one) is the first page, never an error: a
 * stored cursor is Quarry's own, and the worst a bad one can do is start again.
 */
import type { JsonObject, JsonValue } from "../types.ts";

/** The page a `{ page: n }` cursor names; null, malformed or non-positive-integer pages are page 1. */
export function pageOf(cursor: JsonValue): number {
  const page = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor.page : undefined;
  return typeof page === "number" && Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The cursor of page `page`. */
export function pageCursor(page: number): JsonObject {
  return { page };
}

/** Where the next slice starts: a provider page and the items of it already returned. */
export interface SliceCursor {
  page: JsonValue;
  skip: number;
}

/**
 * A slice cursor as stored by an earlier call, or the start (first page, nothing skipped). Sessions
 * stored before the framework owned this codec wrote the provider page as `cursor`; it is read too.
 */
export function sliceCursor(cursor: JsonValue): SliceCursor {
  const c = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor : undefined;
  const skip = c?.skip;
  return {
    page: c?.page ?? c?.cursor ?? null,
    skip: typeof skip === "number" && Number.isInteger(skip) && skip > 0 ? skip : 0,
  };
}

/** One provider page as read: its items, and the provider's next page (number, offset or token), null at the end. */
export interface ProviderPage<T> {
  items: T[];
  next: JsonValue;
}

/** One slice cut from one provider page: up to `want` items from `at.skip`, and where the next slice starts. */
export interface Slice<T> {
  items: T[];
  /** Null at the provider's end. */
  next: JsonObject | null;
  /** Whether the provider page is used up (the next slice starts on the provider's next page). */
  pageDone: boolean;
}

/**
 * Cut up to `want` items of the provider page at `at` (pure). The next slice stays on this page while
 * it has items left; else it starts on the provider's next page, unless there is none (or the
 * provider names the page it just answered as its next one, which would loop forever).
 */
export function slicePage<T>(page: ProviderPage<T>, at: SliceCursor, want: number): Slice<T> {
  const items = page.items.slice(at.skip, at.skip + Math.max(0, want));
  const used = at.skip + items.length;
  if (used < page.items.length) return { items, next: { page: at.page, skip: used }, pageDone: false };
  const last = page.next === null || JSON.stringify(page.next) === JSON.stringify(at.page);
  return { items, next: last ? null : { page: page.next, skip: 0 }, pageDone: true };
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
  let at = sliceCursor(options.cursor);
  const items: T[] = [];
  let requests = 0;
  for (;;) {
    const slice = slicePage(await options.fetch(at.page), at, options.want - items.length);
    requests += 1;
    items.push(...slice.items);
    if (!slice.pageDone || slice.next === null) return { items, next: slice.next, requests };
    if (items.length >= options.want || requests >= options.maxRequests) return { items, next: slice.next, requests };
    at = sliceCursor(slice.next);
  }
}
