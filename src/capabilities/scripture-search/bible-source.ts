/**
 * The `bible` variant's source and `details`: references through bible-api.com (one answer holds the
 * whole passage; pages are offsets over its verses, the answer cached a day so `more` does not spend
 * bible-api.com's 15-requests-per-30-s allowance again), full-text `query` over the shipped KJV
 * index, and `query` with `reference` in another translation as the passage's verses holding the
 * phrase; when bible-api.com fails, KJV references fall back to the shipped KJV. I/O only through the
 * context (upstream client, cache, loaded index).
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import type { ActionOutput, RecordView, Source } from "../framework/define.ts";
import type { CapabilityContext, SourcePage } from "../types.ts";
import {
  type BibleApiPassage,
  bibleApiRecord,
  bookById,
  kjvChapterDetail,
  kjvRecord,
  toChapterDetail,
  toChapterRequest,
  toPassage,
  toPassageRequest,
} from "./bibleapi.ts";
import { bookNumber, DEFAULT_BIBLE_TRANSLATION } from "./books.ts";
import { kjvChapter, kjvIndex, kjvPassage, kjvPhrase, wordsOf } from "./kjv-index.ts";
import { type BibleReference, displayBibleReference, parseBibleReference } from "./references.ts";
import type { ScriptureQuery } from "./schema.ts";
import { offsetOf, slicePage } from "./verses.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The request's Bible translation code, lower case as bible-api.com lists it (default KJV). */
export function bibleTranslation(query: Pick<ScriptureQuery, "translation">): string {
  return (query.translation ?? DEFAULT_BIBLE_TRANSLATION).toLowerCase();
}

/** The parsed reference (the rules refused unparseable ones before the call). */
function referenceOf(query: ScriptureQuery): BibleReference | undefined {
  if (query.reference === undefined) return undefined;
  const parsed = parseBibleReference(query.reference);
  if (!parsed.ok) throw invalidRequest([{ path: "/reference", message: parsed.message }]);
  return parsed.ref;
}

async function passage(
  ctx: CapabilityContext,
  ref: BibleReference,
  translation: string,
  typed: string,
): Promise<BibleApiPassage> {
  const request = toPassageRequest(ref, translation);
  return ctx.cache.getOrLoad(
    "scripture.bibleapi",
    `${translation} ${request.path}`,
    { ttlMs: DAY_MS },
    async () => {
      const response = await ctx.upstream.send(request, ctx.signal);
      return toPassage(response.status, response.body, typed, translation);
    },
  );
}

function kjvNote(hits: number, ref: BibleReference | undefined): string {
  const where = ref === undefined ? "" : ` within ${displayBibleReference(ref)}`;
  return (
    `Full-text search over the public-domain King James Version shipped with Quarry (bible-api.com has no search): ` +
    `${hits} verse${hits === 1 ? " holds" : "s hold"} the phrase${where}.`
  );
}

export const bibleSource: Source<ScriptureQuery> = {
  id: "bible",
  title: "bible-api.com",
  async search(ctx, query, cursor): Promise<SourcePage> {
    const offset = offsetOf(cursor);
    const translation = bibleTranslation(query);
    const ref = referenceOf(query);
    if (query.query !== undefined && translation === DEFAULT_BIBLE_TRANSLATION) {
      const index = await kjvIndex(ctx);
      const among = ref === undefined ? undefined : kjvPassage(index, ref, bookNumber(ref.book));
      const hits = kjvPhrase(index, query.query, among);
      return slicePage(hits.map(kjvRecord), offset, query.num, [kjvNote(hits.length, ref)]);
    }
    // The rules refuse a whole-Bible `query` in another translation, and a request with neither field.
    if (ref === undefined)
      throw new ApiError(
        "internal_error",
        "scripture.search: a Bible search without a reference reached bible-api.com.",
      );
    const found = await passage(ctx, ref, translation, query.reference!);
    let verses = found.verses;
    const notes: string[] = [];
    if (query.query !== undefined) {
      const needle = wordsOf(query.query);
      verses = verses.filter((v) => wordsOf(v.text).includes(needle));
      notes.push(
        `${verses.length} verse${verses.length === 1 ? "" : "s"} of ${displayBibleReference(ref)} (${found.translation_id}) ${verses.length === 1 ? "holds" : "hold"} the phrase.`,
      );
    }
    return slicePage(
      verses.map((v) => bibleApiRecord(v, found.translation_id)),
      offset,
      query.num,
      notes,
    );
  },
};

/**
 * The fallback when bible-api.com fails (an error, a timeout, or its 15-per-30-s turn coming after the
 * deadline): a KJV reference is answered from the shipped KJV, the same translation. Other
 * translations it cannot answer (the answer then names both failures).
 */
export const kjvFallbackSource: Source<ScriptureQuery> = {
  id: "kjv-index",
  title: "the public-domain KJV shipped with Quarry",
  async search(ctx, query, cursor): Promise<SourcePage> {
    const ref = referenceOf(query);
    if (ref === undefined || bibleTranslation(query) !== DEFAULT_BIBLE_TRANSLATION) {
      throw new ApiError("provider_error", `it holds only the KJV, not "${bibleTranslation(query)}".`);
    }
    const index = await kjvIndex(ctx);
    const passage = kjvPassage(index, ref, bookNumber(ref.book));
    const verses = query.query === undefined ? passage : kjvPhrase(index, query.query, passage);
    // A refusal here would lose its violation in the chain's combined error: the failure names both.
    if (passage.length === 0)
      throw new ApiError("provider_error", `it has no passage ${JSON.stringify(query.reference)} either.`);
    return slicePage(verses.map(kjvRecord), offsetOf(cursor), query.num);
  },
};

/** `details` of a Bible record: its chapter, from the KJV index (KJV records) or bible-api.com. */
export async function bibleChapter(
  ctx: CapabilityContext,
  record: RecordView<ScriptureQuery>,
): Promise<ActionOutput> {
  const r = record.ref ?? {};
  const bookId = typeof r.book_id === "string" ? r.book_id : undefined;
  const book = bookId === undefined ? undefined : bookById(bookId);
  const chapter = typeof r.chapter === "number" ? r.chapter : undefined;
  const translation = typeof r.translation === "string" ? r.translation : undefined;
  if (book === undefined || chapter === undefined || translation === undefined) {
    throw invalidRequest([
      {
        path: "/record_id",
        message: "The record carries no book, chapter and translation to fetch its chapter.",
      },
    ]);
  }
  // KJV chapters come from the shipped text, the same translation, whichever source found the verse.
  if (translation === DEFAULT_BIBLE_TRANSLATION) {
    const index = await kjvIndex(ctx);
    return {
      ...kjvChapterDetail(kjvChapter(index, bookNumber(book), chapter), book, chapter),
      billed: false,
    };
  }
  const request = toChapterRequest(book.id, chapter, translation);
  return ctx.cache.getOrLoad(
    "scripture.bibleapi",
    `${translation} ${request.path}`,
    { ttlMs: DAY_MS },
    async () => {
      const response = await ctx.upstream.send(request, ctx.signal);
      return toChapterDetail(response.body, book.id, chapter, translation);
    },
  );
}
