/**
 * classics.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, text } from "../framework/fields.ts";

export const EITHER = "Give `query` or `author` (or both).";

export const classicsSearchSchema = Type.Object(
  {
    query: Type.Optional(text(1, 300, `Words of the title or the author's name, e.g. "Frankenstein". ${EITHER}`)),
    author: Type.Optional(
      text(1, 200, `Author's name, e.g. "Austen" (searched together with \`query\`: Gutendex matches title and author words). ${EITHER}`),
    ),
    language: Type.Optional(
      Type.String({ minLength: 2, maxLength: 2, pattern: "^[A-Za-z]{2}$", description: "Language of the book, ISO 639-1 (e.g. en, fr, de)." }),
    ),
    num: num(25, 10),
  },
  { additionalProperties: false, description: EITHER },
);

export type ClassicsSearchQuery = Static<typeof classicsSearchSchema>;
