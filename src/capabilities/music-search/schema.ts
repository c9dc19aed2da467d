/**
 * music.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOfOr, text } from "../framework/fields.ts";

export const MUSIC_KINDS = ["track", "artist", "album"] as const;

export const musicSearchSchema = Type.Object(
  {
    query: text(1, 300, "Track, artist or album words."),
    kind: oneOfOr(MUSIC_KINDS, "track", "What to find: `track`, `artist` or `album`."),
    num: num(25, 10),
  },
  { additionalProperties: false },
);

export type MusicSearchQuery = Static<typeof musicSearchSchema>;
