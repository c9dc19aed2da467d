/**
 * What the music.search adapters share: the validated query, the offset cursor (which also names
 * the source that served the first slice), and small formatting helpers.
 */
import type { JsonObject, JsonValue } from "../types.ts";
import type { MUSIC_KINDS, MusicSearchQuery } from "./schema.ts";

export { MUSIC_KINDS } from "./schema.ts";
export type MusicKind = (typeof MUSIC_KINDS)[number];

/** The validated music.search body with defaults applied (its schema's static type). */
export type MusicQuery = MusicSearchQuery;

export type MusicSource = "deezer" | "musicbrainz";

/** `{ offset, source }`: `more` continues on the source that served the first slice. */
export interface MusicCursor {
  offset: number;
  /** Null for the first slice, where the primary source is tried and the fallback may step in. */
  source: MusicSource | null;
}

export function parseCursor(cursor: JsonValue): MusicCursor {
  if (cursor === null || typeof cursor !== "object" || Array.isArray(cursor))
    return { offset: 0, source: null };
  const offset = typeof cursor.offset === "number" && Number.isInteger(cursor.offset) ? cursor.offset : 0;
  // A cursor without a known source can only have come from the primary source.
  const source: MusicSource = cursor.source === "musicbrainz" ? "musicbrainz" : "deezer";
  return { offset: Math.max(0, offset), source };
}

export function nextCursor(offset: number, num: number, source: MusicSource): JsonObject {
  return { offset: offset + num, source };
}

/** Seconds → "m:ss" (minutes are not wrapped into hours: 75:03). */
export function formatDuration(totalSeconds: number): string {
  const whole = Math.max(0, Math.round(totalSeconds));
  const minutes = Math.floor(whole / 60);
  const seconds = whole % 60;
  return `${minutes}:${String(seconds).padStart(2, "0")}`;
}

export function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

export function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** Copy the entries whose value is defined; summaries and details never carry placeholders. */
export function defined(entries: Record<string, JsonValue | undefined>): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) out[key] = value;
  return out;
}
