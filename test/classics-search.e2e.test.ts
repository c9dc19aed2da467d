/**
 * classics.search end to end over HTTP against the replay upstream: execute, each field's bounds
 * and the query-or-author rule (also through update, under /params), page paging across
 * Gutendex's 32-book pages, update (free), details fetched once then cached, and the Wikisource
 * fallback (Gutendex answering 503) with its notes, reduced key set and pinned paging.
 *
 * The Gutendex recording is page 1 of the unfiltered /books/ list and answers every search and
 * page (it was recorded without a query): page numbers are checked on the requests, and records
 * past the first recorded page repeat it (the replay's doing, not the cursor's).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { recordComponent } from "../src/http/openapi.ts";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("classics.search");
});
after(async () => {
  await kit.close();
});

const requestsTo = (prefix: string, from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === prefix);
const FRANKENSTEIN = "Frankenstein; Or, The Modern Prometheus";

describe("classics.search", () => {
  test("execute: Gutendex books with their spec keys, free, more and update offered", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ query: "Frankenstein", language: "en" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.result_count, 10);
    assert.equal(res.body.has_more, true);
    assert.equal(res.body.charged_credits, 0);
    assert.deepEqual(res.body.next.actions, ["more", "update"]);
    assert.deepEqual(res.body.record_actions, ["details"]);
    assert.equal(res.body.notes, undefined);
    const first = res.body.results[0];
    assert.equal(first.title, FRANKENSTEIN);
    assert.equal(first.url, "https://www.gutenberg.org/ebooks/84");
    assert.equal(first.source, "gutenberg");
    assert.deepEqual(first.authors, ["Shelley, Mary Wollstonecraft"]);
    assert.deepEqual(first.languages, ["en"]);
    assert.equal(first.downloads, 78467);
    assert.ok(first.subjects.includes("Gothic fiction"), "first.subjects.includes(\"Gothic fiction\")");
    const sent = requestsTo("gutendex", from);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.path, "/gutendex/books/");
    assert.deepEqual(sent[0]?.query, { search: "Frankenstein", languages: "en", page: "1" });
    assert.equal(sent[0]?.matched, "gutendex/books_page1");
  });

  test("paging: more continues after the last book, inside a Gutendex page and across into the next", async () => {
    const ex = await kit.execute({ author: "Austen", num: 25 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.results.length, 25);
    const from = kit.h.replay.requests.length;
    const more = await kit.more(ex.body.search_id);
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.search_id, ex.body.search_id);
    assert.equal(more.body.charged_credits, 0);
    assert.equal(more.body.results.length, 25);
    // Books 26-32 of Gutendex's page 1, then page 2 from its start (the replay serves page 1's books again).
    assert.deepEqual(
      more.body.results.slice(0, 8).map((r: { url: string }) => r.url.split("/").at(-1)),
      ["174", "1080", "6130", "28054", "3207", "408", "844", "84"],
    );
    assert.equal(more.body.results[0].title, "The Picture of Dorian Gray");
    assert.deepEqual(requestsTo("gutendex", from).map((r) => r.query.page), ["1", "2"]);
    const ids = new Set([...ex.body.results, ...more.body.results].map((r: { record_id: string }) => r.record_id));
    assert.equal(ids.size, 50, "every record is new");
    const third = await kit.more(ex.body.search_id);
    assert.equal(third.status, 200);
    // Page 2 from its 19th book (7 left there), then page 3 for the other 18.
    assert.deepEqual(requestsTo("gutendex", from).map((r) => r.query.page), ["1", "2", "2", "3"], "continues on page 2 at its skip");
  });

  test("bounds and patterns of every field are refused at their pointers", async () => {
    const cases: [object, string][] = [
      [{ query: "" }, "/query"],
      [{ query: "x".repeat(301) }, "/query"],
      [{ author: "" }, "/author"],
      [{ author: "x".repeat(201) }, "/author"],
      [{ query: "x", language: "eng" }, "/language"],
      [{ query: "x", language: "f" }, "/language"],
      [{ query: "x", language: "f1" }, "/language"],
      [{ query: "x", num: 0 }, "/num"],
      [{ query: "x", num: 26 }, "/num"],
      [{ query: "x", num: "10" }, "/num"],
      [{ query: "x", page: 2 }, "/page"],
    ];
    for (const [body, pointer] of cases) await kit.expectViolation(body, pointer);
    const ok = await kit.execute({ query: "x".repeat(300), author: "y".repeat(200), language: "FR", num: 25 });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test("rule: query or author, at the body on execute and at the removed field in update", async () => {
    await kit.expectViolation({ language: "en" }, "", /Give `query` or `author` \(or both\)/);
    await kit.expectViolation({}, "", /Give `query` or `author` \(or both\)/);
    const ex = await kit.execute({ query: "Frankenstein" });
    await kit.expectUpdateViolation(ex.body.search_id, { query: null }, "/params/query", /Give `query` or `author` \(or both\)/);
    await kit.expectUpdateViolation(ex.body.search_id, { language: "fra" }, "/params/language");
    await kit.expectUpdateViolation(ex.body.search_id, { num: 26 }, "/params/num");
    // Replacing query with author is fine: at least one is left.
    const swapped = await kit.update(ex.body.search_id, { query: null, author: "Shelley" });
    assert.equal(swapped.status, 200, JSON.stringify(swapped.body));
  });

  test("update: params merged, paging reset, same search_id, free", async () => {
    const ex = await kit.execute({ query: "Frankenstein", num: 5 });
    await kit.more(ex.body.search_id);
    const from = kit.h.replay.requests.length;
    const used = await kit.used();
    const up = await kit.update(ex.body.search_id, { language: "de" });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.search_id, ex.body.search_id);
    assert.equal(up.body.charged_credits, 0);
    assert.equal(up.body.results[0].title, FRANKENSTEIN, "paging starts again");
    assert.deepEqual(requestsTo("gutendex", from)[0]?.query, { search: "Frankenstein", languages: "de", page: "1" });
    assert.equal(await kit.used(), used);
  });

  test("details: the excerpt is fetched once from the plain text, then cached; links to plain text, EPUB, HTML; free", async () => {
    const ex = await kit.execute({ query: "Frankenstein" });
    const record = ex.body.results[0];
    const from = kit.h.replay.requests.length;
    const first = await kit.action(record.record_id, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    assert.match(first.body.detail.excerpt, /^Frankenstein;\n\nor, the Modern Prometheus/);
    assert.match(first.body.detail.excerpt, /You will rejoice to hear/);
    assert.equal(first.body.detail.gutenberg_id, 84);
    assert.deepEqual(first.body.links, [
      { label: "Project Gutenberg page", url: "https://www.gutenberg.org/ebooks/84" },
      { label: "Plain text", url: "https://www.gutenberg.org/ebooks/84.txt.utf-8" },
      { label: "EPUB", url: "https://www.gutenberg.org/ebooks/84.epub3.images" },
      { label: "HTML", url: "https://www.gutenberg.org/ebooks/84.html.images" },
    ]);
    const text = requestsTo("gutenberg", from);
    assert.equal(text.length, 1);
    assert.equal(text[0]?.path, "/gutenberg/cache/epub/84/pg84.txt");
    assert.equal(text[0]?.headers.range, "bytes=0-49151");
    assert.equal(text[0]?.matched, "gutenberg/pg84_txt");
    const again = await kit.action(record.record_id, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(requestsTo("gutenberg", from).length, 1, "the repeat makes no provider call");
  });

  test("details of a book whose text is not recorded: 502 provider_error, free, not cached", async () => {
    const ex = await kit.execute({ query: "Frankenstein" });
    const romeo = ex.body.results[1];
    assert.equal(romeo.title, "Romeo and Juliet");
    for (let i = 0; i < 2; i++) {
      const res = await kit.action(romeo.record_id, "details");
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
    }
  });

  test("fallback: Gutendex down, Wikisource answers with notes, the reduced key set, pinned paging and stored details", async () => {
    kit.h.replay.setFault("gutendex", { kind: "status", status: 503 });
    try {
      const from = kit.h.replay.requests.length;
      const ex = await kit.execute({ query: "Albert Einstein", language: "fr" });
      assert.equal(ex.status, 200, JSON.stringify(ex.body));
      assert.equal(ex.body.charged_credits, 0);
      assert.equal(ex.body.results.length, 10);
      assert.equal(ex.body.has_more, true);
      assert.equal(ex.body.notes.length, 2);
      assert.match(ex.body.notes[0], /Wikisource/);
      assert.match(ex.body.notes[0], /authors, languages, subjects and downloads are absent/);
      assert.match(ex.body.notes[1], /language filter \(language "fr"\) was not applied/);
      for (const r of ex.body.results) {
        assert.deepEqual(
          Object.keys(r).filter((k) => !["record_id", "title", "url", "source", "words"].includes(k)),
          [],
          JSON.stringify(r),
        );
        assert.equal(r.source, "wikisource");
      }
      assert.deepEqual(ex.body.results[0], {
        record_id: ex.body.results[0].record_id,
        title: "Albert Einstein",
        url: "https://en.wikisource.org/wiki/Albert_Einstein",
        source: "wikisource",
        words: 13389,
      });
      const wiki = requestsTo("wikisource", from);
      assert.equal(wiki.length, 1);
      assert.equal(wiki[0]?.matched, "wikisource/search_albert_einstein");
      assert.equal(wiki[0]?.query.srlimit, "10");
      assert.ok(requestsTo("gutendex", from).length >= 1, "Gutendex was asked first");

      // The fallback records validate against the published record component, exactly.
      const doc = (await kit.h.call("GET", "/v1/openapi.public.json")).body;
      const component = doc.components.schemas[recordComponent("classics.search")];
      const ajv = new Ajv2020({ strict: false });
      const exact = ajv.compile({ ...component, required: ["record_id", "title", "source"], additionalProperties: false });
      for (const r of ex.body.results) assert.ok(exact(r), ajv.errorsText(exact.errors));

      const moreFrom = kit.h.replay.requests.length;
      const more = await kit.more(ex.body.search_id);
      assert.equal(more.status, 200, JSON.stringify(more.body));
      assert.equal(more.body.notes.length, 2, "every fallback page carries the notes");
      assert.equal(requestsTo("gutendex", moreFrom).length, 0, "more stays on Wikisource");
      assert.equal(requestsTo("wikisource", moreFrom)[0]?.query.sroffset, "10");

      const detailsFrom = kit.h.replay.requests.length;
      const details = await kit.action(ex.body.results[0].record_id, "details");
      assert.equal(details.status, 200, JSON.stringify(details.body));
      assert.equal(details.body.charged_credits, 0);
      assert.equal(details.body.detail.source, "wikisource");
      assert.match(details.body.detail.excerpt, /^"Einstein" redirects here/);
      assert.deepEqual(details.body.links, [{ label: "Read on Wikisource (HTML)", url: "https://en.wikisource.org/wiki/Albert_Einstein" }]);
      assert.equal(kit.h.replay.requests.length, detailsFrom, "no provider call");
    } finally {
      kit.h.replay.setFault("gutendex", null);
    }
  });

  test("fallback with no hits: an empty page, Wikisource's suggestion in the notes", async () => {
    kit.h.replay.setFault("gutendex", { kind: "status", status: 503 });
    try {
      const ex = await kit.execute({ query: "hallelulejah" });
      assert.equal(ex.status, 200, JSON.stringify(ex.body));
      assert.deepEqual(ex.body.results, []);
      assert.equal(ex.body.has_more, false);
      assert.ok(ex.body.notes.includes('Wikisource suggests searching for "hallelujah".'), "ex.body.notes.includes('Wikisource suggests searching for \"hallelujah\".')");
    } finally {
      kit.h.replay.setFault("gutendex", null);
    }
  });

  test("both sources failing: 502 provider_error, nothing charged", async () => {
    kit.h.replay.setFault("gutendex", { kind: "status", status: 503 });
    kit.h.replay.setFault("wikisource", { kind: "status", status: 503 });
    try {
      const used = await kit.used();
      const res = await kit.execute({ query: "Albert Einstein" });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
      assert.equal(await kit.used(), used);
    } finally {
      kit.h.replay.setFault("gutendex", null);
      kit.h.replay.setFault("wikisource", null);
    }
  });
});
