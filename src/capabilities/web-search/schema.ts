/**
 * web.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { country, num, oneOf, text } from "../framework/fields.ts";
import { TIME_RANGES } from "../shared/serper.ts";

export const webSearchSchema = Type.Object(
  {
    query: text(1, 500, "What to search the web for."),
    num: num(20, 10, "Organic results per page; the first page also has the answer box and knowledge graph when Google shows them, ahead of these"),
    country: country("Country to search from, ISO 3166-1 alpha-2 (e.g. us, de)."),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 5, description: "Interface language, e.g. en, de, pt-br (2-5 characters)." })),
    time_range: oneOf(TIME_RANGES, "Only results from the past `day`, `week`, `month` or `year`."),
  },
  { additionalProperties: false },
);

export type WebSearchQuery = Static<typeof webSearchSchema>;
