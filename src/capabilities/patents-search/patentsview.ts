/**
 * PatentsView PatentSearch API mappers for patents.search: query → `POST /api/v1/patent/` with a
 * JSON body `{q, f, s, o}`, an answer → records and the `after` cursor, and one patent → `details`.
 * Pure functions, no I/O. Query language: https://search.patentsview.org/docs/docs/Search%20API/SearchAPIReference
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest, UpstreamResponse } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft, SourcePage } from "../types.ts";
import { arr, bool, clip, defined, int, type Obj, obj, str } from "../shared/read.ts";
import type { PatentsSearchQuery } from "./capability.ts";

const PATH = "/api/v1/patent/";
/** Snippet: the start of the abstract. */
export const SNIPPET_MAX_CHARS = 300;
/** Names and classes kept on a summary (details carry all). */
const SUMMARY_MAX_NAMES = 10;
const SUMMARY_MAX_CPC = 10;

/** Fields a search asks for (nested groups by name: PatentSearch returns their objects whole). */
export const SEARCH_FIELDS = ["patent_id", "patent_title", "patent_date", "patent_type", "patent_abstract", "patent_num_times_cited_by_us_patents", "assignees", "inventors", "cpc_current"];

/** Fields `details` asks for. */
export const DETAIL_FIELDS = [
  ...SEARCH_FIELDS,
  "wipo_kind",
  "withdrawn",
  "patent_earliest_application_date",
  "patent_num_us_patents_cited",
  "patent_num_us_applications_cited",
  "patent_num_foreign_documents_cited",
  "application",
  "figures",
  "foreign_priority",
];

/** Sort orders: grant date, then patent id so every position is unique (the `after` cursor needs it). */
const SORTS: Record<PatentsSearchQuery["sort"], JsonObject[]> = {
  newest: [{ patent_date: "desc" }, { patent_id: "desc" }],
  oldest: [{ patent_date: "asc" }, { patent_id: "asc" }],
};

/** The cursor: PatentSearch's `after` (the last patent's sort values) and how many were seen. */
export interface PatentCursor {
  after: [string, string];
  seen: number;
}

export function parseCursor(cursor: JsonValue): PatentCursor | null {
  const c = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor : undefined;
  const after = c?.after;
  const seen = c?.seen;
  if (!Array.isArray(after) || after.length !== 2 || !after.every((v) => typeof v === "string")) return null;
  return { after: [after[0] as string, after[1] as string], seen: typeof seen === "number" && seen >= 0 ? seen : 0 };
}

const TEXT_OPERATOR: Record<NonNullable<PatentsSearchQuery["match"]>, string> = {
  all: "_text_all",
  any: "_text_any",
  phrase: "_text_phrase",
};

/** The `q` criterion: every filter given, joined with `_and`. */
export function toCriteria(query: PatentsSearchQuery): JsonObject {
  const parts: JsonObject[] = [];
  if (query.query !== undefined) {
    const op = TEXT_OPERATOR[query.match ?? "all"];
    parts.push({ _or: [{ [op]: { patent_title: query.query } }, { [op]: { patent_abstract: query.query } }] });
  }
  if (query.from_date !== undefined) parts.push({ _gte: { patent_date: query.from_date } });
  if (query.to_date !== undefined) parts.push({ _lte: { patent_date: query.to_date } });
  if (query.assignee !== undefined) parts.push({ _text_phrase: { "assignees.assignee_organization": query.assignee } });
  if (query.inventor !== undefined) {
    // "First Last": the last word is the last name, the words before it the first name(s).
    const words = query.inventor.trim().split(/\s+/);
    const last = words.pop() ?? query.inventor;
    parts.push({ _text_phrase: { "inventors.inventor_name_last": last } });
    if (words.length > 0) parts.push({ _text_phrase: { "inventors.inventor_name_first": words.join(" ") } });
  }
  return parts.length === 1 ? parts[0]! : { _and: parts };
}

/** `POST /api/v1/patent/` for one page: size `num`, after the cursor's position. */
export function toSearchRequest(query: PatentsSearchQuery, cursor: PatentCursor | null): UpstreamRequest {
  return {
    provider: "patentsview",
    method: "POST",
    path: PATH,
    body: {
      q: toCriteria(query),
      f: SEARCH_FIELDS,
      s: SORTS[query.sort],
      o: cursor === null ? { size: query.num } : { size: query.num, after: cursor.after },
    },
    // A search changes nothing: it may be retried like a GET.
    idempotent: true,
    acceptStatus: [400],
  };
}

/** `POST /api/v1/patent/` for one patent with every detail field. */
export function toDetailRequest(patentId: string): UpstreamRequest {
  return {
    provider: "patentsview",
    method: "POST",
    path: PATH,
    body: { q: { patent_id: patentId }, f: DETAIL_FIELDS, o: { size: 1 } },
    idempotent: true,
    acceptStatus: [400],
  };
}

/** The answer's patents; a 400 or an `error: true` body is a provider error with PatentsView's reason. */
export function readPatents(response: UpstreamResponse): { patents: Obj[]; count: number; total: number } {
  const root = obj(response.body);
  const reasonHeader = response.headers["x-status-reason"];
  const reason = (Array.isArray(reasonHeader) ? reasonHeader[0] : reasonHeader) ?? str(root?.reason) ?? str(root?.detail);
  if (response.status !== 200 || root === undefined || bool(root.error) === true) {
    throw new ApiError("provider_error", `PatentsView refused the request${reason === undefined ? "" : `: ${reason}`}.`, {
      hint: "PatentsView could not answer this query; nothing was charged.",
    });
  }
  const patents = (arr(root.patents) ?? []).flatMap((p) => (obj(p) === undefined ? [] : [obj(p)!]));
  return { patents, count: int(root.count) ?? patents.length, total: int(root.total_hits) ?? patents.length };
}

/** An answer → records, and the cursor after the last one while PatentsView has more. */
export function toSearchPage(response: UpstreamResponse, query: PatentsSearchQuery, cursor: PatentCursor | null): SourcePage {
  const { patents, total } = readPatents(response);
  const kept = patents.slice(0, query.num);
  const records = kept.flatMap((p) => {
    const r = toRecord(p);
    return r === undefined ? [] : [r];
  });
  const seen = (cursor?.seen ?? 0) + kept.length;
  const last = kept.at(-1);
  const lastId = str(last?.patent_id);
  const lastDate = str(last?.patent_date);
  const more = kept.length === query.num && total > seen;
  if (!more) return { records, next: null };
  if (lastId === undefined || lastDate === undefined) {
    return { records, next: null, notes: ["PatentsView did not send the grant date of the last patent, which the next page starts after; paging stops here."] };
  }
  return { records, next: { after: [lastDate, lastId], seen } };
}

/** `First Last` of a person, or an organization. */
function personName(first: unknown, last: unknown): string | undefined {
  const name = [str(first), str(last)].filter((s) => s !== undefined).join(" ");
  return name === "" ? undefined : name;
}

function assigneeName(a: Obj): string | undefined {
  return str(a.assignee_organization) ?? personName(a.assignee_individual_name_first, a.assignee_individual_name_last);
}

/** Entries of a nested list, in PatentsView's sequence order. */
function bySequence(value: unknown, key: string): Obj[] {
  const list = (arr(value) ?? []).flatMap((v) => (obj(v) === undefined ? [] : [obj(v)!]));
  return list.sort((a, b) => (int(a[key]) ?? 0) - (int(b[key]) ?? 0));
}

function unique(values: (string | undefined)[], max = Number.POSITIVE_INFINITY): string[] | undefined {
  const out = [...new Set(values.filter((v): v is string => v !== undefined))].slice(0, max);
  return out.length > 0 ? out : undefined;
}

/** Google Patents page of a US patent (`5116621` → US5116621, `D912345` → USD912345). */
export function patentUrl(patentId: string): string {
  return `https://patents.google.com/patent/US${patentId}`;
}

/** A patent id as PatentSearch writes them: digits, or a type prefix (D, PP, RE, T, H, X…) and digits. */
export function patentId(value: unknown): string | undefined {
  const id = str(value);
  return id !== undefined && /^[A-Z]{0,2}\d{1,9}$/.test(id) ? id : undefined;
}

export function toRecord(p: Obj): RecordDraft | undefined {
  const id = patentId(p.patent_id);
  if (id === undefined) return undefined;
  const abstract = str(p.patent_abstract);
  const summary = defined({
    title: str(p.patent_title) ?? `Patent ${id}`,
    url: patentUrl(id),
    snippet: abstract === undefined ? undefined : clip(abstract, SNIPPET_MAX_CHARS),
    patent_id: id,
    date: str(p.patent_date),
    type: str(p.patent_type),
    assignees: unique(bySequence(p.assignees, "assignee_sequence").map(assigneeName), SUMMARY_MAX_NAMES),
    inventors: unique(
      bySequence(p.inventors, "inventor_sequence").map((i) => personName(i.inventor_name_first, i.inventor_name_last)),
      SUMMARY_MAX_NAMES,
    ),
    cpc: unique(bySequence(p.cpc_current, "cpc_sequence").map((c) => str(c.cpc_group_id)), SUMMARY_MAX_CPC),
    cited_by: int(p.patent_num_times_cited_by_us_patents),
  }) as RecordDraft["summary"];
  return { summary, ref: { patent_id: id } };
}

/** One patent (a detail answer) → `details`. */
export function toDetail(response: UpstreamResponse, id: string): { detail: JsonObject; links: Link[] } | undefined {
  const p = readPatents(response).patents.find((x) => str(x.patent_id) === id);
  if (p === undefined) return undefined;
  const application = obj(arr(p.application)?.[0]);
  const figures = obj(arr(p.figures)?.[0]);
  const place = (o: Obj) => defined({ city: str(o.city), state: str(o.state), country: str(o.country) });
  const detail = defined({
    patent_id: id,
    title: str(p.patent_title),
    abstract: str(p.patent_abstract),
    date: str(p.patent_date),
    type: str(p.patent_type),
    kind: str(p.wipo_kind),
    withdrawn: bool(p.withdrawn),
    application:
      application === undefined ? undefined : defined({ number: str(application.application_id), filing_date: str(application.filing_date) }),
    earliest_application_date: str(p.patent_earliest_application_date),
    assignees: listOrUndefined(
      bySequence(p.assignees, "assignee_sequence").flatMap((a) => {
        const name = assigneeName(a);
        return name === undefined ? [] : [{ name, ...place({ city: a.assignee_city, state: a.assignee_state, country: a.assignee_country }) }];
      }),
    ),
    inventors: listOrUndefined(
      bySequence(p.inventors, "inventor_sequence").flatMap((i) => {
        const name = personName(i.inventor_name_first, i.inventor_name_last);
        return name === undefined ? [] : [{ name, ...place({ city: i.inventor_city, state: i.inventor_state, country: i.inventor_country }) }];
      }),
    ),
    cpc: unique(bySequence(p.cpc_current, "cpc_sequence").map((c) => str(c.cpc_group_id))),
    cpc_subclasses: unique(bySequence(p.cpc_current, "cpc_sequence").map((c) => str(c.cpc_subclass_id))),
    citations: nonEmpty(
      defined({
        cited_by_us_patents: int(p.patent_num_times_cited_by_us_patents),
        us_patents_cited: int(p.patent_num_us_patents_cited),
        us_applications_cited: int(p.patent_num_us_applications_cited),
        foreign_documents_cited: int(p.patent_num_foreign_documents_cited),
      }),
    ),
    foreign_priority: listOrUndefined(
      bySequence(p.foreign_priority, "priority_claim_sequence").map((f) =>
        defined({ country: str(f.foreign_country_filed), application: str(f.foreign_application_id), filing_date: str(f.filing_date) }),
      ),
    ),
    figures: figures === undefined ? undefined : int(figures.num_figures),
  });
  return { detail, links: [{ label: "Google Patents", url: patentUrl(id) }] };
}

function listOrUndefined(list: JsonObject[]): JsonObject[] | undefined {
  return list.length > 0 ? list : undefined;
}

function nonEmpty(o: JsonObject): JsonObject | undefined {
  return Object.keys(o).length > 0 ? o : undefined;
}
