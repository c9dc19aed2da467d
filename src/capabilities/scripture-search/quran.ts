/**
 * quran.com API v4 mappers for scripture.search's `quran` variant (keyless; base URL
 * https://api.quran.com/api/v4). Requests: `GET /search` (q, size, page, translations) for a
 * full-text `query`, `GET /verses/by_key/{chapter:verse}` for one verse and `GET
 * /verses/by_chapter/{n}` (page, per_page ≤ 50) for a surah, both with `translations=<id>` and
 * `fields=text_uthmani`. Translation text comes as HTML (search hits wrap matches in `<em>`,
 * translations carry `<sup foot_note=…>` markers): tags and footnote markers are removed, nothing is
 * added. The Arabic is the verse's `text_uthmani` (the search's `text`), or, when only the words came
 * back, its words' `text_uthmani` joined; absent when the answer has neither. Pure, no I/O.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { arr, int, obj, str } from "../shared/read.ts";
import { surah } from "./books.ts";
import { type ChapterVerse, chapterDetail, link, squeeze, verseRecord } from "./verses.ts";

/** quran.com's own per_page ceiling for verse lists. */
export const QURAN_MAX_PER_PAGE = 50;

export function toQuranSearchRequest(
  q: string,
  translation: string,
  page: number,
  size: number,
): UpstreamRequest {
  return {
    provider: "quran",
    method: "GET",
    path: "/search",
    query: { q, size, page, translations: translation },
  };
}

export function toVerseRequest(chapter: number, verse: number, translation: string): UpstreamRequest {
  return {
    provider: "quran",
    method: "GET",
    path: `/verses/by_key/${chapter}:${verse}`,
    query: { translations: translation, fields: "text_uthmani" },
  };
}

export function toSurahRequest(
  chapter: number,
  translation: string,
  page: number,
  perPage: number,
): UpstreamRequest {
  return {
    provider: "quran",
    method: "GET",
    path: `/verses/by_chapter/${chapter}`,
    query: { translations: translation, fields: "text_uthmani", page, per_page: perPage },
  };
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

/** Translation HTML → plain text: footnote markers and their numbers dropped, tags removed, entities decoded. */
export function plainText(html: string): string {
  const noNotes = html.replace(/<sup\b[^>]*>[\s\S]*?<\/sup>/gi, "");
  const noTags = noNotes.replace(/<[^>]*>/g, "");
  const decoded = noTags.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code =
        name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
  return squeeze(decoded);
}

function badShape(what: string): ApiError {
  return new ApiError("provider_error", `quran.com answered ${what} in an unexpected shape.`);
}

/** A verse as quran.com gives it (verses endpoints and search hits). */
export interface QuranVerse {
  chapter: number;
  verse: number;
  /** The translation's plain text; absent when the answer holds none. */
  text?: string;
  /** The translation id the text is from. */
  translation?: string;
  arabic?: string;
}

/** The translation of `translation` in a verse's `translations`, else the first one given. */
function pickTranslation(list: unknown, translation: string): { text: string; id?: string } | undefined {
  const items = (arr(list) ?? []).map(obj).filter((t) => t !== undefined);
  const chosen = items.find((t) => String(int(t.resource_id)) === translation) ?? items[0];
  const raw = typeof chosen?.text === "string" ? plainText(chosen.text) : "";
  if (chosen === undefined || raw === "") return undefined;
  const id = int(chosen.resource_id);
  return { text: raw, ...(id === undefined ? {} : { id: String(id) }) };
}

/** The Arabic of a verse: `text_uthmani`, else its words' (`char_type_name` "word") joined. */
function arabicOf(v: Record<string, unknown>, field: "text_uthmani" | "text"): string | undefined {
  const own = str(v[field]);
  if (own !== undefined) return own;
  const words = (arr(v.words) ?? []).map(obj).filter((w) => w !== undefined && w.char_type_name === "word");
  const parts = words.map((w) => str(w!.text_uthmani));
  return parts.length > 0 && parts.every((p) => p !== undefined) ? parts.join(" ") : undefined;
}

function keyOf(value: unknown): { chapter: number; verse: number } | undefined {
  const m = /^(\d+):(\d+)$/.exec(str(value) ?? "");
  return m === null ? undefined : { chapter: Number(m[1]), verse: Number(m[2]) };
}

export function quranVerse(
  value: unknown,
  translation: string,
  arabicField: "text_uthmani" | "text" = "text_uthmani",
): QuranVerse | null {
  const v = obj(value);
  const key = keyOf(v?.verse_key);
  if (v === undefined || key === undefined) return null;
  const t = pickTranslation(v.translations, translation);
  const arabic = arabicOf(v, arabicField);
  return {
    ...key,
    ...(t === undefined ? {} : { text: t.text, translation: t.id ?? translation }),
    ...(arabic === undefined ? {} : { arabic }),
  };
}

/** A verse with its translation text → record; one without (the answer lacks it) → null. */
export function quranRecord(v: QuranVerse): RecordDraft | null {
  if (v.text === undefined || v.translation === undefined) return null;
  const name = surah(v.chapter)?.name ?? `Surah ${v.chapter}`;
  return verseRecord({
    title: `${name} ${v.chapter}:${v.verse}`,
    url: `https://quran.com/${v.chapter}/${v.verse}`,
    text: v.text,
    book: name,
    chapter: v.chapter,
    verse: v.verse,
    translation: v.translation,
    ...(v.arabic === undefined ? {} : { arabic: v.arabic }),
    ref: { source: "quran", chapter: v.chapter, verse: v.verse, translation: v.translation },
  });
}

export interface QuranList {
  verses: QuranVerse[];
  /** quran.com's next page, null when it announces none. */
  nextPage: number | null;
  total?: number;
}

/** `GET /verses/by_key/{key}` → its verse. */
export function toVerse(body: unknown, translation: string): QuranVerse {
  const v = quranVerse(obj(body)?.verse, translation);
  if (v === null) throw badShape("the verse");
  return v;
}

/** `GET /verses/by_chapter/{n}` → its verses and the next page. */
export function toSurahPage(body: unknown, translation: string): QuranList {
  const b = obj(body);
  const list = arr(b?.verses);
  if (b === undefined || list === undefined) throw badShape("the surah");
  const p = obj(b.pagination);
  const next = int(p?.next_page);
  const total = int(p?.total_records) ?? int(p?.["total_records="]);
  return {
    verses: list.map((v) => quranVerse(v, translation)).filter((v): v is QuranVerse => v !== null),
    nextPage: next === undefined ? null : next,
    ...(total === undefined ? {} : { total }),
  };
}

/** `GET /search` → its hits (the hit's `text` is the verse in Uthmani script) and the next page. */
export function toSearchPage(body: unknown, translation: string): QuranList {
  const s = obj(obj(body)?.search);
  const list = arr(s?.results);
  if (s === undefined || list === undefined) throw badShape("the search");
  const page = int(s.current_page) ?? 1;
  const pages = int(s.total_pages) ?? page;
  const total = int(s.total_results);
  return {
    verses: list.map((v) => quranVerse(v, translation, "text")).filter((v): v is QuranVerse => v !== null),
    nextPage: page < pages ? page + 1 : null,
    ...(total === undefined ? {} : { total }),
  };
}

/** Records of verses; a note when some verses came without translation text (left out, never invented). */
export function quranRecords(verses: readonly QuranVerse[]): { records: RecordDraft[]; notes: string[] } {
  const records = verses.map(quranRecord).filter((r): r is RecordDraft => r !== null);
  const missing = verses.length - records.length;
  const notes =
    missing === 0
      ? []
      : [
          `${missing} verse${missing === 1 ? "" : "s"} came without translation text from quran.com and ${missing === 1 ? "was" : "were"} left out.`,
        ];
  return { records, notes };
}

/** A surah's verses (all its pages) → the `details` answer. */
export function surahDetail(
  chapter: number,
  translation: string,
  verses: readonly QuranVerse[],
): { detail: JsonObject; links: Link[] } {
  const name = surah(chapter)?.name ?? `Surah ${chapter}`;
  const out: ChapterVerse[] = verses.map((v) => ({
    verse: v.verse,
    ...(v.text === undefined ? {} : { text: v.text }),
    ...(v.arabic === undefined ? {} : { arabic: v.arabic }),
  }));
  return {
    detail: chapterDetail({ book: name, chapter, translation, source: "quran.com API v4", verses: out }),
    links: [link(`${name} on quran.com`, `https://quran.com/${chapter}`)],
  };
}
