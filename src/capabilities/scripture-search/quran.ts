/**
 * Quran mappers for scripture.search's `quran` variant, over two APIs of the same verses:
 * - keyless, the api.quran.com v4 API (QURAN_BASE_URL): `GET /search` (q, size, page, translations)
 *   for a full-text `query`, `GET /verses/by_key/{chapter:verse}` for one verse and `GET
 *   /verses/by_chapter/{n}` (page, per_page ≤ 50) for a surah, both with `translations=<id>` and
 *   `fields=text_uthmani`;
 * - with a Quran Foundation API client (QURAN_CLIENT_ID and QURAN_CLIENT_SECRET), the Quran
 *   Foundation's Content API for the same verse requests (same paths, parameters and answers: the
 *   upstream client sends them there with its token, src/upstream/client-credentials.ts) and its Search
 *   API (`GET /api/v1/search`, mode=advanced, query, page, size, translation_ids) for a full-text
 *   `query`: its hits name verses (`result.verses[].key`), whose translation text is then read verse
 *   by verse from the Content API (quran-source.ts). The Content API no longer has `/search` (moved to
 *   the Search API in January 2026).
 * Every answer is declared (`quranVerseAnswer`, `quranSurahPage`, `quranSearchAnswer`,
 * `foundationSearchAnswer`): a verse without its `verse_key`, a list under another name, a retyped
 * field are drift. Translation text comes as HTML (search hits wrap matches in `<em>`, translations
 * carry `<sup foot_note=…>` markers): tags and footnote markers are removed, nothing is added. The
 * Arabic is the verse's `text_uthmani` (the legacy search's `text`), or, when only the words came back,
 * its words' `text_uthmani` joined; absent when the answer has neither. A verse without text of the
 * translation is never a record: some missing are left out with a note naming them, all missing is a
 * `400` at `/translation` (translation 131, the default, was withdrawn in 2025). Pure, no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError, invalidRequest } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { DEFAULT_QURAN_TRANSLATION, surah } from "./books.ts";
import { type ChapterVerse, chapterDetail, link, squeeze, verseRecord } from "./verses.ts";

/** quran.com's own per_page ceiling for verse lists. */
export const QURAN_MAX_PER_PAGE = 50;

/** Which API answers: the keyless api.quran.com, or the Quran Foundation's with this deployment's client. */
export type QuranApi = "keyless" | "foundation";

/** A verse key, `chapter:verse`. */
const verseKey = Type.String({ pattern: "^[0-9]+:[0-9]+$" });
const translationText = Type.Object({ resource_id: Type.Optional(Type.Integer()), text: Type.Optional(Type.String()) });
const word = Type.Object({ char_type_name: Type.Optional(Type.String()), text_uthmani: nullish(Type.String()) });

/** A verse of the verses endpoints: its key, and the Arabic and translations when the answer has them. */
const quranVerseSchema = Type.Object({
  verse_key: verseKey,
  text_uthmani: Type.Optional(Type.String()),
  translations: Type.Optional(Type.Array(translationText)),
  words: Type.Optional(Type.Array(word)),
});
type QuranVerseBody = Static<typeof quranVerseSchema>;

/** `GET /verses/by_key/{key}`. */
export const quranVerseAnswer = Type.Object({ verse: quranVerseSchema });

/** `GET /verses/by_chapter/{n}`: a page of the surah's verses. */
export const quranSurahPage = Type.Object({
  verses: Type.Array(quranVerseSchema),
  pagination: Type.Optional(Type.Object({ next_page: nullish(Type.Integer()), total_records: Type.Optional(Type.Integer()) })),
});

/** The keyless API's `GET /search`: hits carry the Arabic as `text`. */
export const quranSearchAnswer = Type.Object({
  search: Type.Object({
    current_page: Type.Optional(Type.Integer()),
    total_pages: Type.Optional(Type.Integer()),
    total_results: Type.Optional(Type.Integer()),
    results: Type.Array(
      Type.Object({
        verse_key: verseKey,
        text: Type.Optional(Type.String()),
        translations: Type.Optional(Type.Array(translationText)),
        words: Type.Optional(Type.Array(word)),
      }),
    ),
  }),
});

/** The Search API's `GET /api/v1/search` (SearchResponseDto): the verses it found, by key, and its pages. */
export const foundationSearchAnswer = Type.Object({
  pagination: Type.Object({
    current_page: Type.Number(),
    next_page: nullish(Type.Number()),
    total_pages: Type.Optional(Type.Number()),
    total_records: Type.Optional(Type.Number()),
  }),
  result: Type.Object({
    verses: Type.Array(
      Type.Object({
        result_type: Type.Optional(Type.String()),
        key: Type.Union([Type.String(), Type.Number()]),
      }),
    ),
  }),
});

const CLIENT_VARS = "QURAN_CLIENT_ID and QURAN_CLIENT_SECRET";

/**
 * The keyless API's refusals: it is being replaced by the Quran Foundation's authenticated API, so a
 * 401, 403, 404 or 410 from it (the references were checked before the call) says it no longer
 * serves that request.
 */
export function keylessQuranRefusal(_body: unknown, status: number): ApiError | undefined {
  if (![401, 403, 404, 410].includes(status)) return undefined;
  return new ApiError(
    "provider_error",
    `The keyless quran.com API refused the request (HTTP ${status}): the Quran Foundation is replacing it by its authenticated API, and moved full-text search to its Search API in January 2026.`,
    {
      retryable: false,
      hint: `quran.com refused it and will refuse it again; nothing was charged. The operator can set ${CLIENT_VARS} (a Quran Foundation API client, https://api-docs.quran.foundation) to use the Quran Foundation's API.`,
    },
  );
}

/**
 * The Quran Foundation's refusals: a 403 is a client without the scope the API needs (`content`, or
 * `search` for full-text queries). A 401 is the upstream client's (it gets a new token once).
 */
export function foundationQuranRefusal(_body: unknown, status: number): ApiError | undefined {
  if (status !== 403) return undefined;
  return new ApiError("provider_error", "The Quran Foundation API refused this deployment's client (HTTP 403): it lacks the scope this request needs.", {
    retryable: false,
    hint: `The client of ${CLIENT_VARS} needs the \`content\` scope, and \`search\` for full-text queries (without a reference). Nothing was charged.`,
  });
}

const refusalOf = (api: QuranApi) => (api === "foundation" ? foundationQuranRefusal : keylessQuranRefusal);

/** The keyless API's full-text search. */
export function toQuranSearchRequest(q: string, translation: string, page: number, size: number): JsonRequest<typeof quranSearchAnswer> {
  return {
    provider: "quran",
    method: "GET",
    path: "/search",
    query: { q, size, page, translations: translation },
    response: quranSearchAnswer,
    refusal: keylessQuranRefusal,
  };
}

/** The Search API's full-text search (advanced mode: verse results, paged). */
export function toFoundationSearchRequest(q: string, translation: string, page: number, size: number): JsonRequest<typeof foundationSearchAnswer> {
  return {
    provider: "quran",
    host: "search",
    method: "GET",
    path: "/api/v1/search",
    query: { mode: "advanced", query: q, page, size, translation_ids: translation },
    response: foundationSearchAnswer,
    refusal: foundationQuranRefusal,
  };
}

export function toVerseRequest(chapter: number, verse: number, translation: string, api: QuranApi = "keyless"): JsonRequest<typeof quranVerseAnswer> {
  return {
    provider: "quran",
    method: "GET",
    path: `/verses/by_key/${chapter}:${verse}`,
    query: { translations: translation, fields: "text_uthmani" },
    response: quranVerseAnswer,
    refusal: refusalOf(api),
  };
}

export function toSurahRequest(
  chapter: number,
  translation: string,
  page: number,
  perPage: number,
  api: QuranApi = "keyless",
): JsonRequest<typeof quranSurahPage> {
  return {
    provider: "quran",
    method: "GET",
    path: `/verses/by_chapter/${chapter}`,
    query: { translations: translation, fields: "text_uthmani", page, per_page: perPage },
    response: quranSurahPage,
    refusal: refusalOf(api),
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
function pickTranslation(list: QuranVerseBody["translations"], translation: string): { text: string; id?: string } | undefined {
  const items = list ?? [];
  const chosen = items.find((t) => String(t.resource_id) === translation) ?? items[0];
  const raw = chosen?.text === undefined ? "" : plainText(chosen.text);
  if (chosen === undefined || raw === "") return undefined;
  return { text: raw, ...(chosen.resource_id === undefined ? {} : { id: String(chosen.resource_id) }) };
}

/** The Arabic of a verse: `own` (its `text_uthmani`, a search hit's `text`), else its words' (`char_type_name` "word") joined. */
function arabicOf(own: string | undefined, words: QuranVerseBody["words"]): string | undefined {
  const text = own?.trim();
  if (text !== undefined && text !== "") return text;
  const parts = (words ?? []).filter((w) => w.char_type_name === "word").map((w) => w.text_uthmani?.trim());
  return parts.length > 0 && parts.every((p) => p !== undefined && p !== "") ? parts.join(" ") : undefined;
}

/** `chapter:verse` → its numbers (the schemas hold keys to that pattern). */
export function keyOf(value: string): { chapter: number; verse: number } | undefined {
  const m = /^(\d+):(\d+)$/.exec(value.trim());
  return m === null ? undefined : { chapter: Number(m[1]), verse: Number(m[2]) };
}

function quranVerse(
  v: { verse_key: string; translations?: QuranVerseBody["translations"]; words?: QuranVerseBody["words"] },
  arabic: string | undefined,
  translation: string,
): QuranVerse {
  const key = keyOf(v.verse_key)!;
  const t = pickTranslation(v.translations, translation);
  const ar = arabicOf(arabic, v.words);
  return {
    ...key,
    ...(t === undefined ? {} : { text: t.text, translation: t.id ?? translation }),
    ...(ar === undefined ? {} : { arabic: ar }),
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
export function toVerse(body: Static<typeof quranVerseAnswer>, translation: string): QuranVerse {
  return quranVerse(body.verse, body.verse.text_uthmani, translation);
}

/** `GET /verses/by_chapter/{n}` → its verses and the next page. */
export function toSurahPage(body: Static<typeof quranSurahPage>, translation: string): QuranList {
  const next = body.pagination?.next_page;
  const total = body.pagination?.total_records;
  return {
    verses: body.verses.map((v) => quranVerse(v, v.text_uthmani, translation)),
    nextPage: typeof next === "number" ? next : null,
    ...(total === undefined ? {} : { total }),
  };
}

/** The keyless `GET /search` → its hits (the hit's `text` is the verse in Uthmani script) and the next page. */
export function toSearchPage(body: Static<typeof quranSearchAnswer>, translation: string): QuranList {
  const s = body.search;
  const page = s.current_page ?? 1;
  const pages = s.total_pages ?? page;
  return {
    verses: s.results.map((v) => quranVerse(v, v.text, translation)),
    nextPage: page < pages ? page + 1 : null,
    ...(s.total_results === undefined ? {} : { total: s.total_results }),
  };
}

/** The Search API's answer → the verses it found (by key, in its order) and its next page. */
export function toFoundationHits(body: Static<typeof foundationSearchAnswer>): { keys: { chapter: number; verse: number }[]; nextPage: number | null; total?: number } {
  const keys = body.result.verses.flatMap((hit) => {
    if (hit.result_type !== undefined && hit.result_type !== "ayah") return [];
    const key = keyOf(String(hit.key));
    return key === undefined || surah(key.chapter) === undefined ? [] : [key];
  });
  const p = body.pagination;
  const next = typeof p.next_page === "number" ? p.next_page : p.total_pages !== undefined && p.current_page < p.total_pages ? p.current_page + 1 : null;
  return { keys, nextPage: next, ...(p.total_records === undefined ? {} : { total: p.total_records }) };
}

const keysText = (verses: readonly QuranVerse[]) => {
  const keys = verses.map((v) => `${v.chapter}:${v.verse}`);
  return keys.length <= 5 ? keys.join(", ") : `${keys.slice(0, 5).join(", ")} and ${keys.length - 5} more`;
};

/**
 * The caller's translation has no text at quran.com for any verse asked: a 400 at /translation that
 * says so (translation 131, the default, was withdrawn from the API in 2025 at its copyright holder's
 * request), never an empty page.
 */
export function translationMissing(translation: string, verses: readonly QuranVerse[]): ApiError {
  const which =
    translation === DEFAULT_QURAN_TRANSLATION
      ? " (the default, Dr. Mustafa Khattab's The Clear Quran, which the Quran Foundation removed from its API in 2025 at its copyright holder's request)"
      : "";
  return invalidRequest(
    [
      {
        path: "/translation",
        message: `quran.com gave no text of translation ${translation}${which} for ${keysText(verses)}; send another numeric translation id, e.g. "20" (Saheeh International)`,
      },
    ],
    "quran.com has no text of this translation.",
  );
}

/**
 * Records of verses: a verse without text of the translation is left out (never invented) and a note
 * names it; when every verse lacks it, the translation is refused (translationMissing).
 */
export function quranRecords(verses: readonly QuranVerse[], translation: string): { records: RecordDraft[]; notes: string[] } {
  const records = verses.map(quranRecord).filter((r): r is RecordDraft => r !== null);
  const missing = verses.filter((v) => v.text === undefined);
  if (missing.length > 0 && records.length === 0) throw translationMissing(translation, missing);
  const notes =
    missing.length === 0
      ? []
      : [
          `${missing.length} verse${missing.length === 1 ? "" : "s"} (${keysText(missing)}) came without text of translation ${translation} from quran.com and ${missing.length === 1 ? "was" : "were"} left out.`,
        ];
  return { records, notes };
}

/** A surah's verses (all its pages) → the `details` answer; a note says which verses lack the translation's text. */
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
  const missing = verses.filter((v) => v.text === undefined).length;
  const note =
    missing === 0
      ? undefined
      : `quran.com gave no text of translation ${translation} for ${missing === verses.length ? "any" : missing} of the surah's ${verses.length} verses: ${missing === verses.length ? "they carry" : "those carry"} only the Arabic.`;
  return {
    detail: chapterDetail({ book: name, chapter, translation, source: "quran.com API v4", verses: out, ...(note === undefined ? {} : { note }) }),
    links: [link(`${name} on quran.com`, `https://quran.com/${chapter}`)],
  };
}

/**
 * The live check's probe: verse 1:1 (keyless, or through the Content API with a client). It checks the
 * answer's shape; with translation 131, withdrawn in 2025, its `translations` may be empty.
 */
export const quranProbe: ProviderProbe = {
  provider: "quran",
  what: "one verse (1:1)",
  request: toVerseRequest(1, 1, DEFAULT_QURAN_TRANSLATION),
};
