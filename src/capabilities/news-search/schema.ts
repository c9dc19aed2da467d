/**
 * news.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOf, text } from "../framework/fields.ts";
import { TIME_RANGES } from "../shared/serper.ts";

export const newsSearchSchema = Type.Object(
  {
    query: text(1, 500, "What to find in the news."),
    country: Type.Optional(Type.String({ pattern: "^[A-Za-z]{2}$", description: "Country edition, two letters (ISO 3166-1 alpha-2, e.g. us, de)." })),
    language: Type.Optional(
      Type.String({ pattern: "^[A-Za-z]{2,3}(-[A-Za-z]{2})?$", description: "Language: 2-3 letters, optionally a hyphen and 2 letters (en, de, pt-br)." }),
    ),
    time_range: oneOf(TIME_RANGES, "Only articles from the past `day`, `week`, `month` or `year`."),
    num: num(20, 10),
  },
  { additionalProperties: false },
);

export type NewsSearchQuery = Static<typeof newsSearchSchema>;
