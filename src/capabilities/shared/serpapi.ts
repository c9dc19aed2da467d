/**
 * The SerpApi family (serpapi.com/search.json?engine=…), shared by every capability on a SerpApi
 * engine: the request, the cost, how an answer is read (its error shapes, `search_metadata`
 * status, "no results" as an empty result rather than an error) and its pagination forms.
 *
 * Errors, as SerpApi sends them:
 * - about this deployment's own SerpApi account (its key, plan or searches left): HTTP 401 (key),
 *   403 (account), or an `error` text saying so in a body of another status. The caller is told only
 *   that SerpApi refused the deployment's account; SerpApi's words go to the log (the error's
 *   cause), since the operator's quota and key state are not the caller's to read;
 * - "hasn't returned any results" (HTTP 200): zero records, billed (SerpApi bills it);
 * - any other `error`: 502 provider_error carrying SerpApi's words (a parameter it refused);
 * - 429 (hourly throughput or searches used up): retried by the upstream client, then reported as
 *   the provider's rate limit, without SerpApi's text.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { CostDecl } from "../framework/costs.ts";
import type { JsonValue } from "../types.ts";
import { arr, int, type Obj, obj, str } from "./read.ts";

/** What SerpApi bills a search or a fetched detail: $0.004 (4 credits). */
export const SERPAPI_SEARCH_USD = 0.004;

/** The cost of a capability billed per SerpApi search; `more` and `update` are billed the same. */
export function serpApiSearchCost<Q>(basis: string): CostDecl<Q> {
  return { perCall: SERPAPI_SEARCH_USD, basis };
}

/** The billed action cost of a SerpApi detail fetch. */
export const SERPAPI_DETAIL_COST = { perCall: SERPAPI_SEARCH_USD } as const;

export type SerpParams = Record<string, string | number | boolean | undefined>;

/**
 * `GET /search.json?engine=<engine>&…`. 400 is read (SerpApi's own `error` words reach the caller),
 * 401 and 403 too (SerpApi's words reach the log); the client adds `api_key`.
 */
export function serpApiRequest(engine: string, params: SerpParams): UpstreamRequest {
  return { provider: "serpapi", method: "GET", path: "/search.json", query: { engine, ...params }, acceptStatus: [400, 401, 403] };
}

const ACCOUNT_ERROR = /api[ _-]?key|run out|your (?:account|plan|searches)|upgrade your plan|account (?:has been|is) /i;
const NO_RESULTS = /hasn'?t returned any results|no results/i;

/** An answer read: its root object, or `noResults` when SerpApi found nothing (billed, not an error). */
export interface SerpAnswer {
  root: Obj;
  noResults: boolean;
}

/** Read a SerpApi answer; throws provider_error for failures (see the header). */
export function readSerpApi(status: number, body: unknown): SerpAnswer {
  const root = obj(body);
  if (root === undefined) throw new ApiError("provider_error", `SerpApi answered HTTP ${status} with a non-object body.`);
  const error = str(root.error);
  const ok = status >= 200 && status < 300;
  if (status === 401 || status === 403 || (error !== undefined && ACCOUNT_ERROR.test(error))) {
    throw new ApiError("provider_error", "SerpApi refused this deployment's account (its key or plan); nothing was charged.", {
      retryable: false,
      hint: "Retrying will not help until the operator fixes the deployment's SerpApi account; the cause is in its log.",
      cause: new Error(`SerpApi (HTTP ${status}): ${error ?? "no error text"}`),
    });
  }
  if (error !== undefined) {
    if (ok && NO_RESULTS.test(error)) return { root, noResults: true };
    throw new ApiError("provider_error", `SerpApi reported: ${error}`, {
      retryable: false,
      hint: "SerpApi refused this request; nothing was charged. The same request is likely to be refused again: change it.",
    });
  }
  if (!ok) throw new ApiError("provider_error", `SerpApi answered HTTP ${status}.`);
  if (str(obj(root.search_metadata)?.status) === "Error") throw new ApiError("provider_error", "SerpApi reported the search as failed.");
  return { root, noResults: false };
}

/** search_metadata.created_at ("2022-12-24 12:13:15 UTC") as ISO 8601. */
export function serpTime(value: unknown): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/.exec(str(value) ?? "");
  return m === null ? undefined : `${m[1]}T${m[2]}Z`;
}

/** When SerpApi made the search (ISO 8601), for `fetched_at`. */
export function fetchedAt(root: Obj, now: Date): string {
  return serpTime(obj(root.search_metadata)?.created_at) ?? now.toISOString();
}

// --- pagination forms ------------------------------------------------------------------------------

/** `serpapi_pagination.next_page_token` or a top-level `next_page_token` (hotels, jobs, maps). */
export function nextPageToken(root: Obj): string | undefined {
  return str(obj(root.serpapi_pagination)?.next_page_token) ?? str(root.next_page_token);
}

/**
 * The `start` of the next page from `serpapi_pagination.next` (a URL with `start=`), for engines
 * paged by `start`; undefined when there is no next page.
 */
export function nextStart(root: Obj): number | undefined {
  const next = str(obj(root.serpapi_pagination)?.next) ?? str(obj(root.pagination)?.next);
  if (next === undefined) return undefined;
  try {
    return int(new URL(next).searchParams.get("start") ?? undefined);
  } catch {
    return undefined;
  }
}

/** A `{token}` or `{start}` cursor's value, for building the next request. */
export function cursorField(cursor: JsonValue, field: "token" | "start" | "page"): string | number | undefined {
  const c = obj(cursor);
  const v = c?.[field];
  return typeof v === "string" || typeof v === "number" ? v : undefined;
}

/** An array of objects under `key`, the others dropped. */
export function objects(root: Obj, key: string): Obj[] {
  return (arr(root[key]) ?? []).map(obj).filter((o): o is Obj => o !== undefined);
}

/**
 * The query parameters of `serpapi_pagination.next` (a SerpApi URL: `start`, `ll`, `next_page_token`…),
 * for engines whose next page needs more than one value from it; undefined when there is no next page.
 */
export function nextPageParams(root: Obj): URLSearchParams | undefined {
  const next = str(obj(root.serpapi_pagination)?.next);
  if (next === undefined) return undefined;
  try {
    return new URL(next).searchParams;
  } catch {
    return undefined;
  }
}

/** `search_parameters`: SerpApi's echo of the request it ran (what it applied), when the body has one. */
export function echoedParameters(root: Obj): Obj | undefined {
  return obj(root.search_parameters);
}

/** What every SerpApi source declares: its id (stored in cursors), title and required key; add `search`. */
export function serpApiSourceOf(engineTitle: string): { id: "serpapi"; title: string; requiredKeys: readonly string[] } {
  return { id: "serpapi", title: `SerpApi (${engineTitle})`, requiredKeys: ["SERPAPI_API_KEY"] };
}
