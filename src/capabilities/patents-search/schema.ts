/**
 * patents.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { isoDate, num, oneOf, oneOfOr, text } from "../framework/fields.ts";

const FILTER = "Give at least one of `query`, `assignee`, `inventor`, `from_date`, `to_date`; they combine.";

export const patentsSearchSchema = Type.Object(
  {
    query: Type.Optional(
      text(1, 300, "Words to find in the patent's text (title, abstract, claims, description); how they combine: `match`.", { notBlank: true }),
    ),
    match: oneOf(
      ["all", "any", "phrase"],
      "How `query` matches (needs `query`): `all` its words (the default; Google Patents' own syntax such as OR, NOT and parentheses is read), `any` of them, or the exact `phrase`.",
    ),
    from_date: Type.Optional(isoDate("Published on or after this date (YYYY-MM-DD); not after `to_date`.")),
    to_date: Type.Optional(isoDate("Published on or before this date (YYYY-MM-DD).")),
    assignee: Type.Optional(text(1, 200, 'Assignee as Google Patents names it, e.g. "Kraft Foods"; commas separate alternatives.', { notBlank: true })),
    inventor: Type.Optional(text(1, 200, 'Inventor name, e.g. "Bary Lyn Zeller"; commas separate alternatives.', { notBlank: true })),
    country: Type.Optional(
      Type.String({
        pattern: "^[A-Za-z]{2}(,[A-Za-z]{2}){0,9}$",
        description: "Patent offices by code, up to 10, comma-separated, e.g. US or US,EP,WO (any office when omitted).",
      }),
    ),
    status: oneOf(["granted", "application"], "Only `granted` patents or only published `application`s (both when omitted)."),
    sort: oneOfOr(
      ["relevance", "newest", "oldest"],
      "relevance",
      "`relevance` (default), or by filing date: `newest` or `oldest` first.",
    ),
    num: num(25, 10),
  },
  { additionalProperties: false, description: FILTER },
);

export type PatentsSearchQuery = Static<typeof patentsSearchSchema>;
