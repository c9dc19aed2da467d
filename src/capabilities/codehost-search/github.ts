/**
 * GitHub REST search mappers for codehost.search: query → `GET /search/{repositories|code|issues}`,
 * a search answer → records (repositories, issues and pull requests, code), the 1,000-result cap,
 * and GitHub's refusals read from the answer (rate limit, query syntax). Pure functions, no I/O.
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import type { UpstreamRequest, UpstreamResponse } from "../../upstream/types.ts";
import type { JsonValue, RecordDraft, SourcePage } from "../types.ts";
import { arr, bool, clip, defined, int, type Obj, obj, str, strings } from "../shared/read.ts";
import type { CodehostSearchQuery } from "./capability.ts";

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

/** Statuses read from the answer instead of failing in the client: refusals GitHub explains. */
export const READ_STATUSES = [403, 422];

/** Page number from a cursor `{page: n}`; anything else is page 1. */
export function cursorPage(cursor: JsonValue): number {
  const page = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor.page : undefined;
  return typeof page === "number" && Number.isInteger(page) && page >= 1 ? page : 1;
}

/** `GET /search/{kind}?q=&sort=&order=desc&per_page=&page=`; code asks for text-match fragments. */
export function toSearchRequest(query: CodehostSearchQuery, page: number): UpstreamRequest {
  return {
    provider: "github",
    method: "GET",
    path: `/search/${query.kind}`,
    query: {
      q: query.query,
      sort: query.sort,
      order: query.sort === undefined ? undefined : "desc",
      per_page: query.num,
      page,
    },
    ...(query.kind === "code" ? { headers: { accept: "application/vnd.github.text-match+json" } } : {}),
    acceptStatus: READ_STATUSES,
  };
}

function header(response: UpstreamResponse, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * GitHub's refusals, read from a 403/429/422 answer: the rate limit (x-ratelimit-remaining 0, a
 * Retry-After, or GitHub's "rate limit" words) is a retryable provider error saying when to retry;
 * a 422 on a search is the caller's query (GitHub's words, at /query); any other 403 is GitHub
 * refusing the deployment's request.
 */
export function readGitHub(response: UpstreamResponse, now: Date, what = "search"): void {
  const { status } = response;
  if (status >= 200 && status < 300) return;
  const message = str(obj(response.body)?.message);
  if (status === 422 && what === "search") {
    const reasons = strings((arr(obj(response.body)?.errors) ?? []).map((e) => obj(e)?.message));
    throw invalidRequest(
      [{ path: "/query", message: `GitHub refused the search: ${reasons?.join(" ") ?? message ?? "Validation Failed"}` }],
      "GitHub could not run this search query.",
    );
  }
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

/** A search answer → records; the next page while GitHub has more and the 1,000-result cap allows. */
export function toSearchPage(body: unknown, kind: CodehostSearchQuery["kind"], page: number, perPage: number): SourcePage {
  const root = obj(body);
  const items = arr(root?.items);
  if (root === undefined || items === undefined) throw new ApiError("provider_error", "GitHub answered a search without an items list.");
  const records = items.slice(0, perPage).flatMap((value) => {
    const item = obj(value);
    const record = item === undefined ? undefined : kind === "repositories" ? repositoryRecord(item) : kind === "code" ? codeRecord(item) : issueRecord(item);
    return record === undefined ? [] : [record];
  });
  const reachable = Math.min(int(root.total_count) ?? 0, SEARCH_RESULT_CAP);
  const more = items.length > 0 && page * perPage < reachable;
  const notes: string[] = [];
  if (bool(root.incomplete_results) === true) notes.push("GitHub's search timed out before it finished: these results may be incomplete.");
  if ((int(root.total_count) ?? 0) > SEARCH_RESULT_CAP && !more) {
    notes.push(`GitHub reports ${int(root.total_count)} matches but serves at most the first ${SEARCH_RESULT_CAP} of a search.`);
  }
  return { records, next: more ? { page: page + 1 } : null, ...(notes.length > 0 ? { notes } : {}) };
}

/** `owner/repo` from an API URL `https://api.github.com/repos/owner/repo`. */
export function repoFromApiUrl(value: unknown): string | undefined {
  return /\/repos\/([^/]+\/[^/]+)$/.exec(str(value) ?? "")?.[1];
}

function snippet(text: string | undefined): string | undefined {
  return text === undefined ? undefined : clip(text, SNIPPET_MAX_CHARS);
}

function licenseName(value: unknown): string | undefined {
  const license = obj(value);
  const spdx = str(license?.spdx_id);
  return spdx !== undefined && spdx !== "NOASSERTION" ? spdx : str(license?.name);
}

export function repositoryRecord(item: Obj): RecordDraft | undefined {
  const repo = str(item.full_name);
  const url = str(item.html_url);
  if (repo === undefined || url === undefined) return undefined;
  const summary = defined({
    title: repo,
    url,
    snippet: snippet(str(item.description)),
    kind: "repository",
    stars: int(item.stargazers_count),
    forks: int(item.forks_count),
    open_issues: int(item.open_issues_count),
    language: str(item.language),
    topics: strings(item.topics),
    archived: bool(item.archived),
    license: licenseName(item.license),
    updated_at: str(item.updated_at),
  }) as RecordDraft["summary"];
  return { summary, ref: { repo } };
}

export function issueRecord(item: Obj): RecordDraft | undefined {
  const url = str(item.html_url);
  const repo = repoFromApiUrl(item.repository_url);
  if (url === undefined || repo === undefined) return undefined;
  const summary = defined({
    title: str(item.title) ?? `#${int(item.number) ?? "?"}`,
    url,
    snippet: snippet(str(item.body)),
    kind: obj(item.pull_request) === undefined ? "issue" : "pull_request",
    created_at: str(item.created_at),
    repo,
    number: int(item.number),
    state: str(item.state),
    author: str(obj(item.user)?.login),
    comments: int(item.comments),
    labels: strings((arr(item.labels) ?? []).map((l) => obj(l)?.name)),
    updated_at: str(item.updated_at),
  }) as RecordDraft["summary"];
  return { summary, ref: { repo } };
}

export function codeRecord(item: Obj): RecordDraft | undefined {
  const url = str(item.html_url);
  const repo = str(obj(item.repository)?.full_name);
  const path = str(item.path);
  if (url === undefined || repo === undefined || path === undefined) return undefined;
  const matches = strings((arr(item.text_matches) ?? []).map((m) => {
    const fragment = str(obj(m)?.fragment);
    // Code keeps its lines: cut, not re-flowed.
    return fragment === undefined || fragment.length <= SNIPPET_MAX_CHARS ? fragment : `${fragment.slice(0, SNIPPET_MAX_CHARS - 1)}…`;
  }), MAX_MATCHES);
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
