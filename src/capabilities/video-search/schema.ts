/**
 * video.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOf, text } from "../framework/fields.ts";

export const videoSearchSchema = Type.Object(
  {
    query: text(1, 300, "Words to search YouTube videos for."),
    num: num(50, 10),
    published_after: Type.Optional(
      Type.String({ format: "date-time", description: "Only videos published after this instant, RFC 3339 (e.g. 2024-01-01T00:00:00Z)." }),
    ),
    duration: oneOf(["short", "medium", "long"], "Length: `short` (under 4 minutes), `medium` (4-20 minutes) or `long` (over 20 minutes)."),
  },
  { additionalProperties: false },
);

export type VideoSearchQuery = Static<typeof videoSearchSchema>;
