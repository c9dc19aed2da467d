/**
 * bible-api.com mappers and the shipped KJV index: the requests as bible-api.com documents them
 * (translation always sent), the recorded John 3:16 (WEB) answer as a record, its documented 404 as
 * a violation at /reference, unexpected shapes as provider_error, and the KJV index's phrase search
 * and chapters.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import {
  bibleApiRecord,
  kjvChapterDetail,
  kjvRecord,
  toChapterDetail,
  toChapterRequest,
  toPassage,
  toPassageRequest,
} from "./bibleapi.ts";
import { bookNumber, findBook } from "./books.ts";
import { kjvChapter, kjvIndex, kjvPassage, kjvPhrase, parseKjv, wordsOf } from "./kjv-index.ts";
import { parseBibleReference } from "./references.ts";

function ref(text: string) {
  const p = parseBibleReference(text);
  assert.ok(p.ok);
  return p.ref;
}

test("GET /{reference}?translation=: lower-case reference, spaces as %20, translation always sent, 404 read as an answer", () => {
  assert.deepEqual(toPassageRequest(ref("John 3:16"), "web"), {
    provider: "bibleapi",
    method: "GET",
    path: "/john%203:16",
    query: { translation: "web" },
    acceptStatus: [404],
  });
  assert.equal(toPassageRequest(ref("1 Cor 13:4-7"), "kjv").path, "/1%20corinthians%2013:4-7");
  assert.equal(toPassageRequest(ref("Song of Songs 2"), "kjv").path, "/song%20of%20solomon%202");
  assert.deepEqual(toChapterRequest("JHN", 3, "web"), {
    provider: "bibleapi",
    method: "GET",
    path: "/data/web/JHN/3",
  });
});

test("the recorded John 3:16 (WEB) answer maps to one record with the spec's keys, text trimmed of its newlines", () => {
  const passage = toPassage(200, fixture("bibleapi", "john_3_16_web.json"), "John 3:16", "web");
  assert.equal(passage.translation_id, "web");
  assert.equal(passage.translation_name, "World English Bible");
  assert.equal(passage.verses.length, 1);
  const record = bibleApiRecord(passage.verses[0]!, passage.translation_id);
  assert.deepEqual(record.summary, {
    title: "John 3:16",
    url: "https://bible-api.com/john%203:16?translation=web",
    text: "For God so loved the world, that he gave his one and only Son, that whoever believes in him should not perish, but have eternal life.",
    book: "John",
    chapter: 3,
    verse: 16,
    translation: "web",
  });
  assert.deepEqual(record.ref, {
    source: "bibleapi",
    book_id: "JHN",
    chapter: 3,
    verse: 16,
    translation: "web",
  });
  assert.equal(record.detail, undefined, "details are fetched, not stored");
});

test("bible-api.com's 404 (documented body) is the caller's reference: 400 at /reference", () => {
  const body = fixture("bibleapi", "not_found_documented.json");
  assert.throws(
    () => toPassage(404, body, "John 3:99", "kjv"),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "invalid_request" &&
      e.violations?.[0]?.path === "/reference" &&
      /no passage "John 3:99" in translation "kjv" \(it answered: not found\)/.test(e.violations[0].message),
  );
});

test("answers of an unexpected shape are provider_error, never an empty result", () => {
  for (const body of [null, "oops", {}, { verses: "x" }]) {
    assert.throws(
      () => toPassage(200, body, "John 3:16", "kjv"),
      (e: unknown) => e instanceof ApiError && e.code === "provider_error",
    );
  }
  assert.throws(
    () => toChapterDetail({ verses: [] }, "JHN", 3, "web"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
});

test("a /data chapter answer (shape of bible-api's app.rb) maps to the chapter detail", () => {
  // Shape from seven1m/bible_api app.rb, `get '/data/:translation/:book_id/:chapter'`; verse text from
  // the recorded John 3:16 (WEB) answer; not a recording of a whole chapter.
  const recorded = fixture("bibleapi", "john_3_16_web.json") as { verses: { text: string }[] };
  const body = {
    translation: {
      identifier: "web",
      name: "World English Bible",
      language: "English",
      language_code: "eng",
      license: "Public Domain",
    },
    verses: [{ book_id: "JHN", book: "John", chapter: 3, verse: 16, text: recorded.verses[0]!.text }],
  };
  const { detail, links } = toChapterDetail(body, "JHN", 3, "web");
  assert.deepEqual(detail, {
    reference: "John 3",
    book: "John",
    chapter: 3,
    translation: "web",
    translation_name: "World English Bible",
    verse_count: 1,
    verses: [
      {
        verse: 16,
        text: "For God so loved the world, that he gave his one and only Son, that whoever believes in him should not perish, but have eternal life.",
      },
    ],
    source: "bible-api.com",
  });
  assert.deepEqual(links, [
    { label: "John 3 on bible-api.com", url: "https://bible-api.com/john%203?translation=web" },
  ]);
});

test("the shipped KJV: 31,102 verses in 1,189 chapters, loaded once through ctx.index", async () => {
  const { ctx } = fakeContext(() => {
    throw new Error("no request");
  });
  const index = await kjvIndex(ctx);
  assert.equal(await kjvIndex(ctx), index, "the loaded index is kept");
  assert.equal(index.verses.length, 31_102);
  assert.equal(index.chapters.size, 1_189);
  const john3 = kjvChapter(index, bookNumber(findBook("John")!), 3);
  assert.equal(john3.length, 36);
  assert.equal(
    john3[15]!.text,
    "For God so loved the world, that he gave his only begotten Son, that whosoever believeth in him should not perish, but have everlasting life.",
  );
  assert.equal(kjvChapter(index, bookNumber(findBook("Psalms")!), 119).length, 176);

  const hits = kjvPhrase(index, "Love one another!");
  assert.deepEqual(
    hits.map((v) => kjvRecord(v).summary.title),
    [
      "John 13:34",
      "John 15:12",
      "John 15:17",
      "Romans 13:8",
      "1 Thessalonians 4:9",
      "1 Peter 1:22",
      "1 John 3:11",
      "1 John 3:23",
      "1 John 4:7",
      "1 John 4:11",
      "1 John 4:12",
      "2 John 1:5",
    ],
  );
  assert.equal(kjvPhrase(index, "LOVE ONE   another").length, 12, "case and spacing ignored");
  assert.equal(kjvPhrase(index, "... ,").length, 0, "no words, no match");
  assert.equal(kjvPhrase(index, "zzz qqq").length, 0);
  const within = kjvPhrase(
    index,
    "love one another",
    kjvPassage(index, ref("John 15"), bookNumber(findBook("John")!)),
  );
  assert.deepEqual(
    within.map((v) => `${v.chapter}:${v.verse}`),
    ["15:12", "15:17"],
  );

  const record = kjvRecord(hits[0]!);
  assert.deepEqual(record.summary, {
    title: "John 13:34",
    url: "https://bible-api.com/john%2013:34?translation=kjv",
    text: "A new commandment I give unto you, That ye love one another; as I have loved you, that ye also love one another.",
    book: "John",
    chapter: 13,
    verse: 34,
    translation: "kjv",
  });
  const { detail } = kjvChapterDetail(kjvChapter(index, 43, 13), findBook("John")!, 13);
  assert.equal(detail.verse_count, 38);
  assert.equal(detail.translation, "kjv");
});

test("parseKjv refuses a malformed line; wordsOf keeps apostrophes inside words", () => {
  assert.throws(() => parseKjv("1\t1\tx\tIn the beginning\n"), /malformed line/);
  assert.equal(wordsOf("The LORD's name, for his name's sake."), " the lord's name for his name's sake ");
});
