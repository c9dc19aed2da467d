/**
 * Wikisource (MediaWiki search) mapper tests with the recorded search bodies, the fallback notes,
 * and the Project Gutenberg excerpt taken from the recorded beginning of pg84.txt.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture, fixtureText } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { EXCERPT_CHARS, excerptOf, toExcerptRequest } from "./gutenberg.ts";
import { parseWikisourceCursor, toWikisourcePage, toWikisourceRequest, wikisourceFallbackNotes, wikisourceUrl } from "./wikisource.ts";

test("request: MediaWiki list=search with srlimit = num and the offset; author words appended", () => {
  assert.deepEqual(toWikisourceRequest({ query: "Albert Einstein", num: 10 }, 0), {
    provider: "wikisource",
    method: "GET",
    path: "/w/api.php",
    query: {
      action: "query",
      list: "search",
      srsearch: "Albert Einstein",
      srnamespace: 0,
      srlimit: 10,
      sroffset: 0,
      srprop: "snippet|wordcount|size|timestamp",
      format: "json",
    },
  });
  assert.equal(toWikisourceRequest({ query: "The Raven", author: "Poe", num: 5 }, 20).query?.srsearch, "The Raven Poe");
  assert.equal(parseWikisourceCursor({ offset: 20 }), 20);
  assert.equal(parseWikisourceCursor(null), 0);
});

test("the recorded search: title, url, source and words only; the snippet as text in the stored detail", () => {
  const page = toWikisourcePage(fixture("wikisource", "search_albert_einstein.json"), 0);
  assert.equal(page.records.length, 10);
  assert.deepEqual(page.next, { offset: 10 });
  assert.equal(page.notes, undefined);
  const first = page.records[0]!;
  assert.deepEqual(first.summary, {
    title: "Albert Einstein",
    url: "https://en.wikisource.org/wiki/Albert_Einstein",
    source: "wikisource",
    words: 13389,
  });
  assert.equal(first.detail?.source, "wikisource");
  assert.equal(first.detail?.words, 13389);
  assert.equal(first.detail?.size_bytes, 124744);
  assert.equal(first.detail?.last_edited, "2015-07-03T09:46:19Z");
  const excerpt = String(first.detail?.excerpt);
  assert.match(excerpt, /^"Einstein" redirects here\. For other uses, see Albert Einstein \(disambiguation\)/);
  assert.doesNotMatch(excerpt, /<span|&quot;/);
  assert.deepEqual(first.ref, {
    source: "wikisource",
    title: "Albert Einstein",
    links: [{ label: "Read on Wikisource (HTML)", url: "https://en.wikisource.org/wiki/Albert_Einstein" }],
  });
});

test("hits without snippet or word count (srprop empty) keep title, url and source; legacy continuation pages on", () => {
  const page = toWikisourcePage(fixture("wikisource", "search_porsche_srlimit3.json"), 0);
  assert.deepEqual(
    page.records.map((r) => r.summary),
    [
      { title: "Porsche", url: "https://en.wikisource.org/wiki/Porsche", source: "wikisource" },
      { title: "Porsche in motorsport", url: "https://en.wikisource.org/wiki/Porsche_in_motorsport", source: "wikisource" },
      page.records[2]!.summary,
    ],
  );
  assert.deepEqual(page.next, { offset: 3 });
});

test("no hits: an empty page with the suggestion as a note, no next", () => {
  const page = toWikisourcePage(fixture("wikisource", "search_empty_with_suggestion.json"), 0);
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
  assert.deepEqual(page.notes, ['Wikisource suggests searching for "hallelujah".']);
});

test("a MediaWiki error body, or no search list, is a provider error", () => {
  assert.throws(
    () => toWikisourcePage({ error: { code: "srsearch-text-disabled", info: "text search is disabled" } }, 0),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /text search is disabled/.test(e.message),
  );
  assert.throws(() => toWikisourcePage({ batchcomplete: "" }, 0), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
});

test("page urls: spaces as underscores, slashes and colons kept, the rest encoded", () => {
  assert.equal(wikisourceUrl("The Raven (Poe)"), "https://en.wikisource.org/wiki/The_Raven_(Poe)");
  assert.equal(wikisourceUrl("Author:Edgar Allan Poe/Poems"), "https://en.wikisource.org/wiki/Author:Edgar_Allan_Poe/Poems");
  assert.equal(wikisourceUrl("Père Goriot?"), "https://en.wikisource.org/wiki/P%C3%A8re_Goriot%3F");
});

test("fallback notes: what is absent always; the author and language filters only when given", () => {
  const [absent, ...rest] = wikisourceFallbackNotes({ query: "x", num: 10 });
  assert.match(absent!, /authors, languages, subjects and downloads are absent/);
  assert.match(absent!, /Wikisource/);
  assert.deepEqual(rest, []);
  const notes = wikisourceFallbackNotes({ query: "x", author: "Poe", language: "fr", num: 10 });
  assert.equal(notes.length, 3);
  assert.match(notes[1]!, /author/);
  assert.match(notes[2]!, /language filter \(language "fr"\) was not applied/);
});

test("excerpt: asks for the file's beginning; the text after Gutenberg's START line, cut on a word", () => {
  assert.deepEqual(toExcerptRequest(84), {
    provider: "gutenberg",
    method: "GET",
    path: "/cache/epub/84/pg84.txt",
    headers: { range: "bytes=0-49151" },
    responseType: "text",
  });
  const excerpt = excerptOf(fixtureText("gutenberg", "pg84.txt"))!;
  assert.ok(excerpt.startsWith("Frankenstein;\n\nor, the Modern Prometheus\n\nby Mary Wollstonecraft (Godwin) Shelley"), excerpt.slice(0, 80));
  assert.doesNotMatch(excerpt, /Project Gutenberg License|START OF/);
  assert.match(excerpt, /You will rejoice to hear that no disaster/);
  assert.doesNotMatch(excerpt, /\n{3}/);
  assert.ok(excerpt.length <= EXCERPT_CHARS && excerpt.endsWith("…"));
  assert.equal(excerptOf("\ufeffShort text\r\nwithout a START line."), "Short text\nwithout a START line.");
  assert.equal(excerptOf("*** START OF THE PROJECT GUTENBERG EBOOK X ***\n\n  \n"), null);
});
