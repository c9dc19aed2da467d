/**
 * Cursor codecs owned by the framework. A source that pages by number stores `{ page: n }` as its
 * cursor (the first slice has none); `pageOf` reads one back. Anything else (a cursor from an older
 * shape, a hand-made one) is page 1, never an error: a stored cursor is Quarry's own, and the worst
 * a bad one can do is start again.
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
