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
 * answer's `continue.sroffset`, or the legacy `query-continue.search.sroffset`). MediaWiki reports
 * its errors as `{error: {code, info}}`, often with HTTP 200: read by the family's `refusal` hook.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import { htmlToText } from "../shared/html-text.ts";
import { defined, int, obj, str } from "../shared/read.ts";
import type { JsonObject, JsonValue, RecordDraft, SourcePage } from "../types.ts";
import { type ClassicsQuery, searchWords } from "./gutendex.ts";

/** Where Wikisource pages are read (the public address, also when the API is reached elsewhere). */
export const WIKISOURCE_SITE = "https://en.wikisource.org";

const offset = Type.Optional(Type.Object({ sroffset: Type.Optional(Type.Integer()) }));

/** One MediaWiki search hit with the `srprop`s asked for (`snippet|wordcount|size|timestamp`). */
export const mediaWikiHit = Type.Object({
  title: Type.String(),
  snippet: Type.Optional(Type.String()),
  wordcount: Type.Optional(Type.Integer()),
  size: Type.Optional(Type.Integer()),
  timestamp: Type.Optional(Type.String()),
});

/** A MediaWiki search answer: the hits, a suggestion, and where the next page starts (current or legacy continuation). */
export const mediaWikiSearch = Type.Object({
  query: Type.Object({
    search: Type.Array(mediaWikiHit),
    searchinfo: Type.Optional(Type.Object({ suggestion: Type.Optional(Type.String()) })),
  }),
  continue: offset,
  "query-continue": Type.Optional(Type.Object({ search: offset })),
});

export type MediaWikiHit = Static<typeof mediaWikiHit>;
export type MediaWikiSearch = Static<typeof mediaWikiSearch>;

/** MediaWiki's own error answer (any status, usually 200): a provider error in its words. */
export function mediaWikiRefusal(body: unknown, _status: number): ApiError | undefined {
  const error = obj(obj(body)?.error);
  if (error === undefined) return undefined;
  const info = str(error.info) ?? str(error.code) ?? "an error";
  return new ApiError("provider_error", `Wikisource reported ${info}.`);
}

export function parseWikisourceCursor(cursor: JsonValue): number {
  const offset = int(obj(cursor)?.offset);
  return offset !== undefined && offset >= 0 ? offset : 0;
}

export function toWikisourceRequest(query: ClassicsQuery, offset: number): JsonRequest<typeof mediaWikiSearch> {
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
    refusal: mediaWikiRefusal,
    response: mediaWikiSearch,
  };
}

/** The reading URL of a page title (MediaWiki: spaces as underscores). */
export function wikisourceUrl(title: string): string {
  const path = encodeURIComponent(title.replace(/ /g, "_")).replace(/%2F/gi, "/").replace(/%3A/gi, ":");
  return `${WIKISOURCE_SITE}/wiki/${path}`;
}

function nextOffset(body: MediaWikiSearch): number | undefined {
  return body.continue?.sroffset ?? body["query-continue"]?.search?.sroffset;
}

function toRecord(hit: MediaWikiHit): RecordDraft | null {
  const title = str(hit.title);
  if (title === undefined) return null;
  const url = wikisourceUrl(title);
  const snippet = str(hit.snippet);
  const excerpt = snippet === undefined ? undefined : htmlToText(snippet).replace(/\n/g, " ") || undefined;
  const words = hit.wordcount;
  const detail: JsonObject = defined({
    source: "wikisource",
    title,
    url,
    excerpt,
    words,
    size_bytes: hit.size,
    last_edited: str(hit.timestamp),
  });
  return {
    summary: { title, url, ...defined({ source: "wikisource", words }) },
    detail,
    ref: { source: "wikisource", title, links: [{ label: "Read on Wikisource (HTML)", url }] },
  };
}

/** A MediaWiki search answer as a page (its `error` answers were refused before: `mediaWikiRefusal`). */
export function toWikisourcePage(body: MediaWikiSearch, offset: number): SourcePage {
  const records = body.query.search.map(toRecord).filter((r): r is RecordDraft => r !== null);
  const next = nextOffset(body);
  const suggestion = str(body.query.searchinfo?.suggestion);
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

/** The live check's probe: the adapter's own search, one hit. */
export const wikisourceProbe: ProviderProbe = {
  provider: "wikisource",
  what: "a one-hit search (Albert Einstein)",
  request: toWikisourceRequest({ query: "Albert Einstein", num: 1 }, 0),
};
