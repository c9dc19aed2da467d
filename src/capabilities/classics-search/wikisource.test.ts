/**
 * Wikisource (MediaWiki search) mapper tests with the recorded search bodies, the fallback notes,
 * and the Project Gutenberg excerpt taken from the recorded beginning of pg84.txt.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture, fixtureText } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import { EXCERPT_CHARS, excerptOf, gutenbergProbe, toExcerptRequest } from "./gutenberg.ts";
import {
  mediaWikiRefusal,
  mediaWikiSearch,
  parseWikisourceCursor,
  toWikisourcePage,
  toWikisourceRequest,
  wikisourceFallbackNotes,
  wikisourceProbe,
  wikisourceUrl,
} from "./wikisource.ts";

const search = (name: string) => checkShape("wikisource", mediaWikiSearch, fixture("wikisource", name));

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
    refusal: mediaWikiRefusal,
    response: mediaWikiSearch,
  });
  assert.equal(toWikisourceRequest({ query: "The Raven", author: "Poe", num: 5 }, 20).query?.srsearch, "The Raven Poe");
  assert.equal(parseWikisourceCursor({ offset: 20 }), 20);
  assert.equal(parseWikisourceCursor(null), 0);
});

test("the recorded search: title, url, source and words only; the snippet as text in the stored detail", () => {
  const page = toWikisourcePage(search("search_albert_einstein.json"), 0);
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
  const page = toWikisourcePage(search("search_porsche_srlimit3.json"), 0);
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
  const page = toWikisourcePage(search("search_empty_with_suggestion.json"), 0);
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
  assert.deepEqual(page.notes, ['Wikisource suggests searching for "hallelujah".']);
});

test("a MediaWiki error body (any status) is refused in its words before the schema; no search list is drift", () => {
  const request = toWikisourceRequest({ query: "x", num: 10 }, 0);
  const error = { error: { code: "srsearch-text-disabled", info: "text search is disabled" } };
  assert.throws(
    () => checkJsonAnswer(request, 200, error),
    (e: unknown) => e instanceof ApiError && !(e instanceof ProviderDrift) && e.code === "provider_error" && /text search is disabled/.test(e.message),
  );
  assert.equal(mediaWikiRefusal(fixture("wikisource", "search_albert_einstein.json"), 200), undefined);
  assert.throws(
    () => checkJsonAnswer(request, 200, { batchcomplete: "" }),
    (e: unknown) => e instanceof ProviderDrift && e.pointer === "/query" && /^Wikisource answered in a shape/.test(e.message),
  );
  assert.throws(() => checkShape("wikisource", mediaWikiSearch, { query: { search: [{ ns: 0 }] } }), (e: unknown) => e instanceof ProviderDrift && e.pointer === "/query/search/0/title");
  assert.throws(
    () => checkShape("wikisource", mediaWikiSearch, { query: { search: [{ title: "x", wordcount: "12" }] } }),
    (e: unknown) => e instanceof ProviderDrift && e.pointer === "/query/search/0/wordcount",
  );
  assert.equal(wikisourceProbe.request.query?.srlimit, 1);
  assert.equal(wikisourceProbe.request.response, mediaWikiSearch);
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
    response: "text",
  });
  assert.deepEqual(gutenbergProbe.request, toExcerptRequest(84));
  const excerpt = excerptOf(fixtureText("gutenberg", "pg84.txt"))!;
  assert.ok(excerpt.startsWith("Frankenstein;\n\nor, the Modern Prometheus\n\nby Mary Wollstonecraft (Godwin) Shelley"), excerpt.slice(0, 80));
  assert.doesNotMatch(excerpt, /Project Gutenberg License|START OF/);
  assert.match(excerpt, /You will rejoice to hear that no disaster/);
  assert.doesNotMatch(excerpt, /\n{3}/);
  assert.ok(excerpt.length <= EXCERPT_CHARS && excerpt.endsWith("…"), "excerpt.length <= EXCERPT_CHARS && excerpt.endsWith(\"…\")");
  assert.equal(excerptOf("\ufeffShort text\r\nwithout a START line."), "Short text\nwithout a START line.");
  assert.equal(excerptOf("*** START OF THE PROJECT GUTENBERG EBOOK X ***\n\n  \n"), null);
});

test("excerpt: an HTML page where the plain text was expected is drift naming Project Gutenberg", () => {
  const drift = (e: unknown) => e instanceof ProviderDrift && e.pointer === "" && /^Project Gutenberg answered in a shape/.test(e.message) && e.retryable === false;
  assert.throws(() => excerptOf("<!DOCTYPE html><html><head><title>Not found</title></head></html>"), drift);
  assert.throws(() => excerptOf("Page moved", "text/html; charset=utf-8"), drift);
  assert.ok(excerptOf(fixtureText("gutenberg", "pg84.txt"), "text/plain; charset=utf-8"), "excerptOf(fixtureText(\"gutenberg\", \"pg84.txt\"), \"text/plain; charset=utf-8\")");
});
