/**
 * transit.routes's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { country, language, num, oneOfOr, taggedUnion } from "../framework/fields.ts";
import { latLon } from "../shared/travel-fields.ts";

const point = (description: string) =>
  Type.Union([Type.String({ maxLength: 300, description: "An address or place name (not blank)." }), latLon()], { description });

/** RFC 3339 with an explicit offset (Z or ±hh:mm), e.g. 2025-03-03T09:00:00-05:00; `t` and `z` too (RFC 3339 §5.6). */
const stamp = Type.String({
  format: "date-time",
  maxLength: 40,
  pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$",
  description: "An RFC 3339 timestamp with an explicit offset, e.g. 2025-03-03T09:00:00-05:00 (at most 40 characters).",
});

export const transitRoutesSchema = Type.Object(
  {
    origin: point("Where the trip starts: an address or place name, or {lat, lon}."),
    destination: point("Where the trip ends: an address or place name, or {lat, lon}."),
    time: Type.Optional(
      taggedUnion(
        "mode",
        [
          Type.Object({ mode: Type.Literal("depart_at"), at: stamp }, { additionalProperties: false }),
          Type.Object({ mode: Type.Literal("arrive_by"), at: stamp }, { additionalProperties: false }),
          Type.Object({ mode: Type.Literal("last_available") }, { additionalProperties: false }),
        ],
        "When to travel: {mode: depart_at or arrive_by, at: RFC 3339 timestamp with offset}, or {mode: last_available} " +
          "(the last departure of the day). Omit to depart now.",
      ),
    ),
    preference: oneOfOr(
      ["best", "fewer_transfers", "less_walking", "wheelchair_accessible"],
      "best",
      "Route preference (default best).",
    ),
    prefer: Type.Optional(
      Type.Array(Type.Unsafe<"bus" | "subway" | "train" | "tram_and_light_rail">({ type: "string", enum: ["bus", "subway", "train", "tram_and_light_rail"] }), {
        minItems: 1,
        maxItems: 4,
        uniqueItems: true,
        description: "Preferred vehicles (1-4 distinct): bus, subway, train, tram_and_light_rail.",
      }),
    ),
    country: country(),
    language: language(),
    num: num(10, 5, "Alternatives per page."),
  },
  { additionalProperties: false },
);

export type TransitRoutesQuery = Static<typeof transitRoutesSchema>;
