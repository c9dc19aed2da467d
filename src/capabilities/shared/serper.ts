/**
 * The Serper family (google.serper.dev), shared by web.search (`POST /search`) and news.search
 * (`POST /news`): the request (a JSON body: `q`, `num`, `page`, `gl`, `hl`, `tbs`; the key in the
 * `X-API-KEY` header, added by the client), the page cursor and its next-page rule, and how an
 * answer is read.
 *
 * Errors, as Serper sends them (a JSON body with `message`):
 * - 401 and 403 (a missing or wrong key, no credits left): about this deployment's own Serper
 *   account. The caller is told only that Serper refused the deployment's account; Serper's words
 *   go to the log (the error's cause);
 * - 400 (a parameter Serper refused): `502 provider_error` carrying Serper's message;
 * - 429 and 5xx: the upstream client's (retried where allowed, then `provider_error`).
 */
import { ApiError } from "../../errors.ts";
import type { Source } from "../framework/sources.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonValue, SourcePage } from "../types.ts";
import { defined, type Obj, obj, str } from "./read.ts";

export const TIME_RANGES = ["day", "week", "month", "year"] as const;
export type TimeRange = (typeof TIME_RANGES)[number];

/** `time_range` → Google's `tbs` (past day, week, month, year). */
const TBS: Record<TimeRange, string> = { day: "qdr:d", week: "qdr:w", month: "qdr:m", year: "qdr:y" };

/**
 * Google serves about the first 100 results of a search; a next page is offered while the results
 * read so far stay under it.
 */
export const SERPER_RESULT_CAP = 100;

/** The request fields web.search and news.search share. */
export interface SerperQuery {
  query: string;
  num: number;
  country?: string;
  language?: string;
  time_range?: TimeRange;
}

/** `POST <endpoint>` with the query as Serper's JSON body, page `page` (1-based). */
export function serperRequest(endpoint: "/search" | "/news", query: SerperQuery, page: number): UpstreamRequest {
  return {
    provider: "serper",
    method: "POST",
    path: endpoint,
    body: defined({
      q: query.query,
      num: query.num,
      page,
      gl: query.country?.toLowerCase(),
      hl: query.language?.toLowerCase(),
      tbs: query.time_range === undefined ? undefined : TBS[query.time_range],
    }),
    // A search is billed once it runs: never retried blindly (POST), and 4xx bodies are read.
    acceptStatus: [400, 401, 403],
  };
}

/** The page a cursor names (`{page: n}`; null is page 1). */
export function serperPage(cursor: JsonValue): number {
  const page = obj(cursor)?.page;
  return typeof page === "number" && Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * The next page's cursor. Serper reports no total, and Google often lists a few results fewer than
 * asked on pages that are not the last (8 or 9 of 10: the recorded "apple inc" page has 8), so a page
 * holding at least half of `num` is taken to mean more may follow; one holding fewer, to be the last.
 * No page starts past Google's first `SERPER_RESULT_CAP` results.
 */
export function nextSerperPage(page: number, num: number, listed: number): JsonValue {
  return listed >= Math.ceil(num / 2) && page * num < SERPER_RESULT_CAP ? { page: page + 1 } : null;
}

/** Read a Serper answer: its root object, or a thrown provider_error (see the header). */
export function readSerper(status: number, body: unknown): Obj {
  const root = obj(body);
  const message = str(root?.message);
  if (status === 401 || status === 403) {
    throw new ApiError("provider_error", "Serper refused this deployment's account (its key or credits); nothing was charged.", {
      hint: "Retrying will not help until the operator fixes the deployment's Serper account; the cause is in its log.",
      cause: new Error(`Serper (HTTP ${status}): ${message ?? "no message"}`),
    });
  }
  if (status === 400) {
    throw new ApiError("provider_error", `Serper refused the search: ${message ?? "HTTP 400"}`, {
      hint: "Serper refused this request; nothing was charged. The same request is likely to be refused again: change it.",
    });
  }
  if (root === undefined) throw new ApiError("provider_error", `Serper answered HTTP ${status} with a non-object body.`);
  return root;
}

/** Credits Serper reports for an answer (`credits`), when it reports them. */
export function serperCredits(root: Obj): number | undefined {
  const c = root.credits;
  return typeof c === "number" && Number.isInteger(c) && c >= 0 ? c : undefined;
}

/**
 * The Serper source of a capability (web.search, news.search): the request for `endpoint` and the
 * page number of the cursor, mapped by `toPage(status, body, page, query, now)`. The key is required.
 */
export function serperSource<Q extends SerperQuery, S>(
  endpoint: "/search" | "/news",
  toPage: (status: number, body: unknown, page: number, query: Q, now: Date) => SourcePage,
): Source<Q, S> {
  return {
    id: "serper",
    title: "Serper",
    requiredKeys: ["SERPER_API_KEY"],
    async search(ctx, query, cursor) {
      const page = serperPage(cursor);
      const response = await ctx.upstream.send<unknown>(serperRequest(endpoint, query, page), ctx.signal);
      return toPage(response.status, response.body, page, query, ctx.now());
    },
  };
}
