/**
 * What scripture.search's adapters share: the offset cursor, one verse as a record, a chapter as a
 * `details` answer, and slicing a list of verses into a page. Pure.
 */
import type { JsonObject, JsonValue, Link, RecordDraft, SourcePage } from "../types.ts";
import { defined } from "../shared/read.ts";

/** `{ offset }`: the position of the page's first verse (spec 3.2 offset paging). */
export function offsetOf(cursor: JsonValue): number {
  if (cursor === null || typeof cursor !== "object" || Array.isArray(cursor)) return 0;
  const o = cursor.offset;
  return typeof o === "number" && Number.isSafeInteger(o) && o > 0 ? o : 0;
}

export function nextCursor(offset: number, num: number, total: number): JsonValue {
  return offset + num < total ? { offset: offset + num } : null;
}

/** One verse as every source maps it (record keys of spec 4.6, `arabic` only when the source has it). */
export interface VerseFacts {
  /** "John 3:16", "Al-Fatihah 1:1". */
  title: string;
  url?: string;
  text: string;
  book: string;
  chapter: number;
  verse: number;
  translation: string;
  arabic?: string;
  /** What `details` needs to fetch the chapter (private). */
  ref: JsonObject;
}

export function verseRecord(v: VerseFacts): RecordDraft {
  return {
    summary: {
      title: v.title,
      ...defined({ url: v.url }),
      text: v.text,
      book: v.book,
      chapter: v.chapter,
      verse: v.verse,
      translation: v.translation,
      ...defined({ arabic: v.arabic }),
    },
    ref: v.ref,
  };
}

/** A page of `records` from `offset`, `num` long, with the next cursor. */
export function slicePage(
  records: RecordDraft[],
  offset: number,
  num: number,
  notes: string[] = [],
): SourcePage {
  return {
    records: records.slice(offset, offset + num),
    next: nextCursor(offset, num, records.length),
    ...(notes.length === 0 ? {} : { notes }),
  };
}

/** One verse of a chapter detail. */
export interface ChapterVerse {
  verse: number;
  text?: string;
  arabic?: string;
}

/** `details`: the whole chapter around a record (spec 4.6). */
export function chapterDetail(facts: {
  book: string;
  chapter: number;
  translation: string;
  translation_name?: string;
  source: string;
  verses: ChapterVerse[];
  /** What the chapter lacks (a translation's text), when it lacks something. */
  note?: string;
}): JsonObject {
  return defined({
    reference: `${facts.book} ${facts.chapter}`,
    book: facts.book,
    chapter: facts.chapter,
    translation: facts.translation,
    translation_name: facts.translation_name,
    verse_count: facts.verses.length,
    verses: facts.verses.map((v) => defined({ verse: v.verse, text: v.text, arabic: v.arabic })),
    source: facts.source,
    note: facts.note,
  });
}

export function link(label: string, url: string): Link {
  return { label, url };
}

/** Whitespace runs (bible-api's verse text carries newlines) → single spaces, trimmed. */
export function squeeze(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
