/**
 * books.search end to end over HTTP against the replay upstream: the example search, every field's
 * bounds and the at-least-one rule (also through `update`), page paging with `more`, update, and
 * `details` fetched once (free) then served from cache.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;

before(async () => {
  kit = await startCapabilityKit("books.search");
});
after(async () => {
  await kit.close();
});

const searchRequests = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.path === "/openlibrary/search.json");

describe("books.search", () => {
  test("execute: the example answers records without snippet, free", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ query: "quiet" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 0);
    assert.equal(res.body.has_more, false);
    assert.deepEqual(res.body.record_actions, ["details"]);
    const [quiet] = res.body.results;
    assert.equal(quiet.title, "Quiet");
    assert.equal(quiet.url, "https://openlibrary.org/works/OL16484595W");
    assert.equal(quiet.cover_url, "https://covers.openlibrary.org/b/id/7079753-M.jpg");
    assert.equal(quiet.subjects.length, 10);
    assert.equal("snippet" in quiet, false);
    assert.equal("authors" in quiet, false, "the source doc has no author names: none invented");
    const [sent] = searchRequests(from);
    assert.equal(sent?.query.q, "quiet");
    assert.equal(sent?.query.fields, "key,title,author_name,first_publish_year,edition_count,ratings_average,subject,isbn,cover_i");
    assert.equal(sent?.query.limit, "10");
    assert.equal(sent?.query.offset, "0");
  });

  test("bounds: query 1-300, author 1-200, subject 1-200, num 1-25, no unknown fields", async () => {
    await kit.expectViolation({ query: "" }, "/query");
    await kit.expectViolation({ query: "x".repeat(301) }, "/query");
    await kit.expectViolation({ author: "" }, "/author");
    await kit.expectViolation({ author: "x".repeat(201) }, "/author");
    await kit.expectViolation({ subject: "" }, "/subject");
    await kit.expectViolation({ subject: "x".repeat(201) }, "/subject");
    await kit.expectViolation({ query: "x", num: 0 }, "/num");
    await kit.expectViolation({ query: "x", num: 26 }, "/num");
    await kit.expectViolation({ query: "x", num: 2.5 }, "/num");
    await kit.expectViolation({ query: "x", page: 2 }, "/page");
    for (const body of [{ query: "x".repeat(300), num: 25 }, { author: "x".repeat(200), num: 1 }, { subject: "x".repeat(200) }]) {
      const res = await kit.execute(body);
      assert.notEqual(res.status, 400, JSON.stringify(body));
    }
  });

  test("rule: at least one of query, author, subject (at the body; under /params when update removes it)", async () => {
    await kit.expectViolation({}, "", /at least one of `query`, `author` or `subject`/);
    await kit.expectViolation({ num: 5 }, "", /at least one/);
    const ex = await kit.execute({ query: "quiet" });
    await kit.expectUpdateViolation(ex.body.search_id, { query: null }, "/params/query", /at least one/);
    await kit.expectUpdateViolation(ex.body.search_id, { num: 26 }, "/params/num");
    await kit.expectUpdateViolation(ex.body.search_id, { author: "" }, "/params/author");
  });

  test("page paging: more asks for the next offset and appends the next records", async () => {
    const first = await kit.execute({ query: "denver", num: 2 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(
      first.body.results.map((r: { title: string }) => r.title),
      ["Denver **", "Denver Gift"],
    );
    assert.equal(first.body.has_more, true);
    assert.deepEqual(first.body.results[0].authors, ["John Dunning"]);
    assert.equal(first.body.results[0].first_published, 1982);
    assert.equal(first.body.results[0].editions, 2);
    assert.equal(first.body.results[0].isbn, "9780449047118");
    const from = kit.h.replay.requests.length;
    const next = await kit.more(first.body.search_id);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.search_id, first.body.search_id);
    assert.deepEqual(
      next.body.results.map((r: { title: string }) => r.title),
      ["The Denver cereal", "Denver now"],
    );
    assert.equal(next.body.charged_credits, 0);
    const [sent] = searchRequests(from);
    assert.equal(sent?.query.offset, "2");
    assert.equal(sent?.query.limit, "2");
    // Page 3 reaches past the 5 recorded docs: the replay has nothing, which is a provider error.
    const third = await kit.more(first.body.search_id);
    assert.equal(third.status, 502, JSON.stringify(third.body));
    assert.equal(third.body.error.code, "provider_error");
  });

  test("update: merges params, keeps the search id, resets paging, free", async () => {
    const ex = await kit.execute({ query: "denver", num: 2 });
    await kit.more(ex.body.search_id);
    const from = kit.h.replay.requests.length;
    const up = await kit.update(ex.body.search_id, { num: 3 });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.search_id, ex.body.search_id);
    assert.equal(up.body.results.length, 3);
    assert.equal(up.body.charged_credits, 0);
    const [sent] = searchRequests(from);
    assert.equal(sent?.query.offset, "0", "paging starts again");
    assert.equal(sent?.query.limit, "3");
    assert.equal(sent?.query.q, "denver");
  });

  test("details: fetched from the work (and its editions) once, free; the repeat is cached", async () => {
    const ex = await kit.execute({ query: "quiet" });
    const recordId = ex.body.results[0].record_id;
    const usedBefore = await kit.used();
    const from = kit.h.replay.requests.length;
    const first = await kit.action(recordId, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    assert.equal(first.body.detail.work_id, "OL16484595W");
    assert.equal(first.body.detail.title, "Quiet");
    assert.equal(first.body.detail.subjects.length, 20);
    assert.ok(first.body.links.some((l: { url: string }) => l.url === "https://openlibrary.org/works/OL16484595W"), "first.body.links.some((l: { url: string }) => l.url === \"https://openlibrary.org/works/...");
    const paths = kit.h.replay.requests.slice(from).map((r) => r.path);
    assert.deepEqual(paths.sort(), ["/openlibrary/works/OL16484595W.json", "/openlibrary/works/OL16484595W/editions.json"]);
    const again = await kit.action(recordId, "details");
    assert.equal(again.status, 200);
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(kit.h.replay.requests.length, from + 2, "no provider call for the cached repeat");
    assert.equal(await kit.used(), usedBefore);
  });

  test("details of a work Open Library does not have (404): invalid_request at /record_id, nothing charged", async () => {
    const ex = await kit.execute({ query: "denver", num: 2 });
    const res = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.violations[0].path, "/record_id");
    assert.match(res.body.error.violations[0].message, /OL7919260W/);
  });

  test("a failing Open Library is a provider error, charged nothing", async () => {
    kit.h.replay.setFault("openlibrary", { kind: "status", status: 503 });
    try {
      const res = await kit.execute({ query: "quiet" });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
      assert.equal(res.body.error.retryable, true);
    } finally {
      kit.h.replay.setFault("openlibrary", null);
    }
  });
});
