/**
 * books.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, text } from "../framework/fields.ts";

const AT_LEAST_ONE = "Give at least one of `query`, `author`, `subject`; they combine.";

export const booksSearchSchema = Type.Object(
  {
    query: Type.Optional(text(1, 300, `Words to find in titles, authors and subjects. ${AT_LEAST_ONE}`)),
    author: Type.Optional(text(1, 200, `Author name, e.g. "Susan Cain". ${AT_LEAST_ONE}`)),
    subject: Type.Optional(text(1, 200, `Subject, e.g. "introversion". ${AT_LEAST_ONE}`)),
    num: num(25, 10),
  },
  { additionalProperties: false, description: AT_LEAST_ONE },
);

export type BooksSearchQuery = Static<typeof booksSearchSchema>;
