/**
 * The `quran` variant's source and `details` (translation 131 by default): the keyless api.quran.com
 * v4, or, when this deployment has a Quran Foundation API client (QURAN_CLIENT_ID and
 * QURAN_CLIENT_SECRET), the Quran Foundation's Content and Search APIs (quran.ts). Offset paging maps
 * onto the provider's pages (page = offset / num + 1, size or per_page = num: offsets move by `num`,
 * and `update` resets them). A full-text `query` through the Search API finds verse keys; each
 * verse's text is then read from the Content API (cached a day, a few at a time). `query` with
 * `reference`: the passage's verses whose translation holds the phrase (or whose Arabic holds it as
 * typed). A surah's verses are fetched 50 at a time and cached a day, for `details` and scoped
 * queries. I/O only through the context.
 */
import type { Config } from "../../config.ts";
import { invalidRequest } from "../../errors.ts";
import type { ActionOutput, RecordView, Source } from "../framework/define.ts";
import type { CapabilityContext, SourcePage } from "../types.ts";
import { DEFAULT_QURAN_TRANSLATION, surah } from "./books.ts";
import { wordsOf } from "./kjv-index.ts";
import {
  QURAN_MAX_PER_PAGE,
  type QuranApi,
  type QuranVerse,
  quranRecords,
  surahDetail,
  toFoundationHits,
  toFoundationSearchRequest,
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

/** Verses of a Search API page read from the Content API at once. */
const VERSES_AT_ONCE = 5;

export function quranTranslation(query: Pick<ScriptureQuery, "translation">): string {
  return query.translation ?? DEFAULT_QURAN_TRANSLATION;
}

/** The Quran Foundation's API when this deployment has its client (both variables set), else the keyless API. */
export function quranApi(config: Pick<Config, "providers">): QuranApi {
  return config.providers.quran?.client === undefined ? "keyless" : "foundation";
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
  const api = quranApi(ctx.config);
  return ctx.cache.getOrLoad("scripture.quran", `${translation} ${chapter}`, { ttlMs: DAY_MS }, async () => {
    const pages = Math.ceil((surah(chapter)?.verses ?? QURAN_MAX_PER_PAGE) / QURAN_MAX_PER_PAGE);
    const verses: QuranVerse[] = [];
    for (let page = 1; page <= pages; page++) {
      const response = await ctx.upstream.send(
        toSurahRequest(chapter, translation, page, QURAN_MAX_PER_PAGE, api),
        ctx.signal,
      );
      const list = toSurahPage(response.body, translation);
      verses.push(...list.verses);
      if (list.nextPage === null) break;
    }
    return verses;
  });
}

/** One verse, cached a day. */
function oneVerse(
  ctx: CapabilityContext,
  chapter: number,
  verse: number,
  translation: string,
): Promise<QuranVerse> {
  const api = quranApi(ctx.config);
  return ctx.cache.getOrLoad("scripture.quran-verse", `${translation} ${chapter}:${verse}`, { ttlMs: DAY_MS }, async () => {
    const response = await ctx.upstream.send(toVerseRequest(chapter, verse, translation, api), ctx.signal);
    return toVerse(response.body, translation);
  });
}

/** Verses by key, in order, `VERSES_AT_ONCE` requests at a time. */
async function versesByKey(
  ctx: CapabilityContext,
  keys: readonly { chapter: number; verse: number }[],
  translation: string,
): Promise<QuranVerse[]> {
  const out: QuranVerse[] = [];
  for (let i = 0; i < keys.length; i += VERSES_AT_ONCE) {
    const batch = keys.slice(i, i + VERSES_AT_ONCE);
    out.push(...(await Promise.all(batch.map((k) => oneVerse(ctx, k.chapter, k.verse, translation)))));
  }
  return out;
}

/** A full-text search page: the keyless API's `/search`, or the Search API's hits read from the Content API. */
async function searchPage(ctx: CapabilityContext, q: string, translation: string, page: number, num: number): Promise<{ verses: QuranVerse[]; nextPage: number | null }> {
  if (quranApi(ctx.config) === "keyless") {
    const response = await ctx.upstream.send(toQuranSearchRequest(q, translation, page, num), ctx.signal);
    return toSearchPage(response.body, translation);
  }
  const response = await ctx.upstream.send(toFoundationSearchRequest(q, translation, page, num), ctx.signal);
  const hits = toFoundationHits(response.body);
  return { verses: await versesByKey(ctx, hits.keys.slice(0, num), translation), nextPage: hits.nextPage };
}

export const quranSource: Source<ScriptureQuery> = {
  id: "quran",
  title: "quran.com",
  providers: ["quran"],
  async search(ctx, query, cursor): Promise<SourcePage> {
    const offset = offsetOf(cursor);
    const translation = quranTranslation(query);
    const ref = referenceOf(query);
    const page = Math.floor(offset / query.num) + 1;
    if (ref === undefined) {
      // The rules refuse a request with neither field: here `query` is given.
      const list = await searchPage(ctx, query.query!, translation, page, query.num);
      const { records, notes } = quranRecords(list.verses, translation);
      const more = list.nextPage !== null && list.verses.length > 0;
      return {
        records: records.slice(0, query.num),
        next: more ? { offset: offset + query.num } : null,
        ...(notes.length ? { notes } : {}),
      };
    }
    if (query.query === undefined && ref.verse !== undefined) {
      if (offset > 0) return { records: [], next: null };
      const { records, notes } = quranRecords([await oneVerse(ctx, ref.chapter, ref.verse, translation)], translation);
      return { records, next: null, ...(notes.length ? { notes } : {}) };
    }
    if (query.query === undefined) {
      const response = await ctx.upstream.send(
        toSurahRequest(ref.chapter, translation, page, query.num, quranApi(ctx.config)),
        ctx.signal,
      );
      const list = toSurahPage(response.body, translation);
      const { records, notes } = quranRecords(list.verses, translation);
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
    // Refused here when the translation has no text for any of the passage's verses (never an empty page).
    quranRecords(verses, translation);
    const needle = wordsOf(query.query);
    const typed = query.query.trim();
    const hits = verses.filter(
      (v) => wordsOf(v.text ?? "").includes(needle) || (v.arabic ?? "").includes(typed),
    );
    const { records } = quranRecords(
      hits.filter((v) => v.text !== undefined),
      translation,
    );
    const missing = verses.filter((v) => v.text === undefined).length;
    const where = ref.verse === undefined ? `surah ${ref.chapter}` : `${ref.chapter}:${ref.verse}`;
    return slicePage(records, offset, query.num, [
      `${records.length} verse${records.length === 1 ? "" : "s"} of ${where} ${records.length === 1 ? "holds" : "hold"} the phrase.`,
      ...(missing === 0
        ? []
        : [`${missing} of its verses came without text of translation ${translation} from quran.com and ${missing === 1 ? "was" : "were"} not searched in it.`]),
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
