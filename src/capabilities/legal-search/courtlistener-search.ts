/**
 * legal.search `us`: CourtListener case-law search (opinion clusters) → records, pure.
 *
 * CourtListener answers 20 clusters a page and pages with a cursor (`next`); a legal.search page is
 * `num` of them, cut by the framework's slice codec (framework/cursors.ts): the stored cursor is
 * `{page, skip}`, CourtListener's cursor to ask for (null: the first page) and how many of its
 * clusters earlier pages already gave. `more` asks for that page again (a search, billed as one) and
 * takes the next `num`.
 * Records carry no `snippet` (spec 4.6): the words of a decision are read through legal.read, whose
 * exact request each record carries as `full_text`.
 */
import { type CaseLawSearch, type CaseLawSearchPage, caseLawSearchRequest, cursorOf, refusedQuery, type SearchCluster } from "../shared/courtlistener.ts";
import { caseIndexRead, courtListenerPage, identifierOf } from "../shared/legal.ts";
import { defined, int, str, strings } from "../shared/read.ts";
import { type SliceCursor, slicePage } from "../framework/cursors.ts";
import type { RecordDraft, SourcePage } from "../types.ts";
import { courtParam } from "./courts.ts";

export interface UsSearch {
  jurisdiction: "us";
  query: string;
  courts: "all" | "federal" | "state";
  from_year?: number;
  to_year?: number;
}

export function toUsRequest(search: UsSearch, at: SliceCursor) {
  const s: CaseLawSearch = { q: search.query };
  const court = courtParam(search.courts);
  if (court !== undefined) s.court = court;
  if (search.from_year !== undefined) s.filedAfter = `${String(search.from_year).padStart(4, "0")}-01-01`;
  if (search.to_year !== undefined) s.filedBefore = `${String(search.to_year).padStart(4, "0")}-12-31`;
  if (typeof at.page === "string") s.cursor = at.page;
  return caseLawSearchRequest(s);
}

/** One cluster of the search answer as a record; undefined when its id is not a cluster's. */
export function clusterRecord(r: SearchCluster): RecordDraft | undefined {
  if (r.cluster_id < 0) return undefined;
  const clusterId = String(r.cluster_id);
  const title = str(r.caseName) ?? str(r.caseNameFull) ?? `CourtListener cluster ${clusterId}`;
  const url = courtListenerPage(str(r.absolute_url), clusterId);
  const fullText = caseIndexRead(clusterId);
  const citations = strings(r.citation);
  const summary = defined({
    title,
    url,
    identifier: identifierOf.cluster(clusterId),
    source: "case_index",
    source_class: "institutional_transcription",
    document_kind: "judicial_opinion",
    court: str(r.court),
    date: str(r.dateFiled),
    citations,
    full_text: fullText,
  });
  const opinions = r.opinions ?? [];
  const detail = defined({
    ...summary,
    cluster_id: clusterId,
    court_id: str(r.court_id),
    court_citation_string: str(r.court_citation_string),
    case_name_full: str(r.caseNameFull),
    docket_number: str(r.docketNumber),
    date_argued: str(r.dateArgued),
    judges: str(r.judge),
    precedential_status: str(r.status),
    cite_count: int(r.citeCount),
    opinion_ids: opinions.length > 0 ? opinions.flatMap((o) => (typeof o.id === "number" ? [String(o.id)] : [])) : undefined,
    note:
      "The stored search candidate as CourtListener indexed it; the decision's words are read with the legal.read " +
      "request in full_text (free), section by section.",
  });
  return {
    summary: summary as RecordDraft["summary"],
    detail,
    links: [{ label: "CourtListener", url }],
    ref: { cluster_id: clusterId },
  };
}

/**
 * A search answer (`{count, next, results}`, checked by the client; a 400 is not checked and is
 * CourtListener refusing the query) → `num` records from `skip`, and where the next page starts.
 */
export function toUsPage(status: number, body: CaseLawSearchPage, num: number, at: SliceCursor): SourcePage {
  if (status === 400) throw refusedQuery(body, "/search/query");
  const all = body.results.map(clusterRecord).filter((r): r is RecordDraft => r !== undefined);
  const { items: records, next } = slicePage({ items: all, next: cursorOf(body.next) }, at, num);
  const notes: string[] = [];
  const count = int(body.count);
  if (count !== undefined && at.page === null && at.skip === 0) notes.push(`CourtListener reports ${count} matching clusters.`);
  return { records, next, ...(notes.length > 0 ? { notes } : {}) };
}
