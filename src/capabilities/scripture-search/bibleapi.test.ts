/**
 * bible-api.com mappers and the shipped KJV index: the requests as bible-api.com documents them
 * (translation always sent, declared answers, its refusals), the recorded John 3:16 (WEB) answer as a
 * record, its documented 404 as a violation at /reference, changed answers as drift naming the
 * field, its 403 block and 400 refusal as provider_error, and the KJV index's phrase search, chapters
 * and verse counts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import {
  type BibleApiChapterBody,
  type BibleApiPassageBody,
  bibleApiChapter,
  bibleApiPassage,
  bibleApiProbe,
  bibleApiRecord,
  bibleApiRefusal,
  kjvChapterDetail,
  kjvRecord,
  toChapterDetail,
  toChapterRequest,
  toPassage,
  toPassageRequest,
} from "./bibleapi.ts";
import { bookNumber, findBook } from "./books.ts";
import { kjvChapter, kjvIndex, kjvMissingVerse, kjvPassage, kjvPhrase, parseKjv, wordsOf } from "./kjv-index.ts";
import { parseBibleReference } from "./references.ts";

function ref(text: string) {
  const p = parseBibleReference(text);
  assert.ok(p.ok, "p.ok");
  return p.ref;
}

test("GET /{reference}?translation=: lower-case reference, spaces as %20, translation always sent, 404 read as an answer, answers declared", () => {
  assert.deepEqual(toPassageRequest(ref("John 3:16"), "web"), {
    provider: "bibleapi",
    method: "GET",
    path: "/john%203:16",
    query: { translation: "web" },
    acceptStatus: [404],
    response: bibleApiPassage,
    refusal: bibleApiRefusal,
  });
  assert.equal(toPassageRequest(ref("1 Cor 13:4-7"), "kjv").path, "/1%20corinthians%2013:4-7");
  assert.equal(toPassageRequest(ref("Song of Songs 2"), "kjv").path, "/song%20of%20solomon%202");
  assert.deepEqual(toChapterRequest("JHN", 3, "web"), {
    provider: "bibleapi",
    method: "GET",
    path: "/data/web/JHN/3",
    response: bibleApiChapter,
    refusal: bibleApiRefusal,
  });
  assert.equal(bibleApiProbe.provider, "bibleapi");
  assert.equal(bibleApiProbe.request.path, "/john%203:16");
  assert.deepEqual(bibleApiProbe.request.query, { translation: "web" });
  assert.equal(bibleApiProbe.request.response, bibleApiPassage);
});

test("the recorded answer fits the declared passage; a renamed or retyped field the mapper reads is drift naming it", () => {
  const recorded = fixture("bibleapi", "john_3_16_web.json");
  assert.equal(checkShape("bibleapi", bibleApiPassage, recorded), recorded);
  const drift = (body: unknown, pointer: string) =>
    assert.throws(
      () => checkShape("bibleapi", bibleApiPassage, body),
      (e: unknown) =>
        e instanceof ProviderDrift &&
        e.code === "provider_error" &&
        e.pointer === pointer &&
        e.retryable === false &&
        e.message.startsWith("bible-api.com answered in a shape Quarry does not read"),
    );
  const verse = (recorded as { verses: Record<string, unknown>[] }).verses[0]!;
  drift({}, "/verses");
  drift({ verses: "x" }, "/verses");
  drift({ verses: [{ ...verse, text: undefined, text_renamed: verse.text }] }, "/verses/0/text");
  drift({ verses: [{ ...verse, chapter: "3" }] }, "/verses/0/chapter");
  drift({ verses: [{ ...verse, book_id: undefined }] }, "/verses/0/book_id");
  drift({ verses: [], translation_id: 7 }, "/translation_id");
  assert.throws(() => checkShape("bibleapi", bibleApiChapter, { translation: { identifier: "web" } }), ProviderDrift);
});

test("bible-api.com's refusals: its 403 abuse block and its 400 are provider_error in its words; its 404 and answers pass", () => {
  const blocked = bibleApiRefusal(undefined, 403);
  assert.ok(blocked instanceof ApiError, "blocked instanceof ApiError");
  assert.equal(blocked.code, "provider_error");
  assert.match(blocked.message, /blocks an address for an hour after more than 10 not-found answers in 30 s/);
  assert.match(blocked.hint ?? "", /KJV references are answered from the KJV shipped with Quarry/);
  const tooLong = bibleApiRefusal({ error: "too many chapters", detail: "You cannot fetch more than one whole chapter at once." }, 400);
  assert.ok(tooLong instanceof ApiError, "tooLong instanceof ApiError");
  assert.equal(tooLong.retryable, false);
  assert.match(tooLong.message, /\(HTTP 400\): too many chapters: You cannot fetch more than one whole chapter at once\.$/);
  assert.equal(bibleApiRefusal({ error: "not found" }, 404), undefined, "the passage mapper reads the 404");
  assert.equal(bibleApiRefusal(fixture("bibleapi", "john_3_16_web.json"), 200), undefined);
});

test("the recorded John 3:16 (WEB) answer maps to one record with the spec's keys, text trimmed of its newlines", () => {
  const passage = toPassage(200, fixture("bibleapi", "john_3_16_web.json") as BibleApiPassageBody, "John 3:16", "web");
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
  const body = fixture("bibleapi", "not_found_documented.json") as BibleApiPassageBody;
  assert.throws(
    () => toPassage(404, body, "John 3:99", "kjv"),
    (e: unknown) =>
      e instanceof ApiError &&
      e.code === "invalid_request" &&
      e.violations?.[0]?.path === "/reference" &&
      /no passage "John 3:99" in translation "kjv" \(it answered: not found\)/.test(e.violations[0].message),
  );
});

test("a chapter answer without any verse text is provider_error, never an empty chapter", () => {
  assert.throws(
    () => toChapterDetail({ verses: [] }, "JHN", 3, "web"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
  assert.throws(
    () => toChapterDetail({ verses: [{ book_id: "JHN", chapter: 3, verse: 1, text: " \n " }] }, "JHN", 3, "web"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error",
  );
});

test("a /data chapter answer (shape of bible-api's app.rb) maps to the chapter detail", () => {
  // Shape from seven1m/bible_api app.rb, `get '/data/:translation/:book_id/:chapter'`; verse text from
  // the recorded John 3:16 (WEB) answer; not a recording of a whole chapter.
  const recorded = fixture("bibleapi", "john_3_16_web.json") as { verses: { text: string }[] };
  const body: BibleApiChapterBody = checkShape("bibleapi", bibleApiChapter, {
    translation: {
      identifier: "web",
      name: "World English Bible",
      language: "English",
      language_code: "eng",
      license: "Public Domain",
    },
    verses: [{ book_id: "JHN", book: "John", chapter: 3, verse: 16, text: recorded.verses[0]!.text }],
  });
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

test("verse counts of the shipped KJV: a verse past its chapter's end (start or end of a range) is named; chapters and one-chapter books pass", async () => {
  const { ctx } = fakeContext(() => {
    throw new Error("no request");
  });
  const index = await kjvIndex(ctx);
  const missing = (text: string) => {
    const r = ref(text);
    return kjvMissingVerse(index, r, bookNumber(r.book), text);
  };
  assert.equal(missing("John 3:16"), undefined);
  assert.equal(missing("John 3:36"), undefined);
  assert.equal(missing("John 3"), undefined);
  assert.equal(missing("John 3:16-4:54"), undefined);
  assert.equal(missing("Jude 25"), undefined);
  assert.equal(missing("John 3:99"), 'John 3 has 36 verses in the King James Version; "John 3:99" asks for verse 99');
  assert.equal(missing("John 3:30-40"), 'John 3 has 36 verses in the King James Version; "John 3:30-40" asks for verse 40');
  assert.equal(missing("John 3:16-4:55"), 'John 4 has 54 verses in the King James Version; "John 3:16-4:55" asks for verse 55');
  assert.equal(missing("3 John 15"), '3 John 1 has 14 verses in the King James Version; "3 John 15" asks for verse 15');
  assert.equal(missing("Jude 26"), 'Jude 1 has 25 verses in the King James Version; "Jude 26" asks for verse 26');
});
