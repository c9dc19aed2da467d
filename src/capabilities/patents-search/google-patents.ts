/**
 * SerpApi Google Patents mappers for patents.search: a query → `GET /search.json?engine=google_patents`
 * (one SerpApi page of `max(10, num)` results), an answer → records and whether SerpApi has a next page,
 * and one patent → `engine=google_patents_details` → the `details` object (with an excerpt of the
 * description page SerpApi links to). Pure functions, no I/O. Parameters and fields:
 * https://serpapi.com/google-patents-api, https://serpapi.com/google-patents-details-api
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest, TextRequest } from "../../upstream/types.ts";
import { htmlToText, inlineText } from "../shared/html-text.ts";
import type { ProviderPage } from "../framework/cursors.ts";
import { clip, defined } from "../shared/read.ts";
import { serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";
import type { PatentsSearchQuery } from "./schema.ts";

/** SerpApi's `num` bounds for google_patents: at least 10 and at most 100 results a page. */
export const SERPAPI_MIN_NUM = 10;
/** Snippet: the start of SerpApi's snippet (the abstract or the matching claims). */
export const SNIPPET_MAX_CHARS = 300;
/** Bounds of a detail, so one patent stays small whatever its family and citations. */
const MAX_CLAIMS = 100;
const MAX_CLAIM_CHARS = 4_000;
const MAX_LIST = 50;
const MAX_CITATIONS = 20;
export const DESCRIPTION_EXCERPT_CHARS = 3_000;

/**
 * One organic result as the records read it. `patent_id` (SerpApi's id, `patent/US8110241B2/en`,
 * which `details` asks with) and `title` are required: a result without them is not a patent Quarry
 * can list. Every other field is absent when Google Patents has no value.
 */
const organicResult = Type.Object({
  patent_id: Type.String(),
  title: Type.String(),
  publication_number: Type.Optional(Type.String()),
  patent_link: Type.Optional(Type.String()),
  snippet: Type.Optional(Type.String()),
  priority_date: Type.Optional(Type.String()),
  filing_date: Type.Optional(Type.String()),
  grant_date: Type.Optional(Type.String()),
  publication_date: Type.Optional(Type.String()),
  inventor: Type.Optional(Type.String()),
  assignee: Type.Optional(Type.String()),
  language: Type.Optional(Type.String()),
  pdf: Type.Optional(Type.String()),
});

/**
 * A google_patents answer: the results (required; a search that found nothing is SerpApi's "no
 * results" answer, passed on unchecked) and the next page's link.
 */
export const patentsAnswer = Type.Object({
  organic_results: Type.Array(organicResult),
  serpapi_pagination: Type.Optional(Type.Object({ next: Type.Optional(Type.String()) })),
});
export type PatentsAnswer = Static<typeof patentsAnswer>;
type OrganicResult = Static<typeof organicResult>;

const citation = Type.Object({
  publication_number: Type.Optional(Type.String()),
  title: Type.Optional(Type.String()),
  priority_date: Type.Optional(Type.String()),
  publication_date: Type.Optional(Type.String()),
  assignee_original: Type.Optional(Type.String()),
  examiner_cited: Type.Optional(Type.Boolean()),
});
const citations = Type.Object({
  original: Type.Optional(Type.Array(citation)),
  family_to_family: Type.Optional(Type.Array(citation)),
});

/**
 * A google_patents_details answer: the patent's publication number and title are required (every
 * patent page has them), everything else may be absent (a design patent has no abstract, a new
 * application no citations or events).
 */
export const patentDetailsAnswer = Type.Object({
  publication_number: Type.String(),
  title: Type.String(),
  type: Type.Optional(Type.String()),
  country: Type.Optional(Type.String()),
  application_number: Type.Optional(Type.String()),
  pdf: Type.Optional(Type.String()),
  priority_date: Type.Optional(Type.String()),
  filing_date: Type.Optional(Type.String()),
  publication_date: Type.Optional(Type.String()),
  grant_date: Type.Optional(Type.String()),
  inventors: Type.Optional(Type.Array(Type.Object({ name: Type.Optional(Type.String()) }))),
  assignees: Type.Optional(Type.Array(Type.String())),
  abstract: Type.Optional(Type.String()),
  description_link: Type.Optional(Type.String()),
  claims: Type.Optional(Type.Array(Type.String())),
  prior_art_keywords: Type.Optional(Type.Array(Type.String())),
  classifications: Type.Optional(Type.Array(Type.Object({ code: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }))),
  family_id: Type.Optional(Type.String()),
  worldwide_applications: Type.Optional(
    Type.Record(
      Type.String(),
      Type.Array(
        Type.Object({
          country_code: Type.Optional(Type.String()),
          application_number: Type.Optional(Type.String()),
          document_id: Type.Optional(Type.String()),
          filing_date: Type.Optional(Type.String()),
          legal_status: Type.Optional(Type.String()),
        }),
      ),
    ),
  ),
  events: Type.Optional(Type.Array(Type.Object({ date: Type.Optional(Type.String()), title: Type.Optional(Type.String()), type: Type.Optional(Type.String()) }))),
  legal_events: Type.Optional(Type.Array(Type.Object({ date: Type.Optional(Type.String()), code: Type.Optional(Type.String()), title: Type.Optional(Type.String()) }))),
  patent_citations: Type.Optional(citations),
  cited_by: Type.Optional(citations),
});
export type PatentDetailsAnswer = Static<typeof patentDetailsAnswer>;

const SORT: Record<PatentsSearchQuery["sort"], string | undefined> = { relevance: undefined, newest: "new", oldest: "old" };
const STATUS: Record<NonNullable<PatentsSearchQuery["status"]>, string> = { granted: "GRANT", application: "APPLICATION" };

/** Results per SerpApi page for this query: `num`, but at least SerpApi's minimum of 10. */
export function providerPageSize(query: Pick<PatentsSearchQuery, "num">): number {
  return Math.max(SERPAPI_MIN_NUM, query.num);
}

/**
 * `q` from `query` and `match`: `all` sends the words as written (Google Patents requires every word and
 * reads its own syntax: OR, NOT, parentheses, quotes), `any` joins them with OR, `phrase` quotes them.
 */
export function toQ(query: string, match: PatentsSearchQuery["match"]): string {
  if (match === "phrase") return `"${query.replace(/"/g, " ").replace(/\s+/g, " ").trim()}"`;
  if (match === "any") return query.trim().split(/\s+/).join(" OR ");
  return query;
}

/** `YYYY-MM-DD` → Google Patents' `publication:YYYYMMDD` bound. */
function publicationBound(date: string | undefined): string | undefined {
  return date === undefined ? undefined : `publication:${date.replace(/-/g, "")}`;
}

/** The SerpApi page a cursor names (1 for the first). */
export function pageOf(page: JsonValue): number {
  return typeof page === "number" && Number.isInteger(page) && page >= 1 ? page : 1;
}

/** `GET /search.json?engine=google_patents&q=&page=&num=&sort=&after=&before=&assignee=&inventor=&country=&status=`. */
export function toSearchRequest(query: PatentsSearchQuery, page: number): JsonRequest<typeof patentsAnswer> {
  return serpApiRequest(
    "google_patents",
    {
      q: query.query === undefined ? undefined : toQ(query.query, query.match),
      page,
      num: providerPageSize(query),
      sort: SORT[query.sort],
      after: publicationBound(query.from_date),
      before: publicationBound(query.to_date),
      assignee: query.assignee,
      inventor: query.inventor,
      country: query.country?.toUpperCase(),
      status: query.status === undefined ? undefined : STATUS[query.status],
    },
    patentsAnswer,
  );
}

/** One SerpApi page: its patents as records, and the next page number while SerpApi links one. */
export function toProviderPage(answer: { root: PatentsAnswer; noResults: boolean }, page: number): ProviderPage<RecordDraft> {
  if (answer.noResults) return { items: [], next: null };
  const items = (answer.root.organic_results ?? []).flatMap((r) => {
    const record = toRecord(r);
    return record === undefined ? [] : [record];
  });
  return { items, next: answer.root.serpapi_pagination?.next === undefined ? null : page + 1 };
}

/** `patent/US8110241B2/en` → `US8110241B2`. */
/** SerpApi's patent id, `patent/<publication number>[/<language>]`, as records store it (the record actions' ref pattern). */
export const PATENT_ID_PATTERN = "^patent/([A-Z]{2}[A-Z0-9]+)(?:/[a-z]{2})?$";
const PATENT_ID = new RegExp(PATENT_ID_PATTERN);

export function publicationNumberOf(patentId: string): string | undefined {
  const m = PATENT_ID.exec(patentId.trim());
  return m?.[1];
}

/** SerpApi's patent id as `details` may send it back: `patent/<publication number>[/<language>]`. */
export function detailPatentId(value: unknown): string | undefined {
  return typeof value === "string" && publicationNumberOf(value) !== undefined ? value.trim() : undefined;
}

/** Text SerpApi sends with HTML entities (`&hellip;`, any named one) and spacing as on the page, as plain text. */
function plain(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = (value.includes("&") ? inlineText(value) : value).replace(/\s+/g, " ").trim();
  return text === "" ? undefined : text;
}

function isoDate(value: string | undefined): string | undefined {
  return value !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
}

function httpsUrl(value: string | undefined): string | undefined {
  return value !== undefined && /^https:\/\//i.test(value) ? value : undefined;
}

/** Google Patents' page of a patent. */
export function patentUrl(patentId: string, link?: string): string {
  return httpsUrl(link) ?? `https://patents.google.com/${patentId}`;
}

export function toRecord(r: OrganicResult): RecordDraft | undefined {
  const id = detailPatentId(r.patent_id);
  const number = plain(r.publication_number) ?? (id === undefined ? undefined : publicationNumberOf(id));
  if (id === undefined || number === undefined) return undefined;
  const snippet = plain(r.snippet);
  const summary = defined({
    title: plain(r.title) ?? `Patent ${number}`,
    url: patentUrl(id, r.patent_link),
    snippet: snippet === undefined ? undefined : clip(snippet, SNIPPET_MAX_CHARS),
    patent_id: number,
    priority_date: isoDate(r.priority_date),
    filing_date: isoDate(r.filing_date),
    grant_date: isoDate(r.grant_date),
    publication_date: isoDate(r.publication_date),
    assignee: plain(r.assignee),
    inventor: plain(r.inventor),
    language: plain(r.language),
    pdf_url: httpsUrl(r.pdf),
  }) as RecordDraft["summary"];
  return { summary, ref: { patent_id: id } };
}

/** `GET /search.json?engine=google_patents_details&patent_id=patent/…`. */
export function toDetailRequest(patentId: string): JsonRequest<typeof patentDetailsAnswer> {
  return serpApiRequest("google_patents_details", { patent_id: patentId }, patentDetailsAnswer);
}

/**
 * The description page `description_link` names, when it is on SerpApi's own host (it is sent to the
 * deployment's SerpApi base URL with the key, so never elsewhere); a 404 means no description.
 */
export function toDescriptionRequest(link: string | undefined): TextRequest | undefined {
  let url: URL;
  try {
    url = new URL(link ?? "");
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" || !(url.hostname === "serpapi.com" || url.hostname.endsWith(".serpapi.com"))) return undefined;
  const query = Object.fromEntries(url.searchParams);
  return {
    provider: "serpapi",
    method: "GET",
    path: url.pathname,
    ...(Object.keys(query).length > 0 ? { query } : {}),
    responseType: "text",
    response: "html",
    acceptStatus: [404],
    optionalPart: true,
  };
}

/** The description page's text (its body: not the page title), cut to an excerpt at a word boundary. */
export function descriptionExcerpt(html: string): string | undefined {
  const body = /<body[^>]*>([\s\S]*?)(?:<\/body>|$)/i.exec(html)?.[1] ?? html.replace(/<head[\s\S]*?<\/head>/i, "");
  const text = htmlToText(body).replace(/\n+/g, "\n").trim();
  return text === "" ? undefined : clipLines(text, DESCRIPTION_EXCERPT_CHARS);
}

function clipLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut).trimEnd() + "…";
}

function list<T>(items: T[] | undefined, max: number, map: (item: T) => JsonObject | string | undefined): JsonValue[] | undefined {
  const out = (items ?? []).map(map).filter((x): x is JsonObject | string => x !== undefined && (typeof x === "string" || Object.keys(x).length > 0));
  return out.length > 0 ? out.slice(0, max) : undefined;
}

function citationList(entries: Static<typeof citations> | undefined): JsonObject | undefined {
  const original = entries?.original ?? [];
  const family = entries?.family_to_family ?? [];
  if (original.length + family.length === 0) return undefined;
  const one = (c: Static<typeof citation>) =>
    defined({
      publication_number: plain(c.publication_number),
      title: plain(c.title),
      publication_date: isoDate(c.publication_date),
      assignee: plain(c.assignee_original),
      examiner_cited: c.examiner_cited,
    });
  return defined({
    count: original.length,
    family_to_family_count: family.length,
    first: list(original, MAX_CITATIONS, one),
  });
}

/** One patent's details (and the description excerpt, when its page was read) → `details`. */
export function toDetail(body: PatentDetailsAnswer, patentId: string, description?: string): { detail: JsonObject; links: Link[] } {
  const number = plain(body.publication_number) ?? publicationNumberOf(patentId) ?? patentId;
  const claims = (body.claims ?? []).map(plain).filter((c): c is string => c !== undefined);
  const family = Object.entries(body.worldwide_applications ?? {}).flatMap(([, apps]) => apps);
  const detail = defined({
    patent_id: number,
    title: plain(body.title),
    type: plain(body.type),
    country: plain(body.country),
    application_number: plain(body.application_number),
    priority_date: isoDate(body.priority_date),
    filing_date: isoDate(body.filing_date),
    publication_date: isoDate(body.publication_date),
    grant_date: isoDate(body.grant_date),
    inventors: list(body.inventors, MAX_LIST, (i) => plain(i.name)),
    assignees: list(body.assignees, MAX_LIST, plain),
    abstract: plain(body.abstract),
    claims: claims.length === 0 ? undefined : claims.slice(0, MAX_CLAIMS).map((c) => clip(c, MAX_CLAIM_CHARS)),
    claim_count: claims.length === 0 ? undefined : claims.length,
    description_excerpt: description,
    keywords: list(body.prior_art_keywords, MAX_LIST, plain),
    classifications: list(body.classifications, MAX_LIST, (c) => defined({ code: plain(c.code), description: plain(c.description) })),
    family:
      body.family_id === undefined && family.length === 0
        ? undefined
        : defined({
            family_id: plain(body.family_id),
            applications: list(family, MAX_LIST, (a) =>
              defined({
                country: plain(a.country_code),
                application_number: plain(a.application_number),
                publication: a.document_id === undefined ? undefined : publicationNumberOf(a.document_id),
                filing_date: isoDate(a.filing_date),
                legal_status: plain(a.legal_status),
              }),
            ),
          }),
    citations: citationList(body.patent_citations),
    cited_by: citationList(body.cited_by),
    events: list(body.events, MAX_LIST, (e) => defined({ date: isoDate(e.date), title: plain(e.title), type: plain(e.type) })),
    legal_events: list(body.legal_events, MAX_LIST, (e) => defined({ date: isoDate(e.date), code: plain(e.code), title: plain(e.title) })),
    pdf_url: httpsUrl(body.pdf),
  });
  const links: Link[] = [{ label: "Google Patents", url: patentUrl(patentId) }];
  const pdf = httpsUrl(body.pdf);
  if (pdf !== undefined) links.push({ label: "PDF", url: pdf });
  return { detail, links };
}
