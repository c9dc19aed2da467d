/**
 * The `bible` variant's source and `details`: references through bible-api.com (one answer holds the
 * whole passage; pages are offsets over its verses, the answer cached a day so `more` does not spend
 * bible-api.com's 15-requests-per-30-s allowance again), full-text `query` over the shipped KJV
 * index, and `query` with `reference` in another translation as the passage's verses holding the
 * phrase; when bible-api.com fails, KJV references fall back to the shipped KJV. I/O only through the
 * context (upstream client, cache, loaded index).
 *
 * bible-api.com blocks an address for an hour after more than 10 not-found answers in 30 s, so a bad
 * reference must not reach it: a KJV reference is checked against the shipped KJV first (every verse
 * it names must exist: `400 invalid_request` at `/reference` otherwise, no request); in other
 * translations only book and chapter counts are checked (when parsing: versification differs between
 * translations, e.g. 3 John has 15 verses in the WEB and 14 in the KJV), and Quarry stops asking
 * bible-api.com for a while once it answered "not found" NOT_FOUND_LIMIT times within 30 s. A
 * reference bible-api.com does not serve (more than one whole chapter, or a range across more than
 * one chapter boundary) is answered from the shipped KJV for the KJV and refused for others.
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
import { type KjvIndex, kjvChapter, kjvIndex, kjvMissingVerse, kjvPassage, kjvPhrase, wordsOf } from "./kjv-index.ts";
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

/** bible-api.com's abuse block counts not-found answers over this window (its app.rb: 30 s). */
export const NOT_FOUND_WINDOW_MS = 30_000;
/**
 * Not-found answers within the window after which Quarry stops asking bible-api.com until the oldest
 * leaves it: a margin under bible-api.com's 10, for requests in flight and for other processes
 * sharing the deployment's address.
 */
export const NOT_FOUND_LIMIT = 6;

/** The times of bible-api.com's recent not-found answers to this process (one, kept in the context's loaded indexes). */
export class NotFoundWindow {
  private times: number[] = [];

  /** How long until another request may be sent (0: now). */
  waitMs(now: number): number {
    this.times = this.times.filter((t) => now - t < NOT_FOUND_WINDOW_MS);
    return this.times.length < NOT_FOUND_LIMIT ? 0 : this.times[0]! + NOT_FOUND_WINDOW_MS - now;
  }

  add(now: number): void {
    this.times.push(now);
  }
}

function notFoundWindow(ctx: Pick<CapabilityContext, "index">): Promise<NotFoundWindow> {
  return ctx.index("scripture.bibleapi-not-found", { refreshMs: Number.POSITIVE_INFINITY, loadTimeoutMs: 1_000 }, async () => new NotFoundWindow());
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
      const notFound = await notFoundWindow(ctx);
      const wait = notFound.waitMs(ctx.now().getTime());
      if (wait > 0) {
        throw new ApiError(
          "provider_error",
          `bible-api.com was not called: it answered "not found" ${NOT_FOUND_LIMIT} times in the last 30 s, and it blocks an address for an hour after more than 10.`,
          {
            retryAfter: Math.max(1, Math.ceil(wait / 1000)),
            hint: "Check the references (book, chapter and verse numbers of that translation) and retry after the wait. Nothing was charged.",
          },
        );
      }
      const response = await ctx.upstream.send(request, ctx.signal);
      if (response.status === 404) notFound.add(ctx.now().getTime());
      return toPassage(response.status, response.body, typed, translation);
    },
  );
}

/** A KJV reference naming a verse the KJV does not have: refused before any request (400 at /reference). */
function checkKjvVerses(index: KjvIndex, ref: BibleReference, typed: string): void {
  const missing = kjvMissingVerse(index, ref, bookNumber(ref.book), typed);
  if (missing !== undefined) {
    throw invalidRequest([{ path: "/reference", message: missing }], "The reference names a verse the translation does not have.");
  }
}

/**
 * Why bible-api.com would refuse the reference (its app.rb answers 400 "too many chapters"): a range
 * of whole chapters, or a range across more than one chapter boundary; undefined when it serves it.
 */
export function beyondBibleApi(ref: BibleReference): string | undefined {
  if (ref.toChapter === undefined) return undefined;
  if (ref.verse === undefined) return "bible-api.com serves one whole chapter at a time, not a range of chapters";
  if (ref.toChapter - ref.chapter > 1) return "bible-api.com serves verse ranges across at most one chapter boundary (John 3:16-4:1, not John 3:16-5:1)";
  return undefined;
}

/** Primary failures by call (the context), so the KJV fallback's refusal of another translation is as retryable as the failure it follows. */
const primaryFailures = new WeakMap<object, ApiError>();

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
  providers: ["bibleapi"],
  async search(ctx, query, cursor): Promise<SourcePage> {
    const offset = offsetOf(cursor);
    const translation = bibleTranslation(query);
    const ref = referenceOf(query);
    const kjv = translation === DEFAULT_BIBLE_TRANSLATION;
    const index = kjv ? await kjvIndex(ctx) : undefined;
    if (index !== undefined && ref !== undefined) checkKjvVerses(index, ref, query.reference!);
    if (query.query !== undefined && index !== undefined) {
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
    const beyond = beyondBibleApi(ref);
    if (beyond !== undefined) {
      if (index !== undefined) {
        const verses = kjvPassage(index, ref, bookNumber(ref.book));
        return slicePage(verses.map(kjvRecord), offset, query.num, [
          `Answered by the public-domain KJV shipped with Quarry: ${beyond}.`,
        ]);
      }
      throw invalidRequest(
        [{ path: "/reference", message: `${beyond}; ask for a shorter passage of ${JSON.stringify(query.reference)}, or leave translation out (the KJV is answered from the text shipped with Quarry)` }],
        "bible-api.com does not serve a passage this long.",
      );
    }
    let found: BibleApiPassage;
    try {
      found = await passage(ctx, ref, translation, query.reference!);
    } catch (err) {
      if (err instanceof ApiError) primaryFailures.set(ctx, err);
      throw err;
    }
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
  // No provider: the text ships with Quarry.
  providers: [],
  async search(ctx, query, cursor): Promise<SourcePage> {
    const ref = referenceOf(query);
    if (ref === undefined || bibleTranslation(query) !== DEFAULT_BIBLE_TRANSLATION) {
      // Not an alternative for this translation: the chain's answer is as retryable as bible-api.com's
      // failure, after the same wait.
      const primary = primaryFailures.get(ctx);
      throw new ApiError("provider_error", `it holds only the KJV, not "${bibleTranslation(query)}".`, {
        retryable: primary?.retryable ?? true,
        ...(primary?.retryAfter === undefined ? {} : { retryAfter: primary.retryAfter }),
      });
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
