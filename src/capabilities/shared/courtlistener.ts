/**
 * CourtListener REST v4 (Free Law Project), as legal.search (`us`) and legal.read (`case_index`)
 * call it: request builders and the reading of its answers, pure. The key goes in
 * `Authorization: Token <key>` (the provider table); every request names a real v4 path:
 * `GET /api/rest/v4/search/?type=o` (case law, opinion clusters with nested opinions; cursor paging
 * through `next`), `GET /api/rest/v4/clusters/{id}/` and `GET /api/rest/v4/opinions/{id}/`.
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { obj, str } from "./read.ts";

export const COURTLISTENER = "courtlistener";
export const SEARCH_PATH = "/api/rest/v4/search/";

export interface CaseLawSearch {
  q: string;
  /** Space-separated court ids (the site's own `court` parameter). */
  court?: string;
  /** YYYY-MM-DD, inclusive. */
  filedAfter?: string;
  filedBefore?: string;
  /** The `cursor` of a `next` URL. */
  cursor?: string;
}

/**
 * Case-law search: the site's search parameters (spec: "this API uses the same GET parameters as
 * the front end"), best match first. A 400 is CourtListener refusing the query (its syntax): an
 * answer the mapper reads, not a fault.
 */
export function caseLawSearchRequest(s: CaseLawSearch): UpstreamRequest {
  return {
    provider: COURTLISTENER,
    method: "GET",
    path: SEARCH_PATH,
    query: { type: "o", q: s.q, order_by: "score desc", court: s.court, filed_after: s.filedAfter, filed_before: s.filedBefore, cursor: s.cursor },
    acceptStatus: [400],
  };
}

/** One opinion cluster (a decision: case name, court, dates, citations, its opinions' URLs). */
export function clusterRequest(id: string): UpstreamRequest {
  return { provider: COURTLISTENER, method: "GET", path: `/api/rest/v4/clusters/${encodeURIComponent(id)}/`, acceptStatus: [404] };
}

/** One opinion (its text: `plain_text`, or one of the HTML renderings). */
export function opinionRequest(id: string): UpstreamRequest {
  return { provider: COURTLISTENER, method: "GET", path: `/api/rest/v4/opinions/${encodeURIComponent(id)}/`, acceptStatus: [404] };
}

/** The `cursor` of a v4 `next` URL, or null when there is no next page. */
export function cursorOf(next: unknown): string | null {
  const url = str(next);
  if (url === undefined) return null;
  try {
    return new URL(url).searchParams.get("cursor");
  } catch {
    return null;
  }
}

/** The id at the end of a v4 resource URL (`…/opinions/10842813/` → `10842813`). */
export function idOfResource(url: unknown): string | undefined {
  const m = str(url)?.match(/\/([0-9]{1,25})\/?$/);
  return m?.[1];
}

/** CourtListener's own words for a refusal (`{"detail": …}`), when it gives them. */
export function detailOf(body: unknown): string | undefined {
  const o = obj(body);
  return str(o?.detail) ?? (typeof body === "string" ? str(body.slice(0, 300)) : undefined);
}

/** The search refused the query (400): the caller's `query`, at its pointer, in CourtListener's words. */
export function refusedQuery(body: unknown, at: string): ApiError {
  const why = detailOf(body) ?? "CourtListener refused the query";
  return invalidRequest([{ path: at, message: `CourtListener refused this query: ${why}` }]);
}

/** A body that is not the JSON object the endpoint answers. */
export function unexpected(what: string): ApiError {
  return new ApiError("provider_error", `CourtListener answered ${what} without the expected JSON object.`, {
    hint: "The provider answered in an unexpected shape; nothing was charged. Retry later.",
  });
}
