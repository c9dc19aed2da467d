/**
 * jobs.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { country, language, num, text } from "../framework/fields.ts";

export const jobsSearchSchema = Type.Object(
  {
    query: text(1, 500, 'Job title, skills or company, e.g. "barista" or "python developer".'),
    country: country("Country of the search, ISO 3166-1 alpha-2 (e.g. us, de); sent as Google's `gl`."),
    language: language("Interface language code, e.g. en, de, pt-BR; sent as Google's `hl`."),
    location: Type.Optional(text(1, 200, 'Where the jobs are, e.g. "Austin, Texas, United States".')),
    num: num(25, 10, "Listings per call."),
  },
  { additionalProperties: false },
);

export type JobsSearchQuery = Static<typeof jobsSearchSchema>;
