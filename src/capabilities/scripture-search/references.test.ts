/**
 * scripture.search's reference data and parsers: the 66 books and 114 surahs, Bible references in
 * every accepted form and each way one is refused, Quran references within the surah's length.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BIBLE_BOOKS, BIBLE_TRANSLATIONS, findBook, SURAHS } from "./books.ts";
import {
  bibleApiReference,
  displayBibleReference,
  parseBibleReference,
  parseQuranReference,
  withinBibleReference,
} from "./references.ts";

test("the tables: 66 books with 1,189 chapters, 114 surahs with 6,236 verses, 16 bible-api.com translations", () => {
  assert.equal(BIBLE_BOOKS.length, 66);
  assert.equal(
    BIBLE_BOOKS.reduce((n, b) => n + b.chapters, 0),
    1189,
  );
  assert.equal(SURAHS.length, 114);
  assert.equal(
    SURAHS.reduce((n, s) => n + s.verses, 0),
    6236,
  );
  assert.deepEqual([SURAHS[0]!.name, SURAHS[1]!.verses, SURAHS[113]!.name], ["Al-Fatihah", 286, "An-Nas"]);
  assert.equal(Object.keys(BIBLE_TRANSLATIONS).length, 16);
  assert.ok("kjv" in BIBLE_TRANSLATIONS && "web" in BIBLE_TRANSLATIONS && "oeb-us" in BIBLE_TRANSLATIONS, "\"kjv\" in BIBLE_TRANSLATIONS && \"web\" in BIBLE_TRANSLATIONS && \"oeb-us\" in BIBLE_TRANSLA...");
});

test("books are found by name, id and common abbreviations, in any case, with I/II/III and First/Second", () => {
  const cases: [string, string][] = [
    ["John", "John"],
    ["jn", "John"],
    ["JHN", "John"],
    ["1 John", "1 John"],
    ["1john", "1 John"],
    ["I John", "1 John"],
    ["First John", "1 John"],
    ["III John", "3 John"],
    ["Ps", "Psalms"],
    ["Psalm", "Psalms"],
    ["song of songs", "Song of Solomon"],
    ["Song of Solomon", "Song of Solomon"],
    ["1 Cor.", "1 Corinthians"],
    ["II Kings", "2 Kings"],
    ["Rev", "Revelation"],
    ["Phil", "Philippians"],
    ["Philem", "Philemon"],
  ];
  for (const [typed, name] of cases) assert.equal(findBook(typed)?.name, name, typed);
  assert.equal(findBook("Hezekiah"), undefined);
  assert.equal(findBook("4 John"), undefined);
});

test("Bible references: chapter, verse, verse range, cross-chapter range, chapter range", () => {
  const ok = (text: string) => {
    const p = parseBibleReference(text);
    assert.ok(p.ok, `${text}: ${p.ok ? "" : p.message}`);
    return p.ref;
  };
  assert.deepEqual(ok("John 3:16"), { book: findBook("John"), chapter: 3, verse: 16 });
  assert.deepEqual(ok("  jn 3 : 16 "), { book: findBook("John"), chapter: 3, verse: 16 });
  assert.deepEqual(ok("Psalm 23"), { book: findBook("Psalms"), chapter: 23 });
  assert.deepEqual(ok("Romans 8:28-39"), { book: findBook("Romans"), chapter: 8, verse: 28, toVerse: 39 });
  assert.deepEqual(ok("John 3:16-4:2"), {
    book: findBook("John"),
    chapter: 3,
    verse: 16,
    toChapter: 4,
    toVerse: 2,
  });
  assert.deepEqual(ok("Genesis 1-2"), { book: findBook("Genesis"), chapter: 1, toChapter: 2 });
  assert.deepEqual(ok("John 3:16-16"), { book: findBook("John"), chapter: 3, verse: 16 });
  assert.deepEqual(ok("1 Cor 13:4-7"), {
    book: findBook("1 Corinthians"),
    chapter: 13,
    verse: 4,
    toVerse: 7,
  });
  // One-chapter books: a lone number is the verse, as bible-api.com reads it.
  assert.deepEqual(ok("Jude 5"), { book: findBook("Jude"), chapter: 1, verse: 5 });
  assert.deepEqual(ok("Jude 3-5"), { book: findBook("Jude"), chapter: 1, verse: 3, toVerse: 5 });
  assert.deepEqual(ok("Jude 1:5"), { book: findBook("Jude"), chapter: 1, verse: 5 });

  assert.equal(bibleApiReference(ok("John 3:16")), "john 3:16");
  assert.equal(bibleApiReference(ok("1 Cor 13:4-7")), "1 corinthians 13:4-7");
  assert.equal(bibleApiReference(ok("John 3:16-4:2")), "john 3:16-4:2");
  assert.equal(bibleApiReference(ok("Jude 5")), "jude 1:5");
  assert.equal(displayBibleReference(ok("ps 23")), "Psalms 23");
});

test("Bible references are refused when unparseable, of an unknown book, past the book's chapters or reversed", () => {
  const refused = (text: string, message: RegExp) => {
    const p = parseBibleReference(text);
    assert.equal(p.ok, false, text);
    if (!p.ok) assert.match(p.message, message, text);
  };
  refused("John", /cannot read "John" as a Bible reference; expected/);
  refused("3:16", /cannot read/);
  refused("John three", /cannot read/);
  refused("John 3:16; Rom 5:8", /cannot read/);
  refused("Hezekiah 3:1", /unknown book "Hezekiah"/);
  refused("John 22", /John has 21 chapters; "John 22" asks for chapter 22/);
  refused("Jude 2:1", /Jude has 1 chapter;/);
  refused("John 0:1", /start at 1/);
  refused("John 3:18-16", /ends before it starts/);
  refused("John 4-3", /ends before it starts/);
  refused("John 3:1-22:1", /John has 21 chapters/);
});

test("a verse lies within a reference", () => {
  const ref = (text: string) => {
    const p = parseBibleReference(text);
    assert.ok(p.ok, "p.ok");
    return p.ref;
  };
  assert.ok(withinBibleReference(ref("John 3"), 3, 36), "withinBibleReference(ref(\"John 3\"), 3, 36)");
  assert.ok(!withinBibleReference(ref("John 3"), 4, 1), "!withinBibleReference(ref(\"John 3\"), 4, 1)");
  assert.ok(withinBibleReference(ref("John 3:16"), 3, 16), "withinBibleReference(ref(\"John 3:16\"), 3, 16)");
  assert.ok(!withinBibleReference(ref("John 3:16"), 3, 17), "!withinBibleReference(ref(\"John 3:16\"), 3, 17)");
  assert.ok(withinBibleReference(ref("John 3:16-4:2"), 4, 2), "withinBibleReference(ref(\"John 3:16-4:2\"), 4, 2)");
  assert.ok(!withinBibleReference(ref("John 3:16-4:2"), 4, 3), "!withinBibleReference(ref(\"John 3:16-4:2\"), 4, 3)");
  assert.ok(!withinBibleReference(ref("John 3:16-4:2"), 3, 15), "!withinBibleReference(ref(\"John 3:16-4:2\"), 3, 15)");
  assert.ok(withinBibleReference(ref("John 3-4"), 4, 54), "withinBibleReference(ref(\"John 3-4\"), 4, 54)");
});

test("Quran references: chapter:verse or chapter, within the surah", () => {
  assert.deepEqual(parseQuranReference("2:255"), { ok: true, ref: { chapter: 2, verse: 255 } });
  assert.deepEqual(parseQuranReference(" 112 "), { ok: true, ref: { chapter: 112 } });
  assert.deepEqual(parseQuranReference("1 : 7"), { ok: true, ref: { chapter: 1, verse: 7 } });
  const refused = (text: string, message: RegExp) => {
    const p = parseQuranReference(text);
    assert.equal(p.ok, false, text);
    if (!p.ok) assert.match(p.message, message, text);
  };
  refused("1:8", /surah 1 \(Al-Fatihah\) has 7 verses; "1:8" asks for verse 8/);
  refused("2:0", /has 286 verses/);
  refused("115", /no surah 115; surahs are numbered 1-114/);
  refused("0:1", /no surah 0/);
  refused(
    "Al-Fatihah",
    /cannot read "Al-Fatihah" as a Quran reference; expected "chapter:verse" or "chapter"/,
  );
  refused("John 3:16", /cannot read/);
  refused("2:255-257", /cannot read/);
});
