/**
 * The SerpApi family (serpapi.com/search.json?engine=…), shared by every capability on a SerpApi
 * engine: the request, the cost, how an answer is read (its error shapes, `search_metadata`
 * status, "no results" as an empty result rather than an error) and its pagination forms.
 *
 * Every SerpApi request declares the schema of its engine's answer (the fields its mapper reads) and
 * carries `serpApiRefusal`, which the upstream client runs before that schema: SerpApi's own error
 * answers never reach the shape check, and its "no results" answer is passed on unchecked.
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
import type { TSchema } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { JsonRequest } from "../../upstream/types.ts";
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
 * `GET /search.json?engine=<engine>&…`, its answer checked against `response` (the engine's fields its
 * mapper reads) after `serpApiRefusal`; the client adds `api_key`.
 */
export function serpApiRequest<S extends TSchema>(engine: string, params: SerpParams, response: S): JsonRequest<S> {
  return { provider: "serpapi", method: "GET", path: "/search.json", query: { engine, ...params }, refusal: serpApiRefusal, response };
}

const ACCOUNT_ERROR = /api[ _-]?key|run out|your (?:account|plan|searches)|upgrade your plan|account (?:has been|is) /i;
const NO_RESULTS = /hasn'?t returned any results|no results/i;

/**
 * SerpApi's own answers that are not results (see the header): its account refusals and other
 * `error`s as provider errors, "no results" (HTTP 200) passed on, a search SerpApi marks failed.
 */
export function serpApiRefusal(body: unknown, status: number): ApiError | "no_results" | undefined {
  const root = obj(body);
  const error = str(root?.error);
  const ok = status >= 200 && status < 300;
  if (status === 401 || status === 403 || (error !== undefined && ACCOUNT_ERROR.test(error))) {
    return new ApiError("provider_error", "SerpApi refused this deployment's account (its key or plan); nothing was charged.", {
      retryable: false,
      hint: "Retrying will not help until the operator fixes the deployment's SerpApi account; the cause is in its log.",
      cause: new Error(`SerpApi (HTTP ${status}): ${error ?? "no error text"}`),
    });
  }
  if (error !== undefined) {
    if (ok && NO_RESULTS.test(error)) return "no_results";
    return new ApiError("provider_error", `SerpApi reported: ${error}`, {
      retryable: false,
      hint: "SerpApi refused this request; nothing was charged. The same request is likely to be refused again: change it.",
    });
  }
  if (ok && str(obj(root?.search_metadata)?.status) === "Error") return new ApiError("provider_error", "SerpApi reported the search as failed.");
  return undefined;
}

/** An answer read: its root object, or `noResults` when SerpApi found nothing (billed, not an error). */
export interface SerpAnswer {
  root: Obj;
  noResults: boolean;
}

/**
 * A SerpApi answer the client passed (refusals are thrown before it): its root, and whether it is
 * SerpApi's "no results" answer.
 */
export function readSerpApi(body: unknown): SerpAnswer {
  const root = obj(body) ?? {};
  return { root, noResults: str(root.error) !== undefined };
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


/** What every SerpApi source declares: its id (stored in cursors), title and provider (whose key it needs); add `search`. */
export function serpApiSourceOf(engineTitle: string): { id: "serpapi"; title: string; providers: readonly ["serpapi"] } {
  return { id: "serpapi", title: `SerpApi (${engineTitle})`, providers: ["serpapi"] };
}
