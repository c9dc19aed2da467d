/**
 * Gutendex mapper tests: the request, the recorded page 1 of /books/ mapped to records, the
 * download-link choice, and the {page, skip} cursor that slices Gutendex's 32-book pages into
 * pages of `num` without repeating or skipping a book.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { Obj } from "../shared/read.ts";
import {
  bookFormats,
  type GutendexBook,
  type GutendexPage,
  gutendexList,
  gutendexProbe,
  gutendexSlice,
  needsNextPage,
  parseGutendexCursor,
  searchWords,
  toGutenbergRecord,
  toGutendexRequest,
} from "./gutendex.ts";

const recorded = () => checkShape("gutendex", gutendexList, fixture("gutendex", "books_page1.json"));
const isDrift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^Gutendex answered in a shape/.test(e.message);

test("request: search holds query then author; languages lower-cased; page always sent", () => {
  assert.deepEqual(toGutendexRequest({ query: "Pride", author: "Austen", language: "EN", num: 10 }, 1), {
    provider: "gutendex",
    method: "GET",
    path: "/books/",
    query: { search: "Pride Austen", languages: "en", page: 1 },
    response: gutendexList,
  });
  assert.deepEqual(toGutendexRequest({ author: "Shelley", num: 5 }, 3).query, { search: "Shelley", page: 3 });
  assert.equal(searchWords({ query: "  Moby Dick ", author: undefined }), "Moby Dick");
});

test("cursor: null is page 1 from its start; nonsense falls back to it", () => {
  assert.deepEqual(parseGutendexCursor(null), { page: 1, skip: 0 });
  assert.deepEqual(parseGutendexCursor({ page: 3, skip: 20 }), { page: 3, skip: 20 });
  assert.deepEqual(parseGutendexCursor({ page: 0, skip: 40 }), { page: 1, skip: 0 });
  assert.deepEqual(parseGutendexCursor("x"), { page: 1, skip: 0 });
});

test("the recorded page: 32 books, a next page, every book mapped with its spec keys", () => {
  const page = recorded();
  assert.equal(page.results.length, 32);
  assert.equal(page.count, 74398);
  assert.equal(page.next, "https://gutendex.com/books/?page=2");
  const record = toGutenbergRecord(page.results[0]!);
  assert.ok(record, "record");
  assert.deepEqual(record.summary, {
    title: "Frankenstein; Or, The Modern Prometheus",
    url: "https://www.gutenberg.org/ebooks/84",
    source: "gutenberg",
    authors: ["Shelley, Mary Wollstonecraft"],
    languages: ["en"],
    subjects: [
      "Frankenstein's monster (Fictitious character) -- Fiction",
      "Frankenstein, Victor (Fictitious character) -- Fiction",
      "Gothic fiction",
      "Horror tales",
      "Monsters -- Fiction",
      "Science fiction",
      "Scientists -- Fiction",
    ],
    downloads: 78467,
  });
  assert.deepEqual(record.detail?.authors, [{ name: "Shelley, Mary Wollstonecraft", birth_year: 1797, death_year: 1851 }]);
  assert.deepEqual(record.detail?.formats, {
    plain_text: "https://www.gutenberg.org/ebooks/84.txt.utf-8",
    epub: "https://www.gutenberg.org/ebooks/84.epub3.images",
    html: "https://www.gutenberg.org/ebooks/84.html.images",
  });
  assert.equal(record.detail?.copyright, false);
  assert.equal("excerpt" in (record.detail ?? {}), false, "fetched by details");
  assert.deepEqual(record.ref, {
    source: "gutenberg",
    gutenberg_id: 84,
    has_plain_text: true,
    links: [
      { label: "Project Gutenberg page", url: "https://www.gutenberg.org/ebooks/84" },
      { label: "Plain text", url: "https://www.gutenberg.org/ebooks/84.txt.utf-8" },
      { label: "EPUB", url: "https://www.gutenberg.org/ebooks/84.epub3.images" },
      { label: "HTML", url: "https://www.gutenberg.org/ebooks/84.html.images" },
    ],
  });
  for (const book of page.results) assert.ok(toGutenbergRecord(book), String(book.title));
});

test("a book without authors leaves `authors` out (Beowulf); the UTF-8 plain text is preferred", () => {
  const page = recorded();
  const beowulf = page.results.find((b) => b.id === 16328)!;
  const record = toGutenbergRecord(beowulf);
  assert.equal("authors" in (record?.summary ?? {}), false);
  const moby = toGutenbergRecord(page.results.find((b) => b.id === 2701)!);
  const formats = (moby?.detail?.formats ?? {}) as Obj;
  assert.equal(formats.plain_text, "https://www.gutenberg.org/files/2701/2701-0.txt");
  assert.equal(formats.html, "https://www.gutenberg.org/ebooks/2701.html.images");
});

test("formats: zip files and non-http values are not download links", () => {
  assert.deepEqual(bookFormats({ "text/plain": "https://x/a.zip", "application/epub+zip": "ftp://x", "text/html": " " }), {});
  assert.deepEqual(bookFormats(undefined), {});
});

test("a book whose title is null (Gutendex allows it) is not a record; a summary becomes the snippet", () => {
  assert.equal(toGutenbergRecord({ id: 1, title: null }), null);
  assert.equal(toGutenbergRecord({ id: 0, title: "x" }), null);
  const r = toGutenbergRecord({ id: 1, title: "T", summaries: ["A summary."], authors: [], languages: [], download_count: null, copyright: null });
  assert.deepEqual(r?.summary, { title: "T", url: "https://www.gutenberg.org/ebooks/1", snippet: "A summary.", source: "gutenberg" });
});

test("drift: a body without results, a book without id or title key, a retyped field, naming Gutendex", () => {
  assert.throws(() => checkShape("gutendex", gutendexList, { detail: "Invalid page." }), isDrift("/next"));
  assert.throws(() => checkShape("gutendex", gutendexList, { count: 0, next: null }), isDrift("/results"));
  assert.throws(() => checkShape("gutendex", gutendexList, { next: null, results: [{ title: "x" }] }), isDrift("/results/0/id"));
  assert.throws(() => checkShape("gutendex", gutendexList, { next: null, results: [{ id: 1 }] }), isDrift("/results/0/title"));
  assert.throws(() => checkShape("gutendex", gutendexList, { next: null, results: [{ id: 1, title: "T", download_count: "5" }] }), isDrift("/results/0/download_count"));
  assert.equal(gutendexProbe.provider, "gutendex");
  assert.equal(gutendexProbe.request.path, "/books/");
  assert.equal(gutendexProbe.request.response, gutendexList);
});

/** Pages of numbered books: `total` books in pages of 32. */
function pages(total: number): (page: number) => GutendexPage {
  return (page) => {
    const from = (page - 1) * 32;
    const results = Array.from({ length: Math.max(0, Math.min(32, total - from)) }, (_, i): GutendexBook => ({ id: from + i + 1, title: `Book ${from + i + 1}` }));
    return { count: total, next: from + 32 < total ? `https://gutendex.com/books/?page=${page + 1}` : null, results };
  };
}

/** Walk a whole result set with `more` and return the ids in the order served. */
function walk(total: number, num: number): { ids: number[]; requests: number[] } {
  const get = pages(total);
  const ids: number[] = [];
  const requests: number[] = [];
  let cursor = parseGutendexCursor(null) as ReturnType<typeof parseGutendexCursor> | null;
  for (let guard = 0; cursor !== null && guard < 1000; guard++) {
    const first = get(cursor.page);
    requests.push(cursor.page);
    const second = needsNextPage(first, cursor, num) ? get(cursor.page + 1) : null;
    if (second) requests.push(cursor.page + 1);
    const slice = gutendexSlice(first, second, cursor, num);
    ids.push(...slice.books.map((b) => b.id as number));
    cursor = slice.next;
  }
  return { ids, requests };
}

test("paging: every book exactly once, in order, for every num and several totals", () => {
  for (const total of [0, 1, 31, 32, 33, 64, 100]) {
    for (const num of [1, 5, 10, 25]) {
      const { ids } = walk(total, num);
      assert.deepEqual(ids, Array.from({ length: total }, (_, i) => i + 1), `total ${total}, num ${num}`);
    }
  }
});

test("paging: a slice that crosses a Gutendex page asks for the next page and carries the skip", () => {
  const get = pages(100);
  const at = { page: 1, skip: 25 };
  assert.equal(needsNextPage(get(1), at, 25), true);
  const slice = gutendexSlice(get(1), get(2), at, 25);
  assert.deepEqual(
    slice.books.map((b) => b.id),
    Array.from({ length: 25 }, (_, i) => 26 + i),
  );
  assert.deepEqual(slice.next, { page: 2, skip: 18 });
  // Within a page: no second request; the end of a page moves to the next page's start.
  assert.equal(needsNextPage(get(1), { page: 1, skip: 0 }, 10), false);
  assert.deepEqual(gutendexSlice(get(1), null, { page: 1, skip: 22 }, 10).next, { page: 2, skip: 0 });
  // The last page: no next page to ask for, and no cursor after it.
  assert.equal(needsNextPage(get(4), { page: 4, skip: 0 }, 10), false);
  assert.equal(gutendexSlice(get(4), null, { page: 4, skip: 0 }, 10).next, null);
});
