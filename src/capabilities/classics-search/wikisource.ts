/**
 * Wikisource (MediaWiki's search API) for classics.search, the fallback when Gutendex fails: pure
 * mappers from a query and an offset to `GET /w/api.php?action=query&list=search…` and from
 * MediaWiki search bodies to records.
 *
 * A MediaWiki search hit has a title, an HTML snippet, a word count, a size and a timestamp; it
 * carries no author, language, subject or download count, so fallback records keep `title`, `url`,
 * `source` and, when MediaWiki gives it, `words` (its `wordcount`); `authors` is left out rather
 * than guessed from page titles. The snippet (tags and entities removed) is the record's stored
 * excerpt for `details`, with the page link. English Wikisource is searched: `language` is not
 * applied, and the notes say so. Offsets page through the hits (`srlimit`, `sroffset`, and the
 * answer's `continue.sroffset`, or the legacy `query-continue.search.sroffset`).
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import { htmlToText } from "../shared/html-text.ts";
import { arr, defined, int, obj, str } from "../shared/read.ts";
import type { JsonObject, JsonValue, RecordDraft, SourcePage } from "../types.ts";
import { type ClassicsQuery, searchWords } from "./gutendex.ts";

/** Where Wikisource pages are read (the public address, also when the API is reached elsewhere). */
export const WIKISOURCE_SITE = "https://en.wikisource.org";

export function parseWikisourceCursor(cursor: JsonValue): number {
  const offset = int(obj(cursor)?.offset);
  return offset !== undefined && offset >= 0 ? offset : 0;
}

export function toWikisourceRequest(query: ClassicsQuery, offset: number): UpstreamRequest {
  return {
    provider: "wikisource",
    method: "GET",
    path: "/w/api.php",
    query: {
      action: "query",
      list: "search",
      srsearch: searchWords(query),
      srnamespace: 0,
      srlimit: query.num,
      sroffset: offset,
      srprop: "snippet|wordcount|size|timestamp",
      format: "json",
    },
  };
}

/** The reading URL of a page title (MediaWiki: spaces as underscores). */
export function wikisourceUrl(title: string): string {
  const path = encodeURIComponent(title.replace(/ /g, "_")).replace(/%2F/gi, "/").replace(/%3A/gi, ":");
  return `${WIKISOURCE_SITE}/wiki/${path}`;
}

function nextOffset(body: Record<string, unknown>): number | undefined {
  return int(obj(body.continue)?.sroffset) ?? int(obj(obj(body["query-continue"])?.search)?.sroffset);
}

function toRecord(hit: Record<string, unknown>): RecordDraft | null {
  const title = str(hit.title);
  if (title === undefined) return null;
  const url = wikisourceUrl(title);
  const snippet = str(hit.snippet);
  const excerpt = snippet === undefined ? undefined : htmlToText(snippet).replace(/\n/g, " ") || undefined;
  const words = int(hit.wordcount);
  const detail: JsonObject = defined({
    source: "wikisource",
    title,
    url,
    excerpt,
    words,
    size_bytes: int(hit.size),
    last_edited: str(hit.timestamp),
  });
  return {
    summary: { title, url, ...defined({ source: "wikisource", words }) },
    detail,
    ref: { source: "wikisource", title, links: [{ label: "Read on Wikisource (HTML)", url }] },
  };
}

/** A MediaWiki search answer as a page; an `error` body is a provider error. */
export function toWikisourcePage(body: unknown, offset: number): SourcePage {
  const o = obj(body);
  const error = obj(o?.error);
  if (error !== undefined) {
    const info = str(error.info) ?? str(error.code) ?? "an error";
    throw new ApiError("provider_error", `Wikisource reported ${info}.`);
  }
  const hits = arr(obj(o?.query)?.search);
  if (o === undefined || hits === undefined) throw new ApiError("provider_error", "Wikisource answered without search results.");
  const records = hits.map((h) => obj(h)).flatMap((h) => (h === undefined ? [] : [toRecord(h)])).filter((r): r is RecordDraft => r !== null);
  const next = nextOffset(o);
  const suggestion = str(obj(obj(o.query)?.searchinfo)?.suggestion);
  return {
    records,
    next: records.length > 0 && next !== undefined && next > offset ? { offset: next } : null,
    ...(suggestion === undefined ? {} : { notes: [`Wikisource suggests searching for "${suggestion}".`] }),
  };
}

/** What the fallback's notes say, on every page it serves. */
export function wikisourceFallbackNotes(query: ClassicsQuery): string[] {
  const notes = [
    "Gutendex (Project Gutenberg's catalogue) did not answer, so English Wikisource's search answered: records carry " +
      "title, url, source and words (Wikisource's word count) only; authors, languages, subjects and downloads are absent " +
      "(MediaWiki search results do not carry them). details give the search excerpt and the page link.",
  ];
  if (query.author !== undefined) notes.push(`\`author\` ("${query.author}") was searched as words of the page text, not as an author field.`);
  if (query.language !== undefined) {
    notes.push(`The language filter (language "${query.language}") was not applied: Wikisource's search does not filter by language.`);
  }
  return notes;
}
