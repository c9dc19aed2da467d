/**
 * quran.com API v4 mappers: requests as documented, the recorded verse (translation 131, no Arabic
 * in the body, so no `arabic`), the recorded surah (Arabic from its words, no translation text, so
 * no records and a note), the documented surah page and search answers, and translation HTML reduced
 * to text without inventing any.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import {
  plainText,
  quranRecords,
  surahDetail,
  toQuranSearchRequest,
  toSearchPage,
  toSurahPage,
  toSurahRequest,
  toVerse,
  toVerseRequest,
} from "./quran.ts";

const CLEAR_QURAN_1_1 = "In the Name of Allah—the Most Compassionate, Most Merciful.";

test("requests: search (q, size, page, translations), a verse and a surah page with translations and text_uthmani", () => {
  assert.deepEqual(toQuranSearchRequest("mercy", "131", 2, 10), {
    provider: "quran",
    method: "GET",
    path: "/search",
    query: { q: "mercy", size: 10, page: 2, translations: "131" },
  });
  assert.deepEqual(toVerseRequest(2, 255, "131"), {
    provider: "quran",
    method: "GET",
    path: "/verses/by_key/2:255",
    query: { translations: "131", fields: "text_uthmani" },
  });
  assert.deepEqual(toSurahRequest(2, "20", 3, 50), {
    provider: "quran",
    method: "GET",
    path: "/verses/by_chapter/2",
    query: { translations: "20", fields: "text_uthmani", page: 3, per_page: 50 },
  });
});

test("the recorded verse 1:1 with translation 131: a record without `arabic` (the body has none)", () => {
  const verse = toVerse(fixture("quran", "verses_by_key_1_1_translation_131.json"), "131");
  assert.deepEqual(verse, { chapter: 1, verse: 1, text: CLEAR_QURAN_1_1, translation: "131" });
  const { records, notes } = quranRecords([verse]);
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

test("the recorded surah 1 (no translations asked): Arabic from the words, no text, so no records and a note", () => {
  const body = fixture("quran", "verses_by_chapter_1_words.json") as {
    verses: { words: { char_type_name: string; text_uthmani: string }[] }[];
  };
  const firstWords = body.verses[0]!.words.filter((w) => w.char_type_name === "word").map(
    (w) => w.text_uthmani,
  );
  assert.equal(firstWords.length, 4);
  const page = toSurahPage(body, "131");
  assert.equal(page.verses.length, 7);
  assert.equal(page.nextPage, null);
  assert.equal(page.total, 7);
  assert.deepEqual(
    page.verses[0],
    { chapter: 1, verse: 1, arabic: firstWords.join(" ") },
    "the words, the end-of-verse marker left out",
  );
  assert.ok(page.verses.every((v) => v.text === undefined && typeof v.arabic === "string"));
  const { records, notes } = quranRecords(page.verses);
  assert.equal(records.length, 0, "a verse without its translation is not a record: nothing invented");
  assert.deepEqual(notes, ["7 verses came without translation text from quran.com and were left out."]);
  const { detail, links } = surahDetail(1, "131", page.verses);
  assert.equal(detail.verse_count, 7);
  assert.equal(detail.book, "Al-Fatihah");
  assert.deepEqual(
    (detail.verses as { verse: number }[]).map((v) => v.verse),
    [1, 2, 3, 4, 5, 6, 7],
  );
  assert.deepEqual(links, [{ label: "Al-Fatihah on quran.com", url: "https://quran.com/1" }]);
});

test("the documented surah page: translation 131 and quran.com's next page", () => {
  const page = toSurahPage(fixture("quran", "verses_by_chapter_1_per_page_1_documented.json"), "131");
  assert.equal(page.nextPage, 2);
  assert.deepEqual(page.verses, [{ chapter: 1, verse: 1, text: CLEAR_QURAN_1_1, translation: "131" }]);
});

test("the documented search answer: Arabic from the hit's text, the translation it came from (20), no <em>", () => {
  const page = toSearchPage(fixture("quran", "search_v4_mercy_documented.json"), "131");
  assert.equal(page.nextPage, null, "current_page 1 of total_pages 1");
  assert.equal(page.total, 1);
  const { records } = quranRecords(page.verses);
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
  const more = toSearchPage(
    { search: { query: "x", total_results: 25, current_page: 1, total_pages: 3, results: [] } },
    "131",
  );
  assert.equal(more.nextPage, 2);
});

test("translation HTML → text: highlights and tags removed, footnote markers dropped with their numbers, entities decoded", () => {
  assert.equal(
    plainText("Indeed, We sent <em>Noah</em> to his people"),
    "Indeed, We sent Noah to his people",
  );
  assert.equal(
    plainText(
      "Guide us along the Straight Path.<sup foot_note=77706>1</sup> The path of those&nbsp;You have blessed&#8212;not &amp; not",
    ),
    "Guide us along the Straight Path. The path of those You have blessed—not & not",
  );
  assert.equal(plainText("<p>  a\n b </p>"), "a b");
});

test("answers of an unexpected shape are provider_error", () => {
  const fails = (fn: () => unknown) =>
    assert.throws(fn, (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  fails(() => toVerse({}, "131"));
  fails(() => toVerse({ verse: { verse_key: "x" } }, "131"));
  fails(() => toSurahPage({ pagination: {} }, "131"));
  fails(() => toSearchPage({ result: { navigation: [], verses: [] } }, "131"));
});
