/**
 * The `quran` variant's source and `details` (quran.com API v4, translation 131 by default). Offset
 * paging maps onto quran.com's pages (page = offset / num + 1, size or per_page = num: offsets move
 * by `num`, and `update` resets them). `query` with `reference`: the passage's verses whose
 * translation holds the phrase (or whose Arabic holds it as typed). A surah's verses are fetched 50
 * at a time and cached a day, for `details` and scoped queries. I/O only through the context.
 */
import { invalidRequest } from "../../errors.ts";
import type { ActionOutput, RecordView, Source } from "../framework/define.ts";
import type { CapabilityContext, SourcePage } from "../types.ts";
import { DEFAULT_QURAN_TRANSLATION, surah } from "./books.ts";
import { wordsOf } from "./kjv-index.ts";
import {
  QURAN_MAX_PER_PAGE,
  type QuranVerse,
  quranRecords,
  surahDetail,
  toQuranSearchRequest,
  toSearchPage,
  toSurahPage,
  toSurahRequest,
  toVerse,
  toVerseRequest,
} from "./quran.ts";
import { parseQuranReference, type QuranReference } from "./references.ts";
import type { ScriptureQuery } from "./schema.ts";
import { offsetOf, slicePage } from "./verses.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

export function quranTranslation(query: Pick<ScriptureQuery, "translation">): string {
  return query.translation ?? DEFAULT_QURAN_TRANSLATION;
}

function referenceOf(query: ScriptureQuery): QuranReference | undefined {
  if (query.reference === undefined) return undefined;
  const parsed = parseQuranReference(query.reference);
  if (!parsed.ok) throw invalidRequest([{ path: "/reference", message: parsed.message }]);
  return parsed.ref;
}

/** Every verse of surah `chapter` (pages of 50), cached a day. */
export function surahVerses(
  ctx: CapabilityContext,
  chapter: number,
  translation: string,
): Promise<QuranVerse[]> {
  return ctx.cache.getOrLoad("scripture.quran", `${translation} ${chapter}`, { ttlMs: DAY_MS }, async () => {
    const pages = Math.ceil((surah(chapter)?.verses ?? QURAN_MAX_PER_PAGE) / QURAN_MAX_PER_PAGE);
    const verses: QuranVerse[] = [];
    for (let page = 1; page <= pages; page++) {
      const response = await ctx.upstream.send(
        toSurahRequest(chapter, translation, page, QURAN_MAX_PER_PAGE),
        ctx.signal,
      );
      const list = toSurahPage(response.body, translation);
      verses.push(...list.verses);
      if (list.nextPage === null) break;
    }
    return verses;
  });
}

async function oneVerse(
  ctx: CapabilityContext,
  chapter: number,
  verse: number,
  translation: string,
): Promise<QuranVerse> {
  const response = await ctx.upstream.send(toVerseRequest(chapter, verse, translation), ctx.signal);
  return toVerse(response.body, translation);
}

export const quranSource: Source<ScriptureQuery> = {
  id: "quran",
  title: "quran.com",
  async search(ctx, query, cursor): Promise<SourcePage> {
    const offset = offsetOf(cursor);
    const translation = quranTranslation(query);
    const ref = referenceOf(query);
    const page = Math.floor(offset / query.num) + 1;
    if (ref === undefined) {
      // The rules refuse a request with neither field: here `query` is given.
      const response = await ctx.upstream.send(
        toQuranSearchRequest(query.query!, translation, page, query.num),
        ctx.signal,
      );
      const list = toSearchPage(response.body, translation);
      const { records, notes } = quranRecords(list.verses);
      const more = list.nextPage !== null && list.verses.length > 0;
      return {
        records: records.slice(0, query.num),
        next: more ? { offset: offset + query.num } : null,
        ...(notes.length ? { notes } : {}),
      };
    }
    if (query.query === undefined && ref.verse !== undefined) {
      if (offset > 0) return { records: [], next: null };
      const { records, notes } = quranRecords([await oneVerse(ctx, ref.chapter, ref.verse, translation)]);
      return { records, next: null, ...(notes.length ? { notes } : {}) };
    }
    if (query.query === undefined) {
      const response = await ctx.upstream.send(
        toSurahRequest(ref.chapter, translation, page, query.num),
        ctx.signal,
      );
      const list = toSurahPage(response.body, translation);
      const { records, notes } = quranRecords(list.verses);
      const more = list.nextPage !== null && list.verses.length > 0;
      return {
        records: records.slice(0, query.num),
        next: more ? { offset: offset + query.num } : null,
        ...(notes.length ? { notes } : {}),
      };
    }
    const verses =
      ref.verse === undefined
        ? await surahVerses(ctx, ref.chapter, translation)
        : [await oneVerse(ctx, ref.chapter, ref.verse, translation)];
    const needle = wordsOf(query.query);
    const typed = query.query.trim();
    const hits = verses.filter(
      (v) => wordsOf(v.text ?? "").includes(needle) || (v.arabic ?? "").includes(typed),
    );
    const { records, notes } = quranRecords(hits);
    const where = ref.verse === undefined ? `surah ${ref.chapter}` : `${ref.chapter}:${ref.verse}`;
    return slicePage(records, offset, query.num, [
      `${records.length} verse${records.length === 1 ? "" : "s"} of ${where} ${records.length === 1 ? "holds" : "hold"} the phrase.`,
      ...notes,
    ]);
  },
};

/** `details` of a Quran record: its whole surah. */
export async function quranChapter(
  ctx: CapabilityContext,
  record: RecordView<ScriptureQuery>,
): Promise<ActionOutput> {
  const r = record.ref ?? {};
  const chapter = typeof r.chapter === "number" && surah(r.chapter) !== undefined ? r.chapter : undefined;
  const translation = typeof r.translation === "string" ? r.translation : undefined;
  if (chapter === undefined || translation === undefined) {
    throw invalidRequest([
      { path: "/record_id", message: "The record carries no surah and translation to fetch its chapter." },
    ]);
  }
  return surahDetail(chapter, translation, await surahVerses(ctx, chapter, translation));
}
