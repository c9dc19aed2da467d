/**
 * The public-domain King James Version shipped with Quarry (data/kjv.tsv.gz, 31,102 verses; where
 * it comes from and how it was made: data/README.md), for scripture.search's full-text `query` in
 * the Bible (bible-api.com has no search) and for the chapters of KJV records' `details`.
 *
 * Loaded once per process through the capability context's loaded indexes (`ctx.index`, never a
 * module global), on first use: read + gunzip + parse, measured at 150-700 ms on the 2-core
 * development machine (quiet to loaded), 14 MB of heap; a phrase search over every verse then takes
 * 5-20 ms (docs/providers.md, "scripture.search"). `parseKjv` and the searches are pure.
 */
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import type { CapabilityContext } from "../types.ts";
import { BIBLE_BOOKS, type BibleBook } from "./books.ts";
import { type BibleReference, withinBibleReference } from "./references.ts";

export const KJV_FILE = new URL("./data/kjv.tsv.gz", import.meta.url);

export interface KjvVerse {
  /** 1-based book number, canonical order (BIBLE_BOOKS). */
  book: number;
  chapter: number;
  verse: number;
  text: string;
  /** Lower-case words of `text`, single spaces, padded with a space at each end (phrase search). */
  words: string;
}

export interface KjvIndex {
  verses: readonly KjvVerse[];
  /** `book:chapter` → [first, end) positions in `verses`. */
  chapters: ReadonlyMap<string, readonly [number, number]>;
}

/** Text → its lower-case words joined by single spaces, padded (" love one another "). */
export function wordsOf(text: string): string {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? [];
  return ` ${words.join(" ")} `;
}

/** `book\tchapter\tverse\ttext` lines, canonical order → the index. */
export function parseKjv(tsv: string): KjvIndex {
  const verses: KjvVerse[] = [];
  const chapters = new Map<string, [number, number]>();
  for (const line of tsv.split("\n")) {
    if (line === "") continue;
    const [b, c, v, text] = line.split("\t");
    const verse: KjvVerse = {
      book: Number(b),
      chapter: Number(c),
      verse: Number(v),
      text: text ?? "",
      words: wordsOf(text ?? ""),
    };
    if (
      !Number.isInteger(verse.book) ||
      !Number.isInteger(verse.chapter) ||
      !Number.isInteger(verse.verse) ||
      verse.text === ""
    ) {
      throw new Error(`KJV index: malformed line ${JSON.stringify(line.slice(0, 60))}`);
    }
    const key = `${verse.book}:${verse.chapter}`;
    const at = chapters.get(key);
    if (at === undefined) chapters.set(key, [verses.length, verses.length + 1]);
    else at[1] = verses.length + 1;
    verses.push(verse);
  }
  return { verses, chapters };
}

/** The index, loaded on first use and kept by the context's indexes (it never changes: no refresh). */
export function kjvIndex(ctx: Pick<CapabilityContext, "index">): Promise<KjvIndex> {
  return ctx.index(
    "scripture.kjv",
    { refreshMs: Number.POSITIVE_INFINITY, loadTimeoutMs: 30_000 },
    async () => {
      const gz = await readFile(KJV_FILE);
      const tsv = (await promisify(gunzip)(gz)).toString("utf8");
      return parseKjv(tsv);
    },
  );
}

export function bookOf(verse: KjvVerse): BibleBook {
  return BIBLE_BOOKS[verse.book - 1]!;
}

/** The verses of a chapter (empty when the index has no such chapter). */
export function kjvChapter(index: KjvIndex, book: number, chapter: number): readonly KjvVerse[] {
  const at = index.chapters.get(`${book}:${chapter}`);
  return at === undefined ? [] : index.verses.slice(at[0], at[1]);
}

/** The verses a reference covers, in order. */
export function kjvPassage(index: KjvIndex, ref: BibleReference, book: number): KjvVerse[] {
  const out: KjvVerse[] = [];
  for (let ch = ref.chapter; ch <= (ref.toChapter ?? ref.chapter); ch++) {
    for (const v of kjvChapter(index, book, ch))
      if (withinBibleReference(ref, v.chapter, v.verse)) out.push(v);
  }
  return out;
}

/**
 * Verses holding `phrase` (its words in order, adjacent; case and punctuation ignored), in canonical
 * order, within `among` when given. A phrase without words matches nothing.
 */
export function kjvPhrase(index: KjvIndex, phrase: string, among?: readonly KjvVerse[]): KjvVerse[] {
  const needle = wordsOf(phrase);
  if (needle.trim() === "") return [];
  return (among ?? index.verses).filter((v) => v.words.includes(needle));
}

/**
 * Why the KJV has no passage for `ref`: a verse past the end of its chapter (the start of the
 * reference, or the end of its range), in words for a violation; undefined when every verse it names
 * exists. Book and chapter counts are checked when the reference is parsed (references.ts).
 */
export function kjvMissingVerse(index: KjvIndex, ref: BibleReference, book: number, typed: string): string | undefined {
  const past = (chapter: number, verse: number | undefined): string | undefined => {
    if (verse === undefined) return undefined;
    const count = kjvChapter(index, book, chapter).length;
    return verse <= count
      ? undefined
      : `${ref.book.name} ${chapter} has ${count} verse${count === 1 ? "" : "s"} in the King James Version; ${JSON.stringify(typed)} asks for verse ${verse}`;
  };
  return past(ref.chapter, ref.verse) ?? past(ref.toChapter ?? ref.chapter, ref.toVerse);
}
