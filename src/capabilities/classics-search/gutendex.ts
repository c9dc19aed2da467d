/**
 * Gutendex (Project Gutenberg's catalogue as JSON) for classics.search: pure mappers from a
 * validated query and a cursor to `GET /books/` requests, and from Gutendex pages to records.
 *
 * Paging. Gutendex pages hold 32 books (`page=1, 2, …`); classics.search pages hold `num` (1-25).
 * The cursor is `{page, skip}`: the Gutendex page the next slice starts on and how many of its
 * books earlier slices already returned. A slice takes up to `num` books from `skip` on; when the
 * rest of that page is shorter and Gutendex has a next page, the slice also asks for the next page
 * and takes what it still needs from its start. The next cursor points just past the last book
 * returned, so `more` never repeats or skips a book; it is null once the last page is used up.
 *
 * `author` is folded into `search` (Gutendex's `search` matches words of titles and author names;
 * it has no author-only parameter), so `{query: "Pride", author: "Austen"}` asks `search=Pride
 * Austen`. `language` is Gutendex's `languages` filter.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullable, nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { clip, defined, int, obj, str, strings } from "../shared/read.ts";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";

/** Books per Gutendex page (its documented page size). */
export const GUTENDEX_PAGE_SIZE = 32;
/** Where Project Gutenberg shows a book (https://www.gutenberg.org/ebooks/<id>). */
export const GUTENBERG_SITE = "https://www.gutenberg.org";

export interface ClassicsQuery {
  query?: string;
  author?: string;
  language?: string;
  num: number;
}

export interface GutendexCursor {
  page: number;
  skip: number;
}

const person = Type.Object({ name: Type.String(), birth_year: nullish(Type.Integer()), death_year: nullish(Type.Integer()) });
const strs = Type.Optional(Type.Array(Type.String()));

/**
 * One Gutendex book. Gutendex sends every field; `title`, `download_count` and `copyright` may be
 * null (its model allows it), `summaries` only since 2025; `formats` maps a MIME type to a URL.
 */
export const gutendexBook = Type.Object({
  id: Type.Integer(),
  title: nullable(Type.String()),
  authors: Type.Optional(Type.Array(person)),
  translators: Type.Optional(Type.Array(person)),
  summaries: strs,
  subjects: strs,
  bookshelves: strs,
  languages: strs,
  copyright: nullish(Type.Boolean()),
  media_type: nullish(Type.String()),
  formats: Type.Optional(Type.Record(Type.String(), Type.String())),
  download_count: nullish(Type.Integer()),
});

/** A Gutendex list page: its books (0-32) and the next page's URL, null on the last. */
export const gutendexList = Type.Object({
  count: Type.Optional(Type.Integer()),
  next: nullable(Type.String()),
  results: Type.Array(gutendexBook),
});

export type GutendexBook = Static<typeof gutendexBook>;
/** A Gutendex list page as paging reads it. */
export type GutendexPage = Static<typeof gutendexList>;

/** The words sent as Gutendex's `search` (and as Wikisource's `srsearch`): query, then author. */
export function searchWords(query: Pick<ClassicsQuery, "query" | "author">): string {
  return [query.query, query.author]
    .map((w) => w?.trim())
    .filter((w): w is string => w !== undefined && w !== "")
    .join(" ");
}

/** The cursor of a slice: null is the first slice (page 1, nothing skipped). */
export function parseGutendexCursor(cursor: JsonValue): GutendexCursor {
  const c = obj(cursor);
  const page = int(c?.page);
  const skip = int(c?.skip);
  return {
    page: page !== undefined && page >= 1 ? page : 1,
    skip: skip !== undefined && skip >= 0 && skip < GUTENDEX_PAGE_SIZE ? skip : 0,
  };
}

export function toGutendexRequest(query: ClassicsQuery, page: number): JsonRequest<typeof gutendexList> {
  return {
    provider: "gutendex",
    method: "GET",
    path: "/books/",
    query: {
      search: searchWords(query),
      ...(query.language === undefined ? {} : { languages: query.language.toLowerCase() }),
      page,
    },
    response: gutendexList,
  };
}

/** Whether the slice starting at `at` needs the Gutendex page after `first` too. */
export function needsNextPage(first: GutendexPage, at: GutendexCursor, num: number): boolean {
  return hasNext(first) && Math.max(0, first.results.length - at.skip) < num;
}

/** Whether Gutendex has a page after this one (its `next` URL; an empty one is none). */
function hasNext(page: GutendexPage): boolean {
  return str(page.next) !== undefined;
}

/**
 * The books of a slice of `num` starting at `at`, from its page (`first`) and, when the slice
 * runs past it, the page after (`second`), and the cursor just past the last book returned.
 */
export function gutendexSlice(
  first: GutendexPage,
  second: GutendexPage | null,
  at: GutendexCursor,
  num: number,
): { books: GutendexBook[]; next: GutendexCursor | null } {
  const fromFirst = first.results.slice(at.skip, at.skip + num);
  if (second === null) {
    const end = at.skip + fromFirst.length;
    if (end < first.results.length) return { books: fromFirst, next: { page: at.page, skip: end } };
    return { books: fromFirst, next: hasNext(first) && fromFirst.length > 0 ? { page: at.page + 1, skip: 0 } : null };
  }
  const fromSecond = second.results.slice(0, num - fromFirst.length);
  const books = [...fromFirst, ...fromSecond];
  if (fromSecond.length < second.results.length) return { books, next: { page: at.page + 1, skip: fromSecond.length } };
  return { books, next: hasNext(second) && second.results.length > 0 ? { page: at.page + 2, skip: 0 } : null };
}

/** The download links of a book's `formats` map (MIME type → URL), best variant of each kind. */
export function bookFormats(formats: Record<string, string> | undefined): { plain_text?: string; epub?: string; html?: string } {
  const entries = Object.entries(formats ?? {}).flatMap(([mime, url]) => {
    const u = str(url);
    return u !== undefined && /^https?:\/\//i.test(u) && !/\.zip$/i.test(u) ? [[mime.toLowerCase(), u] as const] : [];
  });
  const pick = (prefix: string, preferred: string[]) => {
    for (const p of preferred) {
      const hit = entries.find(([mime]) => mime === p);
      if (hit) return hit[1];
    }
    return entries.find(([mime]) => mime.startsWith(prefix))?.[1];
  };
  return defined({
    plain_text: pick("text/plain", ["text/plain; charset=utf-8", "text/plain; charset=us-ascii", "text/plain"]),
    epub: pick("application/epub+zip", ["application/epub+zip"]),
    html: pick("text/html", ["text/html", "text/html; charset=utf-8"]),
  }) as { plain_text?: string; epub?: string; html?: string };
}

type Person = Static<typeof person>;

function personJson(p: Person): JsonObject | undefined {
  const name = str(p.name);
  if (name === undefined) return undefined;
  return defined({ name, birth_year: p.birth_year ?? undefined, death_year: p.death_year ?? undefined });
}

function people(value: Person[] | undefined): JsonObject[] {
  return (value ?? []).map(personJson).filter((p): p is JsonObject => p !== undefined);
}

/**
 * One Gutendex book as a record: the summary's spec keys (source, authors, languages, subjects,
 * downloads) when Gutendex has them; the stored part of its detail (everything but the excerpt,
 * which `details` fetches once) and its links; the book id in `ref`.
 */
export function toGutenbergRecord(book: GutendexBook): RecordDraft | null {
  const id = book.id;
  const title = str(book.title);
  if (id <= 0 || title === undefined) return null;
  const url = `${GUTENBERG_SITE}/ebooks/${id}`;
  const authors = people(book.authors);
  const translators = people(book.translators);
  const summaryText = strings(book.summaries)?.[0];
  const formats = bookFormats(book.formats);
  const summary = {
    title,
    url,
    ...defined({
      snippet: summaryText === undefined ? undefined : clip(summaryText, 240),
      source: "gutenberg",
      authors: authors.length > 0 ? authors.map((a) => a.name as string) : undefined,
      languages: strings(book.languages),
      subjects: strings(book.subjects),
      downloads: book.download_count ?? undefined,
    }),
  };
  const detail = defined({
    source: "gutenberg",
    gutenberg_id: id,
    title,
    url,
    authors: authors.length > 0 ? authors : undefined,
    translators: translators.length > 0 ? translators : undefined,
    languages: strings(book.languages),
    subjects: strings(book.subjects),
    bookshelves: strings(book.bookshelves),
    summary: summaryText,
    downloads: book.download_count ?? undefined,
    copyright: book.copyright ?? undefined,
    media_type: str(book.media_type),
    formats: Object.keys(formats).length > 0 ? formats : undefined,
  });
  const links: Link[] = [{ label: "Project Gutenberg page", url }];
  if (formats.plain_text) links.push({ label: "Plain text", url: formats.plain_text });
  if (formats.epub) links.push({ label: "EPUB", url: formats.epub });
  if (formats.html) links.push({ label: "HTML", url: formats.html });
  return {
    summary,
    detail,
    ref: { source: "gutenberg", gutenberg_id: id, has_plain_text: formats.plain_text !== undefined, links: links.map((l) => ({ ...l })) },
  };
}

/** The live check's probe: the adapter's own search for one title (a page of a few books). */
export const gutendexProbe: ProviderProbe = {
  provider: "gutendex",
  what: "a search for one title (Frankenstein Shelley)",
  request: toGutendexRequest({ query: "Frankenstein", author: "Shelley", num: 1 }, 1),
};
