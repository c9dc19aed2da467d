/**
 * Open Library mappers for books.search: query → `GET /search.json` (explicit `fields=`), a search
 * answer → records (no snippet), and a work (`GET /works/{id}.json`) with its editions
 * (`GET /works/{id}/editions.json`) → the `details` object. Pure functions, no I/O.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft, SourcePage } from "../types.ts";
import { arr, clip, defined, int, num, obj, str, strings } from "../shared/read.ts";
import type { BooksSearchQuery } from "./capability.ts";

const SITE = "https://openlibrary.org";
const COVERS = "https://covers.openlibrary.org/b/id";

/** The fields a record needs; Open Library otherwise sends whole Solr documents (edition keys, ids…). */
export const SEARCH_FIELDS = "key,title,author_name,first_publish_year,edition_count,ratings_average,subject,isbn,cover_i";

/** Subjects kept on a summary (details carry the work's full list). */
export const SUMMARY_MAX_SUBJECTS = 10;
/** Authors kept on a summary. */
const SUMMARY_MAX_AUTHORS = 25;
/** Editions listed in details (the first page of the work's editions). */
export const DETAIL_MAX_EDITIONS = 20;
/** Subjects listed in details. */
const DETAIL_MAX_SUBJECTS = 50;
/** Description length in details. */
export const DESCRIPTION_MAX_CHARS = 5_000;

/** A work key from a search doc or a stored ref: `/works/OL45804W` or `OL45804W` → `OL45804W`. */
export function workId(value: unknown): string | undefined {
  const match = /^(?:\/works\/)?(OL\d+W)$/.exec(str(value) ?? "");
  return match?.[1];
}

/** Page number from a cursor `{page: n}`; anything else is page 1. */
export function cursorPage(cursor: JsonValue): number {
  const page = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor.page : undefined;
  return typeof page === "number" && Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * `GET /search.json`: `q`, `author` and `subject` as given, the record fields only, and page `page`
 * of `num` results as `offset`/`limit` (Open Library takes either `page` or `offset`; offsets make
 * the page independent of how Open Library sizes its own pages).
 */
export function toSearchRequest(query: BooksSearchQuery, page: number): UpstreamRequest {
  return {
    provider: "openlibrary",
    method: "GET",
    path: "/search.json",
    query: {
      q: query.query,
      author: query.author,
      subject: query.subject,
      fields: SEARCH_FIELDS,
      limit: query.num,
      offset: (page - 1) * query.num,
    },
  };
}

/** A search answer → records; the next page while Open Library reports matches past this one. */
export function toSearchPage(body: unknown, page: number, perPage: number): SourcePage {
  const root = obj(body);
  const docs = arr(root?.docs);
  if (root === undefined || docs === undefined) {
    throw new ApiError("provider_error", "Open Library answered a search without a docs list.");
  }
  const records = docs.slice(0, perPage).flatMap((doc) => {
    const record = toRecord(doc);
    return record === undefined ? [] : [record];
  });
  const found = int(root.numFound) ?? int(root.num_found) ?? 0;
  const more = docs.length > 0 && found > page * perPage;
  return { records, next: more ? { page: page + 1 } : null };
}

/** One search doc → one record (spec 4.6: no snippet); a doc without a work key is dropped. */
export function toRecord(value: unknown): RecordDraft | undefined {
  const doc = obj(value);
  const id = workId(doc?.key);
  if (doc === undefined || id === undefined) return undefined;
  const rating = num(doc.ratings_average);
  const cover = int(doc.cover_i);
  const summary = defined({
    title: oneLine(str(doc.title)) ?? "Untitled work",
    url: `${SITE}/works/${id}`,
    authors: strings(doc.author_name, SUMMARY_MAX_AUTHORS),
    first_published: int(doc.first_publish_year),
    editions: int(doc.edition_count),
    rating: rating === undefined ? undefined : Math.round(rating * 100) / 100,
    subjects: strings(doc.subject, SUMMARY_MAX_SUBJECTS),
    isbn: preferredIsbn(strings(doc.isbn)),
    cover_url: cover !== undefined && cover > 0 ? `${COVERS}/${cover}-M.jpg` : undefined,
  }) as RecordDraft["summary"];
  return { summary, ref: { work_id: id } };
}

/** One ISBN for the summary: the first 13-digit one, else the first (Open Library lists every edition's). */
function preferredIsbn(isbns: string[] | undefined): string | undefined {
  return isbns?.find((i) => /^\d{13}$/.test(i)) ?? isbns?.[0];
}

/** `GET /works/{id}.json`. 404 is an answer: the work is not in Open Library (any more). */
export function toWorkRequest(id: string): UpstreamRequest {
  return { provider: "openlibrary", method: "GET", path: `/works/${id}.json`, acceptStatus: [404] };
}

/** `GET /works/{id}/editions.json`, the first page of editions. 404: no editions list. */
export function toEditionsRequest(id: string): UpstreamRequest {
  return { provider: "openlibrary", method: "GET", path: `/works/${id}/editions.json`, query: { limit: DETAIL_MAX_EDITIONS }, acceptStatus: [404], optionalPart: true };
}

/** The work a redirect record points to (`{type: /type/redirect, location: /works/OL…W}`), if it is one. */
export function redirectTarget(body: unknown): string | undefined {
  const work = obj(body);
  return str(obj(work?.type)?.key) === "/type/redirect" ? workId(work?.location) : undefined;
}

/** Open Library writes text either as a string or as `{type: "/type/text", value}`. */
function textValue(value: unknown): string | undefined {
  return str(value) ?? str(obj(value)?.value);
}

/** The work and (optionally) its editions → `details`: description, subjects, editions with ISBNs, links. */
export function toDetail(id: string, workBody: unknown, editionsBody: unknown): { detail: JsonObject; links: Link[] } {
  const work = obj(workBody);
  if (work === undefined || workId(work.key) === undefined) {
    throw new ApiError("provider_error", `Open Library answered work ${id} without a work record.`);
  }
  const description = textValue(work.description);
  const subjects = unique(strings(work.subjects) ?? []).slice(0, DETAIL_MAX_SUBJECTS);
  const covers = (arr(work.covers) ?? []).map(int).filter((c): c is number => c !== undefined && c > 0);
  const editions = toEditions(editionsBody);
  const detail = defined({
    work_id: id,
    title: oneLine(str(work.title)),
    description: description === undefined ? undefined : clip(description, DESCRIPTION_MAX_CHARS),
    first_publish_date: str(work.first_publish_date),
    subjects: subjects.length > 0 ? subjects : undefined,
    subject_places: strings(work.subject_places, DETAIL_MAX_SUBJECTS),
    subject_people: strings(work.subject_people, DETAIL_MAX_SUBJECTS),
    subject_times: strings(work.subject_times, DETAIL_MAX_SUBJECTS),
    cover_url: covers[0] === undefined ? undefined : `${COVERS}/${covers[0]}-L.jpg`,
    edition_count: editions?.count,
    editions: editions?.list,
  });
  const links: Link[] = [{ label: "Open Library work page", url: `${SITE}/works/${id}` }];
  for (const entry of arr(work.links) ?? []) {
    const link = obj(entry);
    const url = str(link?.url);
    if (url !== undefined && /^https?:\/\//i.test(url)) links.push({ label: str(link?.title) ?? "Link", url });
  }
  return { detail, links };
}

/** The editions page → up to DETAIL_MAX_EDITIONS editions, each with its ISBNs when it has them. */
function toEditions(body: unknown): { count?: number; list?: JsonObject[] } | undefined {
  const root = obj(body);
  const entries = arr(root?.entries);
  if (root === undefined || entries === undefined) return undefined;
  const list = entries.slice(0, DETAIL_MAX_EDITIONS).flatMap((value) => {
    const edition = obj(value);
    const key = /^\/books\/(OL\d+M)$/.exec(str(edition?.key) ?? "")?.[1];
    if (edition === undefined || key === undefined) return [];
    return [
      defined({
        edition_id: key,
        title: str(edition.title),
        publish_date: str(edition.publish_date),
        publishers: strings(edition.publishers),
        isbn_13: strings(edition.isbn_13),
        isbn_10: strings(edition.isbn_10),
        pages: int(edition.number_of_pages),
        url: `${SITE}/books/${key}`,
      }),
    ];
  });
  return { count: int(root.size), list: list.length > 0 ? list : undefined };
}

/** Runs of whitespace inside a title (Open Library has some) as one space. */
function oneLine(text: string | undefined): string | undefined {
  return text?.replace(/\s+/g, " ");
}

function unique(values: string[]): string[] {
  const seen = new Set<string>();
  return values.filter((v) => {
    const k = v.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
