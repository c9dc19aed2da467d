/**
 * Open Library mappers for books.search: query → `GET /search.json` (explicit `fields=`), a search
 * answer → records (no snippet), and a work (`GET /works/{id}.json`) with its editions
 * (`GET /works/{id}/editions.json`) → the `details` object. Each request declares the fields its
 * mapper reads; Open Library's refusals go through the family's `refusal` hook. Pure functions, no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { UpstreamError } from "../../upstream/faults.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";
import { clip, defined, str, strings } from "../shared/read.ts";
import type { BooksSearchQuery } from "./schema.ts";

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

const strs = Type.Optional(Type.Array(Type.String()));

/** One search doc: the `fields=` asked for; only the work key and title are always there. */
export const openLibraryDoc = Type.Object({
  key: Type.String(),
  title: Type.String(),
  author_name: strs,
  first_publish_year: Type.Optional(Type.Integer()),
  edition_count: Type.Optional(Type.Integer()),
  ratings_average: Type.Optional(Type.Number()),
  subject: strs,
  isbn: strs,
  cover_i: Type.Optional(Type.Integer()),
});

/** A search answer: the docs and how many works match (for `has_more`). */
export const openLibrarySearch = Type.Object({ numFound: Type.Integer(), docs: Type.Array(openLibraryDoc) });

/** Open Library's text values: a string, or `{type: "/type/text", value}`. */
const text = Type.Union([Type.String(), Type.Object({ value: Type.String() })]);

/**
 * A work (`GET /works/{id}.json`), or a redirect record pointing to the work it was merged into
 * (`type.key` `/type/redirect`, `location`). Only the key is always there.
 */
export const openLibraryWork = Type.Object({
  key: Type.String(),
  type: Type.Optional(Type.Object({ key: Type.String() })),
  location: Type.Optional(Type.String()),
  title: nullish(Type.String()),
  description: Type.Optional(text),
  first_publish_date: Type.Optional(Type.String()),
  subjects: strs,
  subject_places: strs,
  subject_people: strs,
  subject_times: strs,
  covers: Type.Optional(Type.Array(Type.Integer())),
  links: Type.Optional(Type.Array(Type.Object({ url: Type.String(), title: Type.Optional(Type.String()) }))),
});

/** A work's editions page (`GET /works/{id}/editions.json`). */
export const openLibraryEditions = Type.Object({
  size: Type.Optional(Type.Integer()),
  entries: Type.Array(
    Type.Object({
      key: Type.String(),
      title: Type.Optional(Type.String()),
      publish_date: Type.Optional(Type.String()),
      publishers: strs,
      isbn_13: strs,
      isbn_10: strs,
      number_of_pages: Type.Optional(Type.Integer()),
    }),
  ),
});

export type OpenLibraryDoc = Static<typeof openLibraryDoc>;
export type OpenLibrarySearch = Static<typeof openLibrarySearch>;
export type OpenLibraryWork = Static<typeof openLibraryWork>;
export type OpenLibraryEditions = Static<typeof openLibraryEditions>;

/**
 * Open Library's refusals (family hook): a 403 is its bot policy refusing this deployment's
 * User-Agent (Open Library refuses API clients that name themselves without a contact).
 */
export function openLibraryRefusal(_body: unknown, status: number): UpstreamError | undefined {
  if (status !== 403) return undefined;
  return new UpstreamError("provider_error", "Open Library refused this deployment's requests (HTTP 403).", "refused", "openlibrary", {
    retryable: false,
    hint:
      "Open Library refuses API clients whose User-Agent gives no contact (https://openlibrary.org/developers/api): the operator " +
      "sets QUARRY_CONTACT to an e-mail address or URL. Nothing was charged.",
  });
}

/** A work key from a search doc or a stored ref: `/works/OL45804W` or `OL45804W` → `OL45804W`. */
/** A bare work id as records store it (`workId`): the record actions' ref pattern. */
export const WORK_ID_PATTERN = "^OL[0-9]+W$";

export function workId(value: unknown): string | undefined {
  const match = /^(?:\/works\/)?(OL\d+W)$/.exec(str(value) ?? "");
  return match?.[1];
}

/**
 * `GET /search.json`: `q`, `author` and `subject` as given, the record fields only, and page `page`
 * of `num` results as `offset`/`limit` (Open Library takes either `page` or `offset`; offsets make
 * the page independent of how Open Library sizes its own pages).
 */
export function toSearchRequest(query: BooksSearchQuery, page: number): JsonRequest<typeof openLibrarySearch> {
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
    refusal: openLibraryRefusal,
    response: openLibrarySearch,
  };
}

/** A search answer → records; the next page while Open Library reports matches past this one. */
export function toSearchPage(body: OpenLibrarySearch, page: number, perPage: number): SourcePage {
  const records = body.docs.slice(0, perPage).flatMap((doc) => {
    const record = toRecord(doc);
    return record === undefined ? [] : [record];
  });
  const more = body.docs.length > 0 && body.numFound > page * perPage;
  return { records, next: more ? { page: page + 1 } : null };
}

/** One search doc → one record (spec 4.6: no snippet); a doc without a work key is dropped. */
export function toRecord(doc: OpenLibraryDoc): RecordDraft | undefined {
  const id = workId(doc.key);
  if (id === undefined) return undefined;
  const rating = doc.ratings_average;
  const cover = doc.cover_i;
  const summary = defined({
    title: oneLine(str(doc.title)) ?? "Untitled work",
    url: `${SITE}/works/${id}`,
    authors: strings(doc.author_name, SUMMARY_MAX_AUTHORS),
    first_published: doc.first_publish_year,
    editions: doc.edition_count,
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
export function toWorkRequest(id: string): JsonRequest<typeof openLibraryWork> {
  return { provider: "openlibrary", method: "GET", path: `/works/${id}.json`, acceptStatus: [404], refusal: openLibraryRefusal, response: openLibraryWork };
}

/** `GET /works/{id}/editions.json`, the first page of editions. 404: no editions list. */
export function toEditionsRequest(id: string): JsonRequest<typeof openLibraryEditions> {
  return {
    provider: "openlibrary",
    method: "GET",
    path: `/works/${id}/editions.json`,
    query: { limit: DETAIL_MAX_EDITIONS },
    acceptStatus: [404],
    optionalPart: true,
    refusal: openLibraryRefusal,
    response: openLibraryEditions,
  };
}

/** The work a redirect record points to (`{type: /type/redirect, location: /works/OL…W}`), if it is one. */
export function redirectTarget(work: OpenLibraryWork): string | undefined {
  return work.type?.key === "/type/redirect" ? workId(work.location) : undefined;
}

/** Open Library writes text either as a string or as `{type: "/type/text", value}`. */
function textValue(value: OpenLibraryWork["description"]): string | undefined {
  return typeof value === "string" ? str(value) : str(value?.value);
}

/** The work and (optionally) its editions → `details`: description, subjects, editions with ISBNs, links. */
export function toDetail(id: string, work: OpenLibraryWork, editionsBody: OpenLibraryEditions | undefined): { detail: JsonObject; links: Link[] } {
  const description = textValue(work.description);
  const subjects = unique(strings(work.subjects) ?? []).slice(0, DETAIL_MAX_SUBJECTS);
  const covers = (work.covers ?? []).filter((c) => c > 0);
  const editions = editionsBody === undefined ? undefined : toEditions(editionsBody);
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
  for (const link of work.links ?? []) {
    const url = str(link.url);
    if (url !== undefined && /^https?:\/\//i.test(url)) links.push({ label: str(link.title) ?? "Link", url });
  }
  return { detail, links };
}

/** The editions page → up to DETAIL_MAX_EDITIONS editions, each with its ISBNs when it has them. */
function toEditions(body: OpenLibraryEditions): { count?: number; list?: JsonObject[] } {
  const list = body.entries.slice(0, DETAIL_MAX_EDITIONS).flatMap((edition) => {
    const key = /^\/books\/(OL\d+M)$/.exec(str(edition.key) ?? "")?.[1];
    if (key === undefined) return [];
    return [
      defined({
        edition_id: key,
        title: str(edition.title),
        publish_date: str(edition.publish_date),
        publishers: strings(edition.publishers),
        isbn_13: strings(edition.isbn_13),
        isbn_10: strings(edition.isbn_10),
        pages: edition.number_of_pages,
        url: `${SITE}/books/${key}`,
      }),
    ];
  });
  return { count: body.size, list: list.length > 0 ? list : undefined };
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

/** The live check's probe: one work by its id (a free lookup; Open Library's documented example work). */
export const openLibraryProbe: ProviderProbe = {
  provider: "openlibrary",
  what: "one work by id (free)",
  request: toWorkRequest("OL16484595W"),
};
