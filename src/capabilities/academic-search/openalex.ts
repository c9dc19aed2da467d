/**
 * OpenAlex mappers for academic.search: query → `GET /works` request, works list → records, and
 * one work (`GET /works/{id}`) → the `details` object. Pure functions, no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { nullable, nullish } from "../../upstream/response-check.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";
import type { AcademicSearchQuery } from "./schema.ts";

/** The validated academic.search body (defaults applied): its schema's static type. */
export type AcademicQuery = AcademicSearchQuery;
export type AcademicSort = AcademicQuery["sort"];

const location = Type.Object({
  landing_page_url: nullish(Type.String()),
  pdf_url: nullish(Type.String()),
  license: nullish(Type.String()),
  source: nullish(Type.Object({ display_name: nullish(Type.String()) })),
});

/**
 * The parts of an OpenAlex work the mappers read. OpenAlex sends every selected field of a work,
 * null when it has no value; only the id is never null (a work without one cannot be acted on),
 * and the title's key is always there. The rest may be null or, outside `select`, absent.
 */
export const openAlexWork = Type.Object({
  id: Type.String(),
  display_name: nullable(Type.String()),
  title: nullish(Type.String()),
  doi: nullish(Type.String()),
  publication_year: nullish(Type.Number()),
  publication_date: nullish(Type.String()),
  type: nullish(Type.String()),
  language: nullish(Type.String()),
  cited_by_count: nullish(Type.Number()),
  referenced_works_count: nullish(Type.Number()),
  counts_by_year: nullish(Type.Array(Type.Object({ year: Type.Optional(Type.Number()), cited_by_count: Type.Optional(Type.Number()) }))),
  open_access: nullish(Type.Object({ is_oa: nullish(Type.Boolean()), oa_status: nullish(Type.String()), oa_url: nullish(Type.String()) })),
  primary_location: nullish(location),
  best_oa_location: nullish(location),
  authorships: nullish(Type.Array(Type.Object({ author: nullish(Type.Object({ display_name: nullish(Type.String()) })) }))),
  abstract_inverted_index: nullish(Type.Record(Type.String(), Type.Array(Type.Number()))),
});
export type OpenAlexWork = Static<typeof openAlexWork>;

/** A works list: the results, and how many works match (for `has_more`). */
export const openAlexList = Type.Object({
  meta: Type.Object({ count: nullish(Type.Number()) }),
  results: Type.Array(openAlexWork),
});
export type OpenAlexList = Static<typeof openAlexList>;

/** Basic paging reaches at most this many results (page × per_page); deeper needs cursor paging. */
export const OPENALEX_PAGING_LIMIT = 10_000;
/** Snippet length: the start of the abstract, cut at a word boundary. */
export const SNIPPET_MAX_CHARS = 300;
/** Author names kept on a summary; details carry the full list (OpenAlex itself stops at 100). */
export const SUMMARY_MAX_AUTHORS = 25;
/** Upper bound of a rebuilt abstract in details, against malformed indexes. */
const ABSTRACT_MAX_CHARS = 20_000;

/** Only the fields the mappers read, so a page of 25 works stays small. */
const LIST_SELECT = [
  "id",
  "doi",
  "display_name",
  "publication_year",
  "type",
  "cited_by_count",
  "open_access",
  "primary_location",
  "authorships",
  "abstract_inverted_index",
].join(",");

const SORT_PARAM: Record<AcademicSort, string | undefined> = {
  // With `search`, OpenAlex already orders by relevance_score; sending nothing keeps that default.
  relevance: undefined,
  cited: "cited_by_count:desc",
  recent: "publication_date:desc",
};

/** `filter` value: year bounds as publication dates, open access as `is_oa:true`. */
export function toFilter(query: AcademicQuery): string | undefined {
  const parts: string[] = [];
  if (query.from_year !== undefined) parts.push(`from_publication_date:${pad4(query.from_year)}-01-01`);
  if (query.to_year !== undefined) parts.push(`to_publication_date:${pad4(query.to_year)}-12-31`);
  if (query.open_access_only) parts.push("is_oa:true");
  return parts.length > 0 ? parts.join(",") : undefined;
}

export function toRequest(query: AcademicQuery, page: number): JsonRequest<typeof openAlexList> {
  return {
    provider: "openalex",
    method: "GET",
    path: "/works",
    query: {
      search: query.query,
      filter: toFilter(query),
      sort: SORT_PARAM[query.sort],
      per_page: query.num,
      page,
      select: LIST_SELECT,
    },
    response: openAlexList,
  };
}

/** `GET /works/{id}` for a bare works-index id. */
export function toDetailRequest(openalexId: string): JsonRequest<typeof openAlexWork> {
  return { provider: "openalex", method: "GET", path: `/works/${openalexId}`, response: openAlexWork };
}

/**
 * Map a works list to a page. Next page rule: only when this page was full, OpenAlex reports more
 * matches than the pages read so far, and the next page stays inside basic paging's 10,000 limit.
 */
export function toPage(body: OpenAlexList, page: number, perPage: number): SourcePage {
  // A page never holds more than asked for, whatever the source sends.
  const records = body.results.slice(0, perPage).flatMap((work) => {
    const record = toRecord(work);
    return record === null ? [] : [record];
  });
  const count = typeof body.meta?.count === "number" ? body.meta.count : 0;
  const full = body.results.length >= perPage;
  const more = full && count > page * perPage && (page + 1) * perPage <= OPENALEX_PAGING_LIMIT;
  return { records, next: more ? { page: page + 1 } : null };
}

/** One work → one record; a work without a usable works-index id is dropped (details need it). */
export function toRecord(work: OpenAlexWork): RecordDraft | null {
  const openalexId = bareOpenAlexId(work.id);
  if (openalexId === null) return null;
  const summary: RecordDraft["summary"] = { title: workTitle(work), url: workUrl(work, openalexId) };
  const abstract = rebuildAbstract(work.abstract_inverted_index);
  if (abstract !== "") summary.snippet = truncateAtWord(abstract, SNIPPET_MAX_CHARS);
  if (isInt(work.publication_year)) summary.year = work.publication_year;
  const venue = nonEmpty(work.primary_location?.source?.display_name);
  if (venue !== undefined) summary.venue = venue;
  const authors = authorNames(work);
  if (authors.length > 0) summary.authors = authors.slice(0, SUMMARY_MAX_AUTHORS);
  if (isInt(work.cited_by_count)) summary.cited_by = work.cited_by_count;
  const type = nonEmpty(work.type);
  if (type !== undefined) summary.type = type;
  if (typeof work.open_access?.is_oa === "boolean") summary.open_access = work.open_access.is_oa;
  const oaUrl = nonEmpty(work.open_access?.oa_url);
  if (oaUrl !== undefined) summary.oa_url = oaUrl;
  const doi = bareDoi(work.doi);
  if (doi !== undefined) summary.doi = doi;
  summary.openalex_id = openalexId;
  return { summary, ref: { openalex_id: openalexId } };
}

/** One work → the `details` answer: abstract, citation counts, open-access PDF, landing page, links. */
export function toDetail(work: OpenAlexWork, openalexId: string): { detail: JsonObject; links: Link[] } {
  const detail: JsonObject = { openalex_id: openalexId, title: workTitle(work) };
  const abstract = rebuildAbstract(work.abstract_inverted_index);
  if (abstract !== "") detail.abstract = truncateAtWord(abstract, ABSTRACT_MAX_CHARS);
  const authors = authorNames(work);
  if (authors.length > 0) detail.authors = authors;
  if (isInt(work.publication_year)) detail.year = work.publication_year;
  setString(detail, "publication_date", work.publication_date);
  setString(detail, "venue", work.primary_location?.source?.display_name);
  setString(detail, "type", work.type);
  setString(detail, "language", work.language);
  const doi = bareDoi(work.doi);
  if (doi !== undefined) detail.doi = doi;
  if (isInt(work.cited_by_count)) detail.cited_by_count = work.cited_by_count;
  if (isInt(work.referenced_works_count)) detail.referenced_works_count = work.referenced_works_count;
  const byYear = (work.counts_by_year ?? []).flatMap((c) =>
    isInt(c.year) && isInt(c.cited_by_count) ? [{ year: c.year, cited_by_count: c.cited_by_count }] : [],
  );
  if (byYear.length > 0) detail.counts_by_year = byYear;
  const oa: JsonObject = {};
  if (typeof work.open_access?.is_oa === "boolean") oa.is_oa = work.open_access.is_oa;
  setString(oa, "oa_status", work.open_access?.oa_status);
  setString(oa, "oa_url", work.open_access?.oa_url);
  if (Object.keys(oa).length > 0) detail.open_access = oa;
  const pdfUrl = nonEmpty(work.best_oa_location?.pdf_url) ?? nonEmpty(work.primary_location?.pdf_url);
  if (pdfUrl !== undefined) detail.pdf_url = pdfUrl;
  const landing =
    nonEmpty(work.primary_location?.landing_page_url) ?? nonEmpty(work.best_oa_location?.landing_page_url);
  if (landing !== undefined) detail.landing_page_url = landing;
  setString(detail, "license", work.best_oa_location?.license ?? work.primary_location?.license);
  return { detail, links: detailLinks(openalexId, doi, landing, pdfUrl) };
}

function detailLinks(openalexId: string, doi?: string, landing?: string, pdf?: string): Link[] {
  const candidates: Link[] = [
    { label: "OpenAlex record", url: `https://openalex.org/${openalexId}` },
    ...(doi === undefined ? [] : [{ label: "DOI", url: `https://doi.org/${doi}` }]),
    ...(landing === undefined ? [] : [{ label: "Landing page", url: landing }]),
    ...(pdf === undefined ? [] : [{ label: "Open-access PDF", url: pdf }]),
  ];
  // The landing page is often the DOI URL itself; one link per address.
  const seen = new Set<string>();
  return candidates.filter((link) => {
    if (seen.has(link.url)) return false;
    seen.add(link.url);
    return true;
  });
}

/** Rebuild plain text from OpenAlex's `{word: [positions]}` abstract index. */
export function rebuildAbstract(index: Record<string, number[]> | null | undefined): string {
  if (index === null || index === undefined || typeof index !== "object") return "";
  const words: string[] = [];
  for (const [word, positions] of Object.entries(index)) {
    if (!Array.isArray(positions)) continue;
    for (const position of positions) {
      if (Number.isInteger(position) && position >= 0 && position < 100_000) words[position] = word;
    }
  }
  // Gaps (positions nobody claims) are skipped rather than rendered as empty words.
  return words
    .filter((w) => w !== undefined)
    .join(" ")
    .replace(/\s+/g, " ")
    .trim();
}

/** `https://openalex.org/W123` (or a bare `W123`) → `W123`; anything else → null. */
/** A bare OpenAlex work id, as records store it (`bareOpenAlexId`): the record actions' ref pattern. */
export const OPENALEX_WORK_ID_PATTERN = "^W[0-9]+$";

export function bareOpenAlexId(id: string | null | undefined): string | null {
  if (typeof id !== "string") return null;
  const match = /^(?:https?:\/\/openalex\.org\/)?(W\d+)$/i.exec(id.trim());
  return match?.[1] === undefined ? null : match[1].toUpperCase();
}

/** `https://doi.org/10.1/x` → `10.1/x` (the summary's `url` already holds the resolver address). */
export function bareDoi(doi: string | null | undefined): string | undefined {
  const value = nonEmpty(doi);
  if (value === undefined) return undefined;
  return nonEmpty(value.replace(/^https?:\/\/(dx\.)?doi\.org\//i, "").replace(/^doi:/i, ""));
}

export function truncateAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return (space > max / 2 ? cut.slice(0, space) : cut).trimEnd() + "…";
}

function workTitle(work: OpenAlexWork): string {
  return nonEmpty(work.display_name) ?? nonEmpty(work.title) ?? "Untitled work";
}

/** DOI resolver URL, else the landing page, else the OpenAlex page of the work. */
function workUrl(work: OpenAlexWork, openalexId: string): string {
  const doi = bareDoi(work.doi);
  if (doi !== undefined) return `https://doi.org/${doi}`;
  return nonEmpty(work.primary_location?.landing_page_url) ?? `https://openalex.org/${openalexId}`;
}

function authorNames(work: OpenAlexWork): string[] {
  return (work.authorships ?? []).flatMap((a) => {
    const name = nonEmpty(a?.author?.display_name);
    return name === undefined ? [] : [name];
  });
}

function setString(target: JsonObject, key: string, value: string | null | undefined): void {
  const v = nonEmpty(value);
  if (v !== undefined) target[key] = v;
}

function nonEmpty(value: string | null | undefined): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

function pad4(year: number): string {
  return String(year).padStart(4, "0");
}

/** The live check's probe: one work by its id, free at OpenAlex (singletons cost nothing). */
export const openAlexProbe: ProviderProbe = {
  provider: "openalex",
  what: "one work by id (free)",
  request: toDetailRequest("W2741809807"),
};
