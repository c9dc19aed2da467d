/**
 * codehost.search (spec 4.6): GitHub's REST search over repositories, code, and issues with pull
 * requests; page paging up to GitHub's 1,000-result cap; `kind: code` needs GITHUB_TOKEN (a variant);
 * free repository `details` (README head, top-level files, stats), fetched and cached.
 */
import { pageOf } from "../framework/cursors.ts";
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { type ActionOutput, defineCapability, type RecordView, type Source } from "../framework/define.ts";
import { custom, sentPointer } from "../framework/rules.ts";
import type { CapabilityContext } from "../types.ts";
import { pastTheCap, pastTheCapPage, readGitHub, SORTS, searchRequest, toSearchPage, toSearchRequest } from "./github.ts";
import { issuePlan, mergedIssueSlice, parseMergedCursor } from "./github-issues.ts";
import { contentsRequest, movedTo, REPO_NAME_PATTERN, readmeRequest, repoByIdRequest, repoName, repoRequest, toRepoDetail } from "./github-repo.ts";
import { MINUTE } from "../framework/durations.ts";
import { type CodehostSearchQuery, codehostSearchSchema } from "./schema.ts";

export { type CodehostSearchQuery, codehostSearchSchema } from "./schema.ts";

/** The sort must be one its kind offers (violation at `sort`, or at `kind` when an update changed only the kind). */
export const sortPerKind = custom(
  "`sort` must suit `kind`: `stars`, `forks` or `updated` for repositories; `created`, `updated` or `comments` for issues; code takes no sort.",
  (input) => {
    const { query } = input;
    const sort = query.sort;
    const kind = typeof query.kind === "string" ? (query.kind as CodehostSearchQuery["kind"]) : "repositories";
    const allowed = SORTS[kind] ?? [];
    if (typeof sort !== "string" || allowed.includes(sort)) return [];
    const { path, stored: atKind } = sentPointer(input, "sort", "kind");
    const fix = atKind ? ` The search's sort is "${sort}": send a sort that suits the new kind, or \`sort: null\`.` : "";
    const message =
      allowed.length === 0
        ? `kind "code" takes no sort (GitHub orders code by best match); remove \`sort\`.${fix}`
        : `sort "${sort}" is not accepted with kind "${kind}"; use ${allowed.map((s) => `"${s}"`).join(", ")}.${fix}`;
    return [{ path, message }];
  },
);

/**
 * One slice of a search: repositories, code, and issues whose query names its kind are one GitHub
 * search paged by `{page}`; issues and pull requests together are two searches merged (github-issues.ts).
 */
const github: Source<CodehostSearchQuery> = {
  id: "github",
  title: "GitHub",
  providers: ["github"],
  async search(ctx, query, cursor) {
    const plan = query.kind === "issues" ? issuePlan(query.query) : undefined;
    if (plan?.kind === "merged") {
      return mergedIssueSlice(
        async (stream, page) => {
          const q = stream === "issues" ? plan.issues : plan.pulls;
          const response = await ctx.upstream.send(searchRequest("issues", q, query.sort, query.num, page), ctx.signal);
          readGitHub(response, ctx.now());
          return pastTheCap(response) ? null : response.body;
        },
        parseMergedCursor(cursor),
        query.sort,
        query.num,
      );
    }
    const page = pageOf(cursor);
    const response = await ctx.upstream.send(toSearchRequest(query, page, plan?.q), ctx.signal);
    readGitHub(response, ctx.now());
    return pastTheCap(response) ? pastTheCapPage() : toSearchPage(response.body, query.kind, page, query.num);
  },
};

/** How long a repository's details are shared between records (GitHub's hourly allowance is small). */
const DETAILS_TTL_MS = 10 * 60_000;

/** The repository of a record (its own, or the one an issue or file belongs to): stats, README head, files. */
/** What `details` needs: the record's repository, `owner/name` (REPO_NAME_PATTERN). */
const needsRepo = {
  ref: Type.Object({ repo: Type.String({ pattern: REPO_NAME_PATTERN }) }),
  refusal: "The record carries no repository name.",
  message: "This record has no stored repository, so its details cannot be fetched.",
};

async function repositoryDetails(
  ctx: CapabilityContext<unknown>,
  record: RecordView<CodehostSearchQuery, Static<typeof needsRepo.ref>>,
): Promise<ActionOutput> {
  const repo = record.ref.repo;
  return ctx.cache.getOrLoad("codehost.repository", repo.toLowerCase(), { ttlMs: DETAILS_TTL_MS }, async () => {
    let found = await ctx.upstream.send(repoRequest(repo), ctx.signal);
    // A renamed repository answers 301 with the address of its new self (`/repositories/{id}`).
    const movedId = found.status === 301 ? movedTo(found.body) : undefined;
    if (movedId !== undefined) found = await ctx.upstream.send(repoByIdRequest(movedId), ctx.signal);
    if (found.status === 404 || found.status === 301) {
      throw invalidRequest(
        [{ path: "/record_id", message: `GitHub has no repository ${repo} (deleted, renamed or made private).` }],
        "The repository of this record is gone from GitHub; search again.",
      );
    }
    readGitHub(found, ctx.now());
    const canonical = repoName(found.body.full_name) ?? repo;
    const [readme, contents] = await Promise.all([
      ctx.upstream.send(readmeRequest(canonical), ctx.signal),
      ctx.upstream.send(contentsRequest(canonical), ctx.signal),
    ]);
    if (readme.status !== 404) readGitHub(readme, ctx.now());
    if (contents.status !== 404) readGitHub(contents, ctx.now());
    return toRepoDetail(found.body, readme.status === 404 ? undefined : readme.body, contents.status === 404 ? undefined : contents.body);
  });
}

export const codehostSearch = defineCapability({
  id: "codehost.search",
  title: "Code host search",
  summary: "GitHub search over repositories, code, and issues and pull requests, with repository details.",
  description:
    "Searches GitHub (REST search API). `query` takes GitHub's search syntax (qualifiers such as " +
    "`language:`, `user:`, `repo:`, `is:pr`). `kind` picks repositories (default), `code` or `issues` " +
    "(issues and pull requests, told apart by each record's `kind`; GitHub searches the two separately, so a " +
    "query naming neither (`is:issue`, `is:pr`, `type:`) is two GitHub searches merged in the order asked, and a " +
    "query naming one is a single search). `sort` per kind: `stars`, `forks`, " +
    "`updated` for repositories; `created`, `updated`, `comments` for issues; none for code (best match); " +
    "without it GitHub orders by best match. `kind: code` needs a GitHub token configured in the deployment " +
    "(GITHUB_TOKEN), else it answers 503 capability_unavailable; repositories and issues work without one at " +
    "GitHub's unauthenticated rate (60 requests an hour, 10 searches a minute; a used-up limit is a retryable " +
    "provider_error saying when to retry). Page paging; GitHub serves at most the first 1,000 results of a " +
    "search (of each of two merged searches), so `has_more` turns false there even when its total is larger. " +
    "`details` (free, cached) gives " +
    "the record's repository (for issues and code, the repository they belong to): stats, license, topics, " +
    "the head of its README (up to 3,000 characters) and its top-level files.",
  topic: "research and reading",
  schema: codehostSearchSchema,
  recordKeys: Type.Object({
    kind: Type.Union([Type.Literal("repository"), Type.Literal("issue"), Type.Literal("pull_request"), Type.Literal("code")]),
    stars: Type.Optional(Type.Integer({ minimum: 0 })),
    forks: Type.Optional(Type.Integer({ minimum: 0 })),
    open_issues: Type.Optional(Type.Integer({ minimum: 0 })),
    language: Type.Optional(Type.String()),
    topics: Type.Optional(Type.Array(Type.String())),
    archived: Type.Optional(Type.Boolean()),
    license: Type.Optional(Type.String({ description: "SPDX id, else the license's name." })),
    created_at: Type.Optional(Type.String({ description: "Issues and pull requests: when opened." })),
    repo: Type.Optional(Type.String({ description: "owner/name of the repository (issues, pull requests, code)." })),
    number: Type.Optional(Type.Integer({ minimum: 1 })),
    state: Type.Optional(Type.String()),
    author: Type.Optional(Type.String()),
    comments: Type.Optional(Type.Integer({ minimum: 0 })),
    labels: Type.Optional(Type.Array(Type.String())),
    path: Type.Optional(Type.String({ description: "Code: the file's path in its repository." })),
    matches: Type.Optional(Type.Array(Type.String(), { description: "Code: matching fragments (up to 5)." })),
    updated_at: Type.Optional(Type.String()),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: 10 * MINUTE,
  cost: free("Free: GitHub's REST API has no per-call cost (unauthenticated: 60 requests an hour; with a token, 5,000)."),
  rules: [sortPerKind],
  variants: {
    field: "kind",
    options: {
      repositories: { sources: [github] },
      issues: { sources: [github] },
      code: { requiredKeys: ["GITHUB_TOKEN"], sources: [github] },
    },
  },
  update: { example: { title: "The same repositories, most recently updated first", params: { sort: "updated" } } },
  actions: {
    details: {
      description:
        "The record's repository (for issues and code, the one they belong to): stats, license, topics, README head and top-level files (free, cached).",
      mode: "fetched",
      needs: needsRepo,
      run: repositoryDetails,
    },
  },
  examples: [
    { title: "Repositories about PyGithub", body: { query: "pygithub" } },
    {
      title: "Issues and pull requests mentioning sesame in one repository",
      body: { query: "sesame repo:octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli", kind: "issues" },
    },
    { title: "Code by user jacquev6 containing toto (needs a GitHub token)", body: { query: "toto user:jacquev6", kind: "code", num: 30 } },
  ],
});
