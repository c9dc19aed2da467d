/**
 * JSON values and the link shape records carry: a leaf module (it imports nothing), so the store,
 * the caches and the capability types can all name them without importing each other.
 */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** A labelled link of a record or detail (spec 2.3 `links`). */
export interface Link {
  label: string;
  url: string;
}
