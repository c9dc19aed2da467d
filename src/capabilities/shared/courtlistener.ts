/**
 * CourtListener REST v4 (Free Law Project), as legal.search (`us`) and legal.read (`case_index`)
 * call it: request builders, the declared shapes of its answers (the fields the mappers read), its
 * error bodies and its probe, pure. The key goes in `Authorization: Token <key>` (the provider
 * table); every request names a real v4 path: `GET /api/rest/v4/search/?type=o` (case law, opinion
 * clusters with nested opinions; cursor paging through `next`), `GET /api/rest/v4/clusters/{id}/`
 * and `GET /api/rest/v4/opinions/{id}/`.
 */
import { type Static, Type } from "@sinclair/typebox";
import { type ApiError, invalidRequest } from "../../errors.ts";
import { UpstreamError } from "../../upstream/faults.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { obj, str } from "./read.ts";

export const COURTLISTENER = "courtlistener";
export const SEARCH_PATH = "/api/rest/v4/search/";

/**
 * One cluster of a case-law search (`type=o`): its id is required (a record without it cannot be
 * read); every other field may be null or, for older clusters, absent.
 */
export const searchCluster = Type.Object({
  cluster_id: Type.Integer(),
  caseName: nullish(Type.String()),
  caseNameFull: nullish(Type.String()),
  absolute_url: nullish(Type.String()),
  court: nullish(Type.String()),
  court_id: nullish(Type.String()),
  court_citation_string: nullish(Type.String()),
  citation: nullish(Type.Array(Type.String())),
  dateFiled: nullish(Type.String()),
  dateArgued: nullish(Type.String()),
  docketNumber: nullish(Type.String()),
  judge: nullish(Type.String()),
  status: nullish(Type.String()),
  citeCount: nullish(Type.Number()),
  opinions: nullish(Type.Array(Type.Object({ id: nullish(Type.Integer()) }))),
});
export type SearchCluster = Static<typeof searchCluster>;

/** A case-law search page: the clusters, the total and the next page's URL (its `cursor`). */
export const caseLawSearchPage = Type.Object({
  count: nullish(Type.Number()),
  next: nullish(Type.String()),
  results: Type.Array(searchCluster),
});
export type CaseLawSearchPage = Static<typeof caseLawSearchPage>;

/** One opinion cluster: its opinions' URLs (required: the decision is read through them), names and page. */
export const cluster = Type.Object({
  sub_opinions: Type.Array(Type.String()),
  case_name: nullish(Type.String()),
  case_name_full: nullish(Type.String()),
  absolute_url: nullish(Type.String()),
  syllabus: nullish(Type.String()),
});
export type Cluster = Static<typeof cluster>;

/**
 * One opinion: its type and author, its `plain_text` (always sent, "" when CourtListener has none)
 * and its HTML renderings (CourtListener's case-law documentation, best first).
 */
export const opinion = Type.Object({
  type: nullish(Type.String()),
  author_str: nullish(Type.String()),
  plain_text: Type.String(),
  html_with_citations: nullish(Type.String()),
  html_columbia: nullish(Type.String()),
  html_lawbox: nullish(Type.String()),
  xml_harvard: nullish(Type.String()),
  html_anon_2020: nullish(Type.String()),
  html: nullish(Type.String()),
});
export type Opinion = Static<typeof opinion>;

/** CourtListener's own words for a refusal (`{"detail": …}`, Django REST framework), when it gives them. */
export function detailOf(body: unknown): string | undefined {
  const o = obj(body);
  return str(o?.detail) ?? (typeof body === "string" ? str(body.slice(0, 300)) : undefined);
}

/**
 * CourtListener's refusals of this deployment (the family's `refusal`): a 401 or 403 with its
 * `{detail}` ("Invalid token.", "Authentication credentials were not provided.") is the key's
 * fault, said in CourtListener's words. Statuses the requests read themselves (a search's 400, an
 * unknown id's 404) are left to their mappers.
 */
export function courtListenerRefusal(body: unknown, status: number): ApiError | undefined {
  if (status !== 401 && status !== 403) return undefined;
  const detail = detailOf(body)?.replace(/\.+$/, "");
  return new UpstreamError("provider_error", `CourtListener refused this deployment's key (HTTP ${status})${detail === undefined ? "" : `: ${detail}`}.`, "key_refused", COURTLISTENER, {
    retryable: false,
    hint: "COURTLISTENER_API_KEY is missing, wrong or revoked; nothing was charged. Changing the request will not help; the operator has to.",
  });
}

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
export function caseLawSearchRequest(s: CaseLawSearch): JsonRequest<typeof caseLawSearchPage> {
  return {
    provider: COURTLISTENER,
    method: "GET",
    path: SEARCH_PATH,
    query: { type: "o", q: s.q, order_by: "score desc", court: s.court, filed_after: s.filedAfter, filed_before: s.filedBefore, cursor: s.cursor },
    acceptStatus: [400],
    response: caseLawSearchPage,
    refusal: courtListenerRefusal,
  };
}

/** One opinion cluster (a decision: case name, court, dates, citations, its opinions' URLs). */
export function clusterRequest(id: string): JsonRequest<typeof cluster> {
  return { provider: COURTLISTENER, method: "GET", path: `/api/rest/v4/clusters/${encodeURIComponent(id)}/`, acceptStatus: [404], response: cluster, refusal: courtListenerRefusal };
}

/** One opinion (its text: `plain_text`, or one of the HTML renderings). */
export function opinionRequest(id: string): JsonRequest<typeof opinion> {
  return { provider: COURTLISTENER, method: "GET", path: `/api/rest/v4/opinions/${encodeURIComponent(id)}/`, acceptStatus: [404], response: opinion, refusal: courtListenerRefusal };
}

/** The live check: one cluster by id (Noem v. Abrego Garcia, the capability's example), read with the adapter's schema. */
export const courtListenerProbe: ProviderProbe = {
  provider: COURTLISTENER,
  what: "one opinion cluster by id",
  request: clusterRequest("10376225"),
};

/** The `cursor` of a v4 `next` URL, or null when there is no next page. */
export function cursorOf(next: string | null | undefined): string | null {
  const url = str(next);
  if (url === undefined) return null;
  try {
    return new URL(url).searchParams.get("cursor");
  } catch {
    return null;
  }
}

/** The id at the end of a v4 resource URL (`…/opinions/10842813/` → `10842813`). */
export function idOfResource(url: string): string | undefined {
  return url.match(/\/([0-9]{1,25})\/?$/)?.[1];
}

/** The search refused the query (400): the caller's `query`, at its pointer, in CourtListener's words. */
export function refusedQuery(body: unknown, at: string): ApiError {
  const why = detailOf(body) ?? "CourtListener refused the query";
  return invalidRequest([{ path: at, message: `CourtListener refused this query: ${why}` }]);
}
