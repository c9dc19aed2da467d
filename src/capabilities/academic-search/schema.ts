/**
 * academic.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { flag, num, oneOfOr, text } from "../framework/fields.ts";

const year = (description: string) => Type.Optional(Type.Integer({ minimum: 1000, maximum: 2100, description }));

export const academicSearchSchema = Type.Object(
  {
    query: text(1, 500, "Words to find in titles and abstracts."),
    from_year: year("Earliest publication year (inclusive); not after `to_year`."),
    to_year: year("Latest publication year (inclusive); not before `from_year`."),
    open_access_only: flag(false, "Only works with a free full text."),
    sort: oneOfOr(["relevance", "cited", "recent"], "relevance", "`relevance`, `cited` (most cited first) or `recent` (newest first)."),
    num: num(25, 10),
  },
  { additionalProperties: false },
);

export type AcademicSearchQuery = Static<typeof academicSearchSchema>;
