/**
 * Quran mappers: requests of the keyless API and of the Quran Foundation's (declared answers, each
 * API's refusals), the recordings and documented answers fitting their schemas (a renamed or retyped
 * field is drift naming it), the recorded verse (translation 131, no Arabic in the body, so no
 * `arabic`), the recorded surah (Arabic from its words, no translation text: a note in details, a
 * refusal at /translation for records), the documented surah page and both search answers, and
 * translation HTML reduced to text without inventing any.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import {
  foundationQuranRefusal,
  foundationSearchAnswer,
  keylessQuranRefusal,
  plainText,
  quranProbe,
  quranRecords,
  quranSearchAnswer,
  quranSurahPage,
  quranVerseAnswer,
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

const CLEAR_QURAN_1_1 = "In the Name of Allah—the Most Compassionate, Most Merciful.";

const verseBody = () => checkShape("quran", quranVerseAnswer, fixture("quran", "verses_by_key_1_1_translation_131.json"));
const surahBody = (file: string) => checkShape("quran", quranSurahPage, fixture("quran", file));

test("requests: keyless search (q, size, page, translations), a verse and a surah page with translations and text_uthmani; the Search API's", () => {
  assert.deepEqual(toQuranSearchRequest("mercy", "131", 2, 10), {
    provider: "quran",
    method: "GET",
    path: "/search",
    query: { q: "mercy", size: 10, page: 2, translations: "131" },
    response: quranSearchAnswer,
    refusal: keylessQuranRefusal,
  });
  assert.deepEqual(toVerseRequest(2, 255, "131"), {
    provider: "quran",
    method: "GET",
    path: "/verses/by_key/2:255",
    query: { translations: "131", fields: "text_uthmani" },
    response: quranVerseAnswer,
    refusal: keylessQuranRefusal,
  });
  assert.equal(toVerseRequest(2, 255, "131", "foundation").refusal, foundationQuranRefusal, "the same request; the Quran Foundation's refusals");
  assert.deepEqual(toSurahRequest(2, "20", 3, 50), {
    provider: "quran",
    method: "GET",
    path: "/verses/by_chapter/2",
    query: { translations: "20", fields: "text_uthmani", page: 3, per_page: 50 },
    response: quranSurahPage,
    refusal: keylessQuranRefusal,
  });
  assert.deepEqual(toFoundationSearchRequest("mercy", "20", 2, 10), {
    provider: "quran",
    host: "search",
    method: "GET",
    path: "/api/v1/search",
    query: { mode: "advanced", query: "mercy", page: 2, size: 10, translation_ids: "20" },
    response: foundationSearchAnswer,
    refusal: foundationQuranRefusal,
  });
  assert.equal(quranProbe.provider, "quran");
  assert.equal(quranProbe.request.path, "/verses/by_key/1:1");
  assert.equal(quranProbe.request.response, quranVerseAnswer);
});

test("the recordings and documented answers fit their schemas; a renamed or retyped field the mapper reads is drift naming it", () => {
  for (const file of ["verses_by_chapter_1_words.json", "verses_by_chapter_1_per_page_1_documented.json"]) surahBody(file);
  verseBody();
  checkShape("quran", quranSearchAnswer, fixture("quran", "search_v4_mercy_documented.json"));
  for (const file of ["search_api_v1_advanced_documented.json", "search_api_v1_no_results_documented.json", "search_v1_al_fatihah.json"]) {
    checkShape("quran", foundationSearchAnswer, fixture("quran", file));
  }
  const drift = (schema: Parameters<typeof checkShape>[1], body: unknown, pointer: string) =>
    assert.throws(
      () => checkShape("quran", schema, body),
      (e: unknown) =>
        e instanceof ProviderDrift && e.pointer === pointer && e.message.startsWith("Quran.com API (Quran Foundation) answered in a shape"),
    );
  const verse = (fixture("quran", "verses_by_key_1_1_translation_131.json") as { verse: Record<string, unknown> }).verse;
  drift(quranVerseAnswer, {}, "/verse");
  drift(quranVerseAnswer, { verse: { ...verse, verse_key: undefined, key: "1:1" } }, "/verse/verse_key");
  drift(quranVerseAnswer, { verse: { ...verse, verse_key: "1-1" } }, "/verse/verse_key");
  drift(quranVerseAnswer, { verse: { ...verse, translations: [{ resource_id: "131", text: "x" }] } }, "/verse/translations/0/resource_id");
  drift(quranSurahPage, { pagination: {} }, "/verses");
  drift(quranSearchAnswer, { result: { navigation: [], verses: [] } }, "/search");
  drift(foundationSearchAnswer, { search: { results: [] } }, "/pagination");
  drift(foundationSearchAnswer, { pagination: { current_page: 1 }, result: { navigation: [] } }, "/result/verses");
});

test("the recorded verse 1:1 with translation 131: a record without `arabic` (the body has none)", () => {
  const verse = toVerse(verseBody(), "131");
  assert.deepEqual(verse, { chapter: 1, verse: 1, text: CLEAR_QURAN_1_1, translation: "131" });
  const { records, notes } = quranRecords([verse], "131");
  assert.deepEqual(notes, []);
  assert.deepEqual(records[0]!.summary, {
    title: "Al-Fatihah 1:1",
    url: "https://quran.com/1/1",
    text: CLEAR_QURAN_1_1,
    book: "Al-Fatihah",
    chapter: 1,
    verse: 1,
    translation: "131",
  });
  assert.deepEqual(records[0]!.ref, { source: "quran", chapter: 1, verse: 1, translation: "131" });
});

test("the recorded surah 1 (no translations asked): Arabic from the words; no text, so records are refused at /translation and details say what is missing", () => {
  const raw = fixture("quran", "verses_by_chapter_1_words.json") as {
    verses: { words: { char_type_name: string; text_uthmani: string }[] }[];
  };
  const firstWords = raw.verses[0]!.words.filter((w) => w.char_type_name === "word").map((w) => w.text_uthmani);
  assert.equal(firstWords.length, 4);
  const page = toSurahPage(surahBody("verses_by_chapter_1_words.json"), "131");
  assert.equal(page.verses.length, 7);
  assert.equal(page.nextPage, null);
  assert.equal(page.total, 7);
  assert.deepEqual(page.verses[0], { chapter: 1, verse: 1, arabic: firstWords.join(" ") }, "the words, the end-of-verse marker left out");
  assert.ok(page.verses.every((v) => v.text === undefined && typeof v.arabic === "string"), "page.verses.every((v) => v.text === undefined && typeof v.arabic === \"string\")");
  assert.throws(
    () => quranRecords(page.verses, "131"),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "invalid_request" &&
      e.violations?.[0]?.path === "/translation" &&
      /^quran\.com gave no text of translation 131 \(the default, Dr\. Mustafa Khattab's The Clear Quran, which the Quran Foundation removed from its API in 2025 at its copyright holder's request\) for 1:1, 1:2, 1:3, 1:4, 1:5 and 2 more; send another numeric translation id, e\.g\. "20"/.test(
        e.violations[0].message,
      ),
    "a verse without its translation is not a record: nothing invented, never an empty page",
  );
  assert.throws(
    () => quranRecords(page.verses.slice(0, 1), "85"),
    (e: unknown) => e instanceof ApiError && /translation 85 for 1:1; send another/.test(e.violations?.[0]?.message ?? ""),
  );
  const { detail, links } = surahDetail(1, "131", page.verses);
  assert.equal(detail.verse_count, 7);
  assert.equal(detail.book, "Al-Fatihah");
  assert.equal(detail.note, "quran.com gave no text of translation 131 for any of the surah's 7 verses: they carry only the Arabic.");
  assert.deepEqual(
    (detail.verses as { verse: number }[]).map((v) => v.verse),
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(links, [{ label: "Al-Fatihah on quran.com", url: "https://quran.com/1" }]);
});

test("some verses without the translation's text: the others are records, a note names the missing ones", () => {
  const withText = toVerse(verseBody(), "131");
  const { records, notes } = quranRecords([withText, { chapter: 1, verse: 2, arabic: "x" }], "131");
  assert.deepEqual(
    records.map((r) => r.summary.title),
    ["Al-Fatihah 1:1"],
  );
  assert.deepEqual(notes, ["1 verse (1:2) came without text of translation 131 from quran.com and was left out."]);
  assert.deepEqual(quranRecords([], "131"), { records: [], notes: [] }, "no verses (no match) is an empty page, not a refusal");
});

test("the documented surah page: translation 131 and quran.com's next page", () => {
  const page = toSurahPage(surahBody("verses_by_chapter_1_per_page_1_documented.json"), "131");
  assert.equal(page.nextPage, 2);
  assert.deepEqual(page.verses, [{ chapter: 1, verse: 1, text: CLEAR_QURAN_1_1, translation: "131" }]);
});

test("the documented keyless search answer: Arabic from the hit's text, the translation it came from (20), no <em>", () => {
  const page = toSearchPage(checkShape("quran", quranSearchAnswer, fixture("quran", "search_v4_mercy_documented.json")), "131");
  assert.equal(page.nextPage, null, "current_page 1 of total_pages 1");
  assert.equal(page.total, 1);
  const { records } = quranRecords(page.verses, "131");
  assert.deepEqual(records[0]!.summary, {
    title: "Al-Fatihah 1:1",
    url: "https://quran.com/1/1",
    text: CLEAR_QURAN_1_1,
    book: "Al-Fatihah",
    chapter: 1,
    verse: 1,
    translation: "20",
    arabic: "بِسْمِ اللّٰهِ الرَّحْمٰنِ الرَّحِيمِ",
  });
  const more = toSearchPage({ search: { total_results: 25, current_page: 1, total_pages: 3, results: [] } }, "131");
  assert.equal(more.nextPage, 2);
});

test("the documented Search API answers: verse keys in order (navigation left out), the next page; no results, no next", () => {
  const hits = toFoundationHits(checkShape("quran", foundationSearchAnswer, fixture("quran", "search_api_v1_advanced_documented.json")));
  assert.deepEqual(hits, {
    keys: [
      { chapter: 1, verse: 1 },
      { chapter: 2, verse: 163 },
    ],
    nextPage: 2,
    total: 100,
  });
  const none = toFoundationHits(checkShape("quran", foundationSearchAnswer, fixture("quran", "search_api_v1_no_results_documented.json")));
  assert.deepEqual(none, { keys: [], nextPage: null, total: 0 });
  const lastByPages = toFoundationHits({ pagination: { current_page: 3, total_pages: 3 }, result: { verses: [{ result_type: "ayah", key: "2:1" }, { result_type: "surah", key: 2 }, { key: "115:1" }] } });
  assert.deepEqual(lastByPages, { keys: [{ chapter: 2, verse: 1 }], nextPage: null }, "a surah result and a key of no surah are not verses");
});

test("refusals: the keyless API's 401/403/404/410 say it is being replaced and name the client's variables; the Quran Foundation's 403 names the scopes; a 401 is the client's", () => {
  for (const status of [401, 403, 404, 410]) {
    const e = keylessQuranRefusal(undefined, status);
    assert.ok(e instanceof ApiError, String(status));
    assert.equal(e.code, "provider_error");
    assert.equal(e.retryable, false);
    assert.match(e.message, new RegExp(`^The keyless quran.com API refused the request \\(HTTP ${status}\\)`));
    assert.match(e.hint ?? "", /QURAN_CLIENT_ID and QURAN_CLIENT_SECRET/);
  }
  assert.equal(keylessQuranRefusal({}, 200), undefined);
  assert.equal(keylessQuranRefusal({}, 400), undefined);
  const scope = foundationQuranRefusal({ status: 403, error: "Forbidden" }, 403);
  assert.ok(scope instanceof ApiError, "scope instanceof ApiError");
  assert.match(scope.hint ?? "", /`content` scope, and `search` for full-text queries/);
  assert.equal(foundationQuranRefusal({ status: 401, error: "Unauthorized" }, 401), undefined, "the upstream client renews the token once");
  assert.equal(foundationQuranRefusal({}, 200), undefined);
});

test("translation HTML → text: highlights and tags removed, footnote markers dropped with their numbers, entities decoded", () => {
  assert.equal(plainText("Indeed, We sent <em>Noah</em> to his people"), "Indeed, We sent Noah to his people");
  assert.equal(
    plainText(
      "Guide us along the Straight Path.<sup foot_note=77706>1</sup> The path of those&nbsp;You have blessed&#8212;not &amp; not",
    ),
    "Guide us along the Straight Path. The path of those You have blessed—not & not",
  );
  assert.equal(plainText("<p>  a\n b </p>"), "a b");
});
