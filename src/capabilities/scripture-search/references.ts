/**
 * Parsing `reference` before any request (spec 4.6: an unparseable reference or an unknown book is
 * refused with a violation). Bible: `Book chapter`, `Book chapter:verse`, `Book chapter:verse-verse`,
 * `Book chapter:verse-chapter:verse` or `Book chapter-chapter`, the book by name or a common
 * abbreviation; in a one-chapter book (Obadiah, Philemon, 2 and 3 John, Jude) `Jude 5` is verse 5,
 * as bible-api.com reads it. Quran: `chapter:verse` or `chapter` (surah 1-114, the verse within the
 * surah's length). Pure.
 */
import { type BibleBook, findBook, surah } from "./books.ts";

export interface BibleReference {
  book: BibleBook;
  chapter: number;
  /** Absent: the whole chapter (or chapters up to `toChapter`). */
  verse?: number;
  /** The range's end (same chapter unless `toChapter`). */
  toVerse?: number;
  toChapter?: number;
}

export interface QuranReference {
  chapter: number;
  /** Absent: the whole surah. */
  verse?: number;
}

/** A parsed reference, or why it is refused (the violation's message). */
export type Parsed<T> = { ok: true; ref: T } | { ok: false; message: string };

const BIBLE_SHAPE =
  'expected "Book chapter[:verse[-verse]]", e.g. "John 3:16", "Psalm 23" or "Romans 8:28-39"';

/** `Book` then the locator: the book may start with 1-3 and holds letters, spaces, dots and apostrophes. */
const BIBLE_PATTERN =
  /^((?:[1-3]\s*)?[A-Za-z][A-Za-z .']*?)\s*(\d+)(?:\s*[:.]\s*(\d+))?(?:\s*[-–]\s*(\d+)(?:\s*[:.]\s*(\d+))?)?$/;

export function parseBibleReference(text: string): Parsed<BibleReference> {
  const m = BIBLE_PATTERN.exec(text.trim());
  if (m === null)
    return { ok: false, message: `cannot read ${JSON.stringify(text)} as a Bible reference; ${BIBLE_SHAPE}` };
  const [, bookText, a, b, c, d] = m as unknown as [
    string,
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  const book = findBook(bookText);
  if (book === undefined) {
    return {
      ok: false,
      message: `unknown book ${JSON.stringify(bookText.trim())}; give a book of the 66-book canon by name or common abbreviation (e.g. "Genesis", "1 Cor", "Ps")`,
    };
  }
  let chapter = Number(a);
  let verse = b === undefined ? undefined : Number(b);
  let toVerse: number | undefined;
  let toChapter: number | undefined;
  if (c !== undefined) {
    if (d !== undefined) {
      // chapter:verse-chapter:verse
      if (verse === undefined)
        return {
          ok: false,
          message: `cannot read ${JSON.stringify(text)}: a range to chapter:verse needs a starting verse; ${BIBLE_SHAPE}`,
        };
      toChapter = Number(c);
      toVerse = Number(d);
    } else if (verse !== undefined) toVerse = Number(c);
    else toChapter = Number(c);
  }
  // In a one-chapter book a lone number is the verse ("Jude 5"), as bible-api.com reads it.
  if (book.chapters === 1 && verse === undefined && toChapter === undefined) {
    verse = chapter;
    chapter = 1;
  } else if (book.chapters === 1 && verse === undefined && toChapter !== undefined) {
    verse = chapter;
    toVerse = toChapter;
    chapter = 1;
    toChapter = undefined;
  }
  const numbers = [chapter, verse, toVerse, toChapter].filter((n): n is number => n !== undefined);
  if (numbers.some((n) => n < 1))
    return { ok: false, message: `chapters and verses start at 1 in ${JSON.stringify(text)}` };
  for (const ch of [chapter, toChapter]) {
    if (ch !== undefined && ch > book.chapters) {
      return {
        ok: false,
        message: `${book.name} has ${book.chapters} chapter${book.chapters === 1 ? "" : "s"}; ${JSON.stringify(text)} asks for chapter ${ch}`,
      };
    }
  }
  const endChapter = toChapter ?? chapter;
  if (
    endChapter < chapter ||
    (endChapter === chapter && toVerse !== undefined && verse !== undefined && toVerse < verse)
  ) {
    return { ok: false, message: `the range in ${JSON.stringify(text)} ends before it starts` };
  }
  if (toChapter === chapter && toVerse === undefined) toChapter = undefined;
  return {
    ok: true,
    ref: {
      book,
      chapter,
      ...(verse === undefined ? {} : { verse }),
      ...(toVerse === undefined || (toVerse === verse && toChapter === undefined) ? {} : { toVerse }),
      ...(toChapter === undefined ? {} : { toChapter }),
    },
  };
}

/** The reference as bible-api.com reads it, lower case (its documented form): `john 3:16-18`. */
export function bibleApiReference(ref: BibleReference): string {
  let out = `${ref.book.name.toLowerCase()} ${ref.chapter}`;
  if (ref.verse !== undefined) out += `:${ref.verse}`;
  if (ref.toChapter !== undefined)
    out += `-${ref.toChapter}${ref.toVerse === undefined ? "" : `:${ref.toVerse}`}`;
  else if (ref.toVerse !== undefined) out += `-${ref.toVerse}`;
  return out;
}

/** The reference as people write it: `John 3:16-18`. */
export function displayBibleReference(ref: BibleReference): string {
  const lower = bibleApiReference(ref);
  return ref.book.name + lower.slice(ref.book.name.length);
}

/** Whether verse `chapter:verse` lies inside the reference. */
export function withinBibleReference(ref: BibleReference, chapter: number, verse: number): boolean {
  const endChapter = ref.toChapter ?? ref.chapter;
  if (chapter < ref.chapter || chapter > endChapter) return false;
  if (chapter === ref.chapter && ref.verse !== undefined && verse < ref.verse) return false;
  if (chapter === endChapter) {
    const last = ref.toVerse ?? (ref.toChapter === undefined ? ref.verse : undefined);
    if (last !== undefined && verse > last) return false;
  }
  return true;
}

const QURAN_SHAPE = 'expected "chapter:verse" or "chapter", e.g. "2:255" or "112"';

export function parseQuranReference(text: string): Parsed<QuranReference> {
  const m = /^(\d{1,3})(?:\s*:\s*(\d{1,3}))?$/.exec(text.trim());
  if (m === null)
    return { ok: false, message: `cannot read ${JSON.stringify(text)} as a Quran reference; ${QURAN_SHAPE}` };
  const chapter = Number(m[1]);
  const s = surah(chapter);
  if (s === undefined)
    return { ok: false, message: `there is no surah ${chapter}; surahs are numbered 1-114` };
  if (m[2] === undefined) return { ok: true, ref: { chapter } };
  const verse = Number(m[2]);
  if (verse < 1 || verse > s.verses) {
    return {
      ok: false,
      message: `surah ${chapter} (${s.name}) has ${s.verses} verses; ${JSON.stringify(text)} asks for verse ${verse}`,
    };
  }
  return { ok: true, ref: { chapter, verse } };
}
