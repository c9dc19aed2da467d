/**
 * bible-api.com mappers for scripture.search's `bible` variant, and the records and chapters of the
 * shipped KJV index. Requests: `GET /{reference}?translation=` (always sent: bible-api.com answers WEB
 * otherwise) for references, `GET /data/{translation}/{book_id}/{chapter}` for a record's chapter
 * (`details`), each with its declared answer (`bibleApiPassage`, `bibleApiChapter`: a verse without its
 * book id, chapter, verse or text is drift, never a shorter passage). bible-api.com answers an unknown
 * passage with 404 `{"error":"not found"}`; that is the caller's reference, refused at `/reference`
 * (400), never a provider fault. Its own refusals (`bibleApiRefusal`): a 403 when it has blocked this
 * deployment's address (after more than 10 not-found answers in 30 s, for an hour), a 400 for a
 * reference it will not serve (more than one whole chapter). Pure, no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError, invalidRequest } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { PROVIDERS } from "../../providers.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { obj, str } from "../shared/read.ts";
import { BIBLE_BOOKS, type BibleBook } from "./books.ts";
import { type KjvVerse, bookOf } from "./kjv-index.ts";
import { type BibleReference, bibleApiReference, parseBibleReference } from "./references.ts";
import { type ChapterVerse, chapterDetail, link, squeeze, type VerseFacts, verseRecord } from "./verses.ts";

/** Public address for links (the configured base URL may be a test's replay server). */
const PUBLIC_BASE = PROVIDERS.bibleapi.hosts.default.defaultBaseUrl;

/** A path segment as bible-api.com's documented URLs write it: spaces as %20, `:` and `-` kept. */
function pathText(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ":");
}

/**
 * One verse as bible-api.com sends it: `book_name` in passage answers, `book` in `/data` chapter
 * answers (app.rb selects `book_id, book, chapter, verse, text`).
 */
const bibleApiVerse = Type.Object({
  book_id: Type.String(),
  book_name: Type.Optional(Type.String()),
  book: Type.Optional(Type.String()),
  chapter: Type.Integer(),
  verse: Type.Integer(),
  text: Type.String(),
});

/** `GET /{reference}`: the passage's verses and the translation they are from. */
export const bibleApiPassage = Type.Object({
  reference: Type.Optional(Type.String()),
  verses: Type.Array(bibleApiVerse),
  translation_id: Type.Optional(Type.String()),
  translation_name: Type.Optional(Type.String()),
});
export type BibleApiPassageBody = Static<typeof bibleApiPassage>;

/** `GET /data/{translation}/{book_id}/{chapter}`: the chapter's verses and the translation. */
export const bibleApiChapter = Type.Object({
  translation: Type.Optional(Type.Object({ identifier: Type.Optional(Type.String()), name: Type.Optional(Type.String()) })),
  verses: Type.Array(bibleApiVerse),
});
export type BibleApiChapterBody = Static<typeof bibleApiChapter>;

/**
 * bible-api.com's own refusals, whatever the request: a 403 is its abuse block (Rack::AbuseMiddleware
 * in its app.rb: more than 10 not-found answers from one address in 30 s block it for an hour, with a
 * plain-text "Forbidden"), a 400 a reference it will not serve (`{"error":"too many chapters",
 * "detail":…}`). Its 404 is read by the passage mapper (the caller's reference).
 */
export function bibleApiRefusal(body: unknown, status: number): ApiError | undefined {
  if (status === 403) {
    return new ApiError(
      "provider_error",
      "bible-api.com refused this deployment's address (HTTP 403): it blocks an address for an hour after more than 10 not-found answers in 30 s.",
      {
        hint: "KJV references are answered from the KJV shipped with Quarry meanwhile; for other translations retry within the hour. Nothing was charged.",
      },
    );
  }
  if (status === 400) {
    const b = obj(body);
    const said = [str(b?.error), str(b?.detail)]
      .filter((s) => s !== undefined)
      .map((s) => s.replace(/\.+$/, ""))
      .join(": ");
    return new ApiError("provider_error", `bible-api.com refused the reference (HTTP 400)${said === "" ? "" : `: ${said}`}.`, {
      retryable: false,
      hint: "bible-api.com serves at most one whole chapter, or a verse range across one chapter boundary; ask for a shorter passage. Nothing was charged.",
    });
  }
  return undefined;
}

export function toPassageRequest(ref: BibleReference, translation: string): JsonRequest<typeof bibleApiPassage> {
  return {
    provider: "bibleapi",
    method: "GET",
    path: `/${pathText(bibleApiReference(ref))}`,
    query: { translation },
    acceptStatus: [404],
    response: bibleApiPassage,
    refusal: bibleApiRefusal,
  };
}

export function toChapterRequest(bookId: string, chapter: number, translation: string): JsonRequest<typeof bibleApiChapter> {
  return {
    provider: "bibleapi",
    method: "GET",
    path: `/data/${pathText(translation)}/${bookId}/${chapter}`,
    response: bibleApiChapter,
    refusal: bibleApiRefusal,
  };
}

/** One verse of a bible-api.com answer, mapped: the book's name resolved, the text's whitespace squeezed. */
export interface BibleApiVerse {
  book_id: string;
  book_name: string;
  chapter: number;
  verse: number;
  text: string;
}

/** A passage answer, mapped. */
export interface BibleApiPassage {
  reference?: string;
  verses: BibleApiVerse[];
  translation_id: string;
  translation_name?: string;
}

/** A checked verse → the mapped verse; one whose text is only whitespace → null (nothing to show). */
function verseOf(v: Static<typeof bibleApiVerse>): BibleApiVerse | null {
  const text = squeeze(v.text);
  if (text === "") return null;
  return {
    book_id: v.book_id,
    book_name: str(v.book_name) ?? str(v.book) ?? bookById(v.book_id)?.name ?? v.book_id,
    chapter: v.chapter,
    verse: v.verse,
    text,
  };
}

const mapped = (list: readonly Static<typeof bibleApiVerse>[]) => list.map(verseOf).filter((v): v is BibleApiVerse => v !== null);

/**
 * `GET /{reference}` answer → the passage. Status 404 is bible-api.com's "not found": the reference
 * names no passage of that translation, refused at `/reference` (its body is not checked: read as
 * given).
 */
export function toPassage(status: number, body: BibleApiPassageBody, reference: string, translation: string): BibleApiPassage {
  if (status === 404) {
    const said = str(obj(body as unknown)?.error) ?? "not found";
    throw invalidRequest(
      [
        {
          path: "/reference",
          message: `bible-api.com has no passage ${JSON.stringify(reference)} in translation "${translation}" (it answered: ${said})`,
        },
      ],
      "The reference names no passage of this translation.",
    );
  }
  const named = str(body.reference);
  const name = str(body.translation_name);
  return {
    ...(named === undefined ? {} : { reference: named }),
    verses: mapped(body.verses),
    translation_id: str(body.translation_id) ?? translation,
    ...(name === undefined ? {} : { translation_name: name }),
  };
}

export function bookById(id: string): BibleBook | undefined {
  return BIBLE_BOOKS.find((b) => b.id === id.toUpperCase());
}

function verseUrl(book: string, chapter: number, verse: number, translation: string): string {
  return `${PUBLIC_BASE}/${pathText(`${book.toLowerCase()} ${chapter}:${verse}`)}?translation=${encodeURIComponent(translation)}`;
}

export function bibleApiRecord(v: BibleApiVerse, translation: string): RecordDraft {
  const facts: VerseFacts = {
    title: `${v.book_name} ${v.chapter}:${v.verse}`,
    url: verseUrl(v.book_name, v.chapter, v.verse, translation),
    text: v.text,
    book: v.book_name,
    chapter: v.chapter,
    verse: v.verse,
    translation,
    ref: { source: "bibleapi", book_id: v.book_id, chapter: v.chapter, verse: v.verse, translation },
  };
  return verseRecord(facts);
}

export function kjvRecord(v: KjvVerse): RecordDraft {
  const book = bookOf(v);
  return verseRecord({
    title: `${book.name} ${v.chapter}:${v.verse}`,
    url: verseUrl(book.name, v.chapter, v.verse, "kjv"),
    text: v.text,
    book: book.name,
    chapter: v.chapter,
    verse: v.verse,
    translation: "kjv",
    ref: { source: "kjv-index", book_id: book.id, chapter: v.chapter, verse: v.verse, translation: "kjv" },
  });
}

function chapterLinks(bookName: string, chapter: number, translation: string): Link[] {
  return [
    link(
      `${bookName} ${chapter} on bible-api.com`,
      `${PUBLIC_BASE}/${pathText(`${bookName.toLowerCase()} ${chapter}`)}?translation=${encodeURIComponent(translation)}`,
    ),
  ];
}

/** `GET /data/{translation}/{book_id}/{chapter}` answer → the `details` of a bible-api.com record. */
export function toChapterDetail(
  body: BibleApiChapterBody,
  bookId: string,
  chapter: number,
  translation: string,
): { detail: JsonObject; links: Link[] } {
  const verses = mapped(body.verses);
  if (verses.length === 0) throw new ApiError("provider_error", "bible-api.com answered the chapter without any verse text.");
  const bookName = verses[0]!.book_name;
  const out: ChapterVerse[] = verses.map((v) => ({ verse: v.verse, text: v.text }));
  const name = str(body.translation?.name);
  return {
    detail: chapterDetail({
      book: bookName,
      chapter,
      translation: str(body.translation?.identifier) ?? translation,
      ...(name === undefined ? {} : { translation_name: name }),
      source: "bible-api.com",
      verses: out,
    }),
    links: chapterLinks(bookById(bookId)?.name ?? bookName, chapter, translation),
  };
}

/** A KJV record's chapter from the shipped index (no request). */
export function kjvChapterDetail(
  verses: readonly KjvVerse[],
  book: BibleBook,
  chapter: number,
): { detail: JsonObject; links: Link[] } {
  return {
    detail: chapterDetail({
      book: book.name,
      chapter,
      translation: "kjv",
      translation_name: "King James Version",
      source: "the public-domain KJV text shipped with Quarry",
      verses: verses.map((v) => ({ verse: v.verse, text: v.text })),
    }),
    links: chapterLinks(book.name, chapter, "kjv"),
  };
}

/** The live check's probe: John 3:16 in the WEB, one verse that exists (bible-api.com is free and keyless; never a 404). */
export const bibleApiProbe: ProviderProbe = {
  provider: "bibleapi",
  what: "one verse (John 3:16, WEB)",
  request: toPassageRequest((parseBibleReference("John 3:16") as { ok: true; ref: BibleReference }).ref, "web"),
};
