/**
 * social.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOfOr, text } from "../framework/fields.ts";
import { PLATFORMS, SOCIAL_KINDS } from "./social-query.ts";

export const socialSearchSchema = Type.Object(
  {
    platform: Type.Unsafe<(typeof PLATFORMS)[number]>({
      type: "string",
      enum: [...PLATFORMS],
      description: "`microblog` (short public posts; billed per post) or `forum` (community threads; free).",
    }),
    query: text(1, 300, "Words to search for (the platform's own search syntax works, e.g. from:name on the microblog)."),
    kind: oneOfOr(SOCIAL_KINDS, "posts", "`posts` or `profiles` (accounts)."),
    num: num(25, 10),
  },
  { additionalProperties: false },
);

export type SocialSearchQuery = Static<typeof socialSearchSchema>;
