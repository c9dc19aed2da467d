/**
 * codehost.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { num, oneOfOr, text } from "../framework/fields.ts";

const KINDS = ["repositories", "code", "issues"] as const;

export const codehostSearchSchema = Type.Object(
  {
    query: text(1, 300, "Search terms in GitHub's search syntax: words plus qualifiers such as `language:python`, `user:octocat`, `repo:owner/name`, `is:pr`, `stars:>100`."),
    kind: oneOfOr(KINDS, "repositories", "`repositories`, `code` (needs a GitHub token in the deployment) or `issues` (issues and pull requests)."),
    sort: Type.Optional(
      text(1, 30, "Order: `stars`, `forks` or `updated` for repositories; `created`, `updated` or `comments` for issues; none for code (best match). Default: best match."),
    ),
    num: num(30, 10),
  },
  { additionalProperties: false },
);

export type CodehostSearchQuery = Static<typeof codehostSearchSchema>;
