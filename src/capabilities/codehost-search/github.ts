/**
 * GitHub REST search mappers for codehost.search: query → `GET /search/{repositories|code|issues}`
 * with its declared answer (a search envelope of the kind's items), a search answer → records
 * (repositories, issues and pull requests, code), the 1,000-result cap, and GitHub's refusals:
 * its 422 bodies through the family's `refusal` hook, its rate limits (which need the answer's
 * headers) read after the send. Pure functions, no I/O.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { ApiError, invalidRequest } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest, UpstreamResponse } from "../../upstream/types.ts";
import type { RecordDraft, SourcePage } from "../types.ts";
import { clip, defined, obj, str, strings } from "../shared/read.ts";
import type { CodehostSearchQuery } from "./schema.ts";

/** GitHub's search returns at most this many results per search, whatever its `total_count`. */
export const SEARCH_RESULT_CAP = 1_000;
/** Snippet length (descriptions, issue bodies, code fragments). */
export const SNIPPET_MAX_CHARS = 300;
/** Code fragments kept per code record. */
const MAX_MATCHES = 5;

/** The sorts each kind accepts (spec 4.6); code takes none (GitHub sorts code by best match only). */
export const SORTS: Readonly<Record<CodehostSearchQuery["kind"], readonly string[]>> = {
  repositories: ["stars", "forks", "updated"],
  issues: ["created", "updated", "comments"],
  code: [],
};

/** Statuses read from the answer instead of failing in the client: 403 (rate limits, read with the headers), 422 (the refusal hook). */
export const READ_STATUSES = [403, 422];

const license = nullish(Type.Object({ spdx_id: nullish(Type.String()), name: nullish(Type.String()) }));

/** A repository as a search item (the repository object plus `score`); old answers lack topics, license and archived. */
export const githubRepositoryItem = Type.Object({
  full_name: Type.String(),
  html_url: Type.String(),
  description: nullish(Type.String()),
  stargazers_count: Type.Optional(Type.Integer()),
  forks_count: Type.Optional(Type.Integer()),
  open_issues_count: Type.Optional(Type.Integer()),
  language: nullish(Type.String()),
  topics: Type.Optional(Type.Array(Type.String())),
  archived: Type.Optional(Type.Boolean()),
  license,
  updated_at: nullish(Type.String()),
});

/**
 * An issue or pull request as a search item: a pull request carries a `pull_request` block. `score`
 * (best match), `created_at`, `updated_at` and `comments` also order the merged issues-and-pulls
 * streams (github-issues.ts).
 */
export const githubIssueItem = Type.Object({
  html_url: Type.String(),
  repository_url: Type.String(),
  title: Type.String(),
  number: Type.Integer(),
  body: nullish(Type.String()),
  pull_request: Type.Optional(Type.Object({})),
  created_at: nullish(Type.String()),
  updated_at: nullish(Type.String()),
  state: nullish(Type.String()),
  user: nullish(Type.Object({ login: nullish(Type.String()) })),
  comments: Type.Optional(Type.Integer()),
  labels: Type.Optional(Type.Array(Type.Object({ name: nullish(Type.String()) }))),
  score: Type.Optional(Type.Number()),
});

/** A file as a code search item; `text_matches` only with the text-match media type. */
export const githubCodeItem = Type.Object({
  html_url: Type.String(),
  path: Type.String(),
  repository: Type.Object({ full_name: Type.String() }),
  text_matches: Type.Optional(Type.Array(Type.Object({ fragment: nullish(Type.String()) }))),
});

/** GitHub's search envelope around items of one kind. Old answers have no `incomplete_results`. */
const searchOf = <T extends TSchema>(item: T) =>
  Type.Object({ total_count: Type.Integer(), incomplete_results: Type.Optional(Type.Boolean()), items: Type.Array(item) });

export const githubRepositorySearch = searchOf(githubRepositoryItem);
export const githubIssueSearch = searchOf(githubIssueItem);
export const githubCodeSearch = searchOf(githubCodeItem);

export type GitHubRepositoryItem = Static<typeof githubRepositoryItem>;
export type GitHubIssueItem = Static<typeof githubIssueItem>;
export type GitHubCodeItem = Static<typeof githubCodeItem>;
export type GitHubIssueSearch = Static<typeof githubIssueSearch>;

const SEARCH_SCHEMAS = { repositories: githubRepositorySearch, issues: githubIssueSearch, code: githubCodeSearch } as const;
type SearchSchemas = typeof SEARCH_SCHEMAS;
export type SearchBody<K extends CodehostSearchQuery["kind"]> = Static<SearchSchemas[K]>;
/** A search answer of any kind, as the page mapper reads it. */
export type AnySearchBody = SearchBody<"repositories"> | SearchBody<"issues"> | SearchBody<"code">;

/** GitHub's words for a page that starts past the first 1,000 results (a 422). */
const PAST_THE_CAP = /first 1000 search results/i;

/**
 * GitHub's own refusals of a search (family hook, any status): a 422 saying the page lies past the
 * first 1,000 results is "no results" (the mapper reads an empty last page); any other 422 is the
 * caller's query, `400 invalid_request` at `/query` with GitHub's words. Rate limits are not read
 * here: GitHub says when to retry in the answer's headers, which the hook does not see (`readGitHub`).
 */
export function githubSearchRefusal(body: unknown, status: number): ApiError | "no_results" | undefined {
  if (status !== 422) return undefined;
  const root = obj(body);
  const message = str(root?.message);
  if (message !== undefined && PAST_THE_CAP.test(message)) return "no_results";
  const reasons = strings((Array.isArray(root?.errors) ? root.errors : []).map((e) => obj(e)?.message));
  return invalidRequest(
    [{ path: "/query", message: `GitHub refused the search: ${reasons?.join(" ") ?? message ?? "Validation Failed"}` }],
    "GitHub could not run this search query.",
  );
}

/**
 * `GET /search/{kind}?q=&sort=&order=desc&per_page=&page=`; code asks for text-match fragments.
 * `q` is the search's words as sent (issues add their kind qualifier: github-issues.ts).
 */
export function searchRequest<K extends CodehostSearchQuery["kind"]>(
  kind: K,
  q: string,
  sort: string | undefined,
  perPage: number,
  page: number,
): JsonRequest<SearchSchemas[K]> {
  return {
    provider: "github",
    method: "GET",
    path: `/search/${kind}`,
    query: { q, sort, order: sort === undefined ? undefined : "desc", per_page: perPage, page },
    ...(kind === "code" ? { headers: { accept: "application/vnd.github.text-match+json" } } : {}),
    acceptStatus: READ_STATUSES,
    refusal: githubSearchRefusal,
    response: SEARCH_SCHEMAS[kind],
  };
}

/** The search request of a query's page, its words as given (repositories, code, and issues whose query names its kind). */
export function toSearchRequest(query: CodehostSearchQuery, page: number, q = query.query) {
  return searchRequest(query.kind, q, query.sort, query.num, page);
}

function header(response: UpstreamResponse<unknown>, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function int(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

/**
 * GitHub's refusals that need the answer's headers, read from a 403 or 429 answer: the rate limit
 * (x-ratelimit-remaining 0, a Retry-After, or GitHub's "rate limit" words) is a retryable provider
 * error saying when to retry; any other 403 is GitHub refusing the deployment's request. 2xx answers
 * and a search's 422 past the cap (read by `pastTheCap`) pass.
 */
export function readGitHub(response: UpstreamResponse<unknown>, now: Date): void {
  const { status } = response;
  if ((status >= 200 && status < 300) || status === 422) return;
  const message = str(obj(response.body)?.message);
  const remaining = header(response, "x-ratelimit-remaining");
  const resetEpoch = int(header(response, "x-ratelimit-reset"));
  const retryAfter = int(header(response, "retry-after"));
  if ((status === 403 || status === 429) && (remaining === "0" || retryAfter !== undefined || /rate limit/i.test(message ?? ""))) {
    const waitSeconds = retryAfter ?? (resetEpoch === undefined ? undefined : Math.max(1, resetEpoch - Math.floor(now.getTime() / 1000)));
    const resetAt = resetEpoch === undefined ? undefined : new Date(resetEpoch * 1000).toISOString();
    throw new ApiError("provider_error", "GitHub's rate limit for this deployment is used up; nothing was charged.", {
      hint:
        `${resetAt === undefined ? (waitSeconds === undefined ? "Retry in a minute" : `Retry in ${waitSeconds} s`) : `Retry after ${resetAt}`}. ` +
        "Without GITHUB_TOKEN GitHub allows 60 requests an hour (search: 10 a minute); with a token, 5,000 an hour (search: 30 a minute).",
      ...(waitSeconds === undefined ? {} : { retryAfter: waitSeconds }),
    });
  }
  throw new ApiError("provider_error", `GitHub answered HTTP ${status}${message === undefined ? "" : `: ${message}`}.`, {
    hint: "GitHub refused this request; nothing was charged. The same request is likely to be refused again.",
  });
}

/** Whether a search answer is GitHub's 422 for a page past the first 1,000 results (the refusal hook let it through). */
export function pastTheCap(response: UpstreamResponse<unknown>): boolean {
  return response.status === 422;
}

/**
 * The next page of a search, if GitHub serves one: the results so far stay below GitHub's total and
 * its 1,000-result cap. `/search/code` refuses a page that would reach past 1,000 results
 * (`page × per_page > 1000`), the other searches one that starts past it: a code search stops at the
 * last full page inside the cap.
 */
export function hasNextPage(kind: CodehostSearchQuery["kind"], total: number, page: number, perPage: number): boolean {
  const reachable = Math.min(total, SEARCH_RESULT_CAP);
  if (page * perPage >= reachable) return false;
  return kind !== "code" || (page + 1) * perPage <= SEARCH_RESULT_CAP;
}

/** A search answer → records; the next page while GitHub has more and the 1,000-result cap allows. */
export function toSearchPage(body: AnySearchBody, kind: CodehostSearchQuery["kind"], page: number, perPage: number): SourcePage {
  // A page starting before the cap is served whole (991-1020 at 30 a page): the cap is kept here.
  const room = Math.max(0, Math.min(perPage, SEARCH_RESULT_CAP - (page - 1) * perPage));
  const items = body.items.slice(0, room) as unknown[];
  const records = items.flatMap((item) => {
    const record =
      kind === "repositories"
        ? repositoryRecord(item as GitHubRepositoryItem)
        : kind === "code"
          ? codeRecord(item as GitHubCodeItem)
          : issueRecord(item as GitHubIssueItem);
    return record === undefined ? [] : [record];
  });
  const more = body.items.length > 0 && hasNextPage(kind, body.total_count, page, perPage);
  const notes: string[] = [];
  if (body.incomplete_results === true) notes.push(INCOMPLETE_NOTE);
  if (body.total_count > SEARCH_RESULT_CAP && !more) notes.push(capNote(body.total_count));
  return { records, next: more ? { page: page + 1 } : null, ...(notes.length > 0 ? { notes } : {}) };
}

export const INCOMPLETE_NOTE = "GitHub's search timed out before it finished: these results may be incomplete.";

export function capNote(total: number, what = "matches"): string {
  return `GitHub reports ${total} ${what} but serves at most the first ${SEARCH_RESULT_CAP} of a search.`;
}

/** The last page of a search when GitHub answered that it lies past the cap: nothing more. */
export function pastTheCapPage(): SourcePage {
  return { records: [], next: null, notes: [`GitHub serves at most the first ${SEARCH_RESULT_CAP} results of a search; there are no more.`] };
}

/** `owner/repo` from an API URL `https://api.github.com/repos/owner/repo`. */
export function repoFromApiUrl(value: unknown): string | undefined {
  return /\/repos\/([^/]+\/[^/]+)$/.exec(str(value) ?? "")?.[1];
}

function snippet(text: string | null | undefined): string | undefined {
  const t = str(text);
  return t === undefined ? undefined : clip(t, SNIPPET_MAX_CHARS);
}

function licenseName(value: GitHubRepositoryItem["license"]): string | undefined {
  const spdx = str(value?.spdx_id);
  return spdx !== undefined && spdx !== "NOASSERTION" ? spdx : str(value?.name);
}

const count = (value: number | undefined) => (value !== undefined && value >= 0 ? value : undefined);

export function repositoryRecord(item: GitHubRepositoryItem): RecordDraft | undefined {
  const repo = str(item.full_name);
  const url = str(item.html_url);
  if (repo === undefined || url === undefined) return undefined;
  const summary = defined({
    title: repo,
    url,
    snippet: snippet(item.description),
    kind: "repository",
    stars: count(item.stargazers_count),
    forks: count(item.forks_count),
    open_issues: count(item.open_issues_count),
    language: str(item.language),
    topics: strings(item.topics),
    archived: item.archived,
    license: licenseName(item.license),
    updated_at: str(item.updated_at),
  }) as RecordDraft["summary"];
  return { summary, ref: { repo } };
}

export function issueRecord(item: GitHubIssueItem): RecordDraft | undefined {
  const url = str(item.html_url);
  const repo = repoFromApiUrl(item.repository_url);
  if (url === undefined || repo === undefined) return undefined;
  const summary = defined({
    title: str(item.title) ?? `#${item.number}`,
    url,
    snippet: snippet(item.body),
    kind: item.pull_request === undefined ? "issue" : "pull_request",
    created_at: str(item.created_at),
    repo,
    number: item.number >= 1 ? item.number : undefined,
    state: str(item.state),
    author: str(item.user?.login),
    comments: count(item.comments),
    labels: strings((item.labels ?? []).map((l) => l.name)),
    updated_at: str(item.updated_at),
  }) as RecordDraft["summary"];
  return { summary, ref: { repo } };
}

export function codeRecord(item: GitHubCodeItem): RecordDraft | undefined {
  const url = str(item.html_url);
  const repo = str(item.repository.full_name);
  const path = str(item.path);
  if (url === undefined || repo === undefined || path === undefined) return undefined;
  const matches = strings(
    (item.text_matches ?? []).map((m) => {
      const fragment = str(m.fragment);
      // Code keeps its lines: cut, not re-flowed.
      return fragment === undefined || fragment.length <= SNIPPET_MAX_CHARS ? fragment : `${fragment.slice(0, SNIPPET_MAX_CHARS - 1)}…`;
    }),
    MAX_MATCHES,
  );
  const summary = defined({
    title: `${repo}: ${path}`,
    url,
    snippet: matches?.[0] === undefined ? undefined : clip(matches[0], SNIPPET_MAX_CHARS),
    kind: "code",
    repo,
    path,
    matches,
  }) as RecordDraft["summary"];
  return { summary, ref: { repo } };
}

/**
 * The live check's probe: a one-result issue search in GitHub's own example repository, with the
 * kind qualifier GitHub now requires, so it sees both a changed search answer and a refused query.
 */
export const githubProbe: ProviderProbe = {
  provider: "github",
  what: "a one-result issue search (is:issue, in one repository)",
  request: searchRequest("issues", "sesame repo:octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli is:issue", undefined, 1, 1),
};
