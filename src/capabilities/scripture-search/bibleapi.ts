/**
 * bible-api.com mappers for scripture.search's `bible` variant, and the records and chapters of the
 * shipped KJV index. Requests: `GET /{reference}?translation=` (always sent: bible-api.com answers WEB
 * otherwise) for references, `GET /data/{translation}/{book_id}/{chapter}` for a record's chapter
 * (`details`). bible-api.com answers an unknown passage with 404 `{"error":"not found"}`; that is the
 * caller's reference, refused at `/reference` (400), never a provider fault. Pure, no I/O.
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import { PROVIDERS } from "../../upstream/providers.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { arr, int, obj, str } from "../shared/read.ts";
import { BIBLE_BOOKS, type BibleBook } from "./books.ts";
import { type KjvVerse, bookOf } from "./kjv-index.ts";
import { type BibleReference, bibleApiReference } from "./references.ts";
import { type ChapterVerse, chapterDetail, link, squeeze, type VerseFacts, verseRecord } from "./verses.ts";

/** Public address for links (the configured base URL may be a test's replay server). */
const PUBLIC_BASE = PROVIDERS.bibleapi.hosts.default.defaultBaseUrl;

/** A path segment as bible-api.com's documented URLs write it: spaces as %20, `:` and `-` kept. */
function pathText(text: string): string {
  return encodeURIComponent(text).replace(/%3A/gi, ":");
}

export function toPassageRequest(ref: BibleReference, translation: string): UpstreamRequest {
  return {
    provider: "bibleapi",
    method: "GET",
    path: `/${pathText(bibleApiReference(ref))}`,
    query: { translation },
    acceptStatus: [404],
  };
}

export function toChapterRequest(bookId: string, chapter: number, translation: string): UpstreamRequest {
  return { provider: "bibleapi", method: "GET", path: `/data/${pathText(translation)}/${bookId}/${chapter}` };
}

/** One verse of a bible-api.com answer. */
export interface BibleApiVerse {
  book_id: string;
  book_name: string;
  chapter: number;
  verse: number;
  text: string;
}

export interface BibleApiPassage {
  reference?: string;
  verses: BibleApiVerse[];
  translation_id: string;
  translation_name?: string;
}

function badShape(what: string): ApiError {
  return new ApiError("provider_error", `bible-api.com answered ${what} in an unexpected shape.`);
}

function verseOf(value: unknown): BibleApiVerse | null {
  const v = obj(value);
  const bookId = str(v?.book_id);
  const chapter = int(v?.chapter);
  const verse = int(v?.verse);
  const text = typeof v?.text === "string" ? squeeze(v.text) : "";
  if (bookId === undefined || chapter === undefined || verse === undefined || text === "") return null;
  return {
    book_id: bookId,
    book_name: str(v?.book_name) ?? bookById(bookId)?.name ?? bookId,
    chapter,
    verse,
    text,
  };
}

/**
 * `GET /{reference}` answer → the passage. Status 404 is bible-api.com's "not found": the reference
 * names no passage of that translation, refused at `/reference`.
 */
export function toPassage(
  status: number,
  body: unknown,
  reference: string,
  translation: string,
): BibleApiPassage {
  if (status === 404) {
    const said = str(obj(body)?.error) ?? "not found";
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
  const b = obj(body);
  const list = arr(b?.verses);
  if (b === undefined || list === undefined) throw badShape("the passage");
  const verses = list.map(verseOf).filter((v): v is BibleApiVerse => v !== null);
  return {
    ...(str(b.reference) === undefined ? {} : { reference: str(b.reference)! }),
    verses,
    translation_id: str(b.translation_id) ?? translation,
    ...(str(b.translation_name) === undefined ? {} : { translation_name: str(b.translation_name)! }),
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
  body: unknown,
  bookId: string,
  chapter: number,
  translation: string,
): { detail: JsonObject; links: Link[] } {
  const b = obj(body);
  const list = arr(b?.verses);
  if (b === undefined || list === undefined) throw badShape("the chapter");
  const verses = list.map(verseOf).filter((v): v is BibleApiVerse => v !== null);
  if (verses.length === 0) throw badShape("the chapter (no verses)");
  const t = obj(b.translation);
  const bookName = verses[0]!.book_name;
  const out: ChapterVerse[] = verses.map((v) => ({ verse: v.verse, text: v.text }));
  return {
    detail: chapterDetail({
      book: bookName,
      chapter,
      translation: str(t?.identifier) ?? translation,
      ...(str(t?.name) === undefined ? {} : { translation_name: str(t?.name)! }),
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
