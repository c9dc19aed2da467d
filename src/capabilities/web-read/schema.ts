/**
 * web.read's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defaulted, oneOfOr } from "../framework/fields.ts";

export const webReadSchema = Type.Object(
  {
    url: Type.String({ format: "uri", minLength: 1, description: "The page to read: an http or https URL on a public address." }),
    format: oneOfOr(["markdown", "text"], "markdown", "`markdown` (default) or plain `text`."),
    max_chars: defaulted(
      Type.Integer({ minimum: 500, maximum: 200_000, default: 20_000, description: "Most characters of content returned (500-200000, default 20000)." }),
    ),
  },
  { additionalProperties: false },
);

export type WebReadQuery = Static<typeof webReadSchema>;
