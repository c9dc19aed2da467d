/**
 * legal.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOf, oneOfOr, taggedUnion, text } from "../framework/fields.ts";
import { EU_LANGUAGES } from "../shared/legal.ts";
import { EU_KINDS } from "./cellar.ts";

const year = (description: string) => Type.Optional(Type.Integer({ minimum: 1600, maximum: 2100, description }));

export const legalSearchSchema = Type.Object(
  {
    search: taggedUnion(
      "jurisdiction",
      [
        Type.Object(
          {
            jurisdiction: Type.Literal("us", { description: "United States court decisions (CourtListener)." }),
            query: text(1, 500, "Words to find in decisions (CourtListener's search syntax works: quotes, AND/OR, caseName:…)."),
            courts: oneOfOr(["all", "federal", "state"], "all", "`federal`, `state` or `all` courts (default all)."),
            from_year: year("Decided in or after this year (1600-2100)."),
            to_year: year("Decided in or before this year (1600-2100)."),
          },
          { additionalProperties: false },
        ),
        Type.Object(
          {
            jurisdiction: Type.Literal("eu", { description: "European Union law and case law (EUR-Lex)." }),
            query: text(1, 500, "Words that must all appear in the document's title in `language` (case-insensitive)."),
            kind: oneOf(EU_KINDS, "`judgment`, `legislation` (regulations, directives, decisions) or `opinion`; all three when omitted."),
            language: oneOfOr(EU_LANGUAGES, "EN", "One of the EU's 24 official languages (default EN): the language of titles and of the text."),
          },
          { additionalProperties: false },
        ),
      ],
      "What to search: {jurisdiction: us, query, courts?, from_year?, to_year?} or {jurisdiction: eu, query, kind?, language?}.",
    ),
    num: num(10, 3),
  },
  { additionalProperties: false },
);

export type LegalSearchQuery = Static<typeof legalSearchSchema>;
