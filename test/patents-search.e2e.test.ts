/**
 * patents.search end to end over HTTP against the replay upstream: the example search (POST body and
 * key header as sent), every field's bounds and rule (also through `update`), token paging on the
 * `after` cursor (a replay serving a page of a larger result), free cached details, and the
 * capability unavailable without PATENTSVIEW_API_KEY.
 */
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ReplayServer, startReplay } from "../src/replay/replay-server.ts";
import { type CapabilityKit, fixture, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
let keyless: CapabilityKit;
let paged: CapabilityKit;
let pagedReplay: ReplayServer;
let dir: string;

/**
 * A replay whose POST answer is one page of a larger result: the recorded patent 5116621 in an
 * envelope reporting 3,001 hits (built here, in the test, from the recorded body).
 */
async function startPagedReplay(): Promise<ReplayServer> {
  dir = mkdtempSync(join(tmpdir(), "patents-replay-"));
  mkdirSync(join(dir, "patentsview"));
  const recorded = fixture("patentsview", "patent_get_all_fields.json") as { patents: unknown[] };
  writeFileSync(join(dir, "patentsview", "page.json"), JSON.stringify({ error: false, count: 1, total_hits: 3001, patents: recorded.patents }));
  const entry = { case: "page", file: "page.json", method: "POST", url_path: "/api/v1/patent/", status: 200 };
  writeFileSync(join(dir, "patentsview", "index.json"), JSON.stringify([entry]));
  return startReplay({ fixturesDir: dir });
}

before(async () => {
  kit = await startCapabilityKit("patents.search");
  keyless = await startCapabilityKit("patents.search", { env: { PATENTSVIEW_API_KEY: "" }, replay: kit.h.replay });
  pagedReplay = await startPagedReplay();
  paged = await startCapabilityKit("patents.search", { replay: pagedReplay });
});
after(async () => {
  await paged.close();
  await pagedReplay.close();
  rmSync(dir, { recursive: true, force: true });
  await keyless.close();
  await kit.close();
});

const patentCalls = (k: CapabilityKit, from: number) => k.h.replay.requests.slice(from).filter((r) => r.path === "/patentsview/api/v1/patent/");

describe("patents.search", () => {
  test("execute: POST {q, f, s, o} with the key header; records typed as designed", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ assignee: "Teikoku Seiyaku", from_date: "1990-01-01", to_date: "1995-12-31", sort: "oldest" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 0);
    assert.equal(res.body.has_more, false);
    const [p] = res.body.results;
    assert.equal(p.patent_id, "5116621");
    assert.equal(p.title, "Anti-inflammatory analgesic patch");
    assert.equal(p.date, "1992-05-26");
    assert.deepEqual(p.assignees, ["Lederle (Japan), Ltd.", "TEIKOKU SEIYAKU CO., LTD."]);
    assert.equal(p.inventors.length, 4);
    assert.equal(p.cpc[0], "A61K9/7061");
    assert.match(p.snippet, /^An anti-inflammatory analgesic patch/);
    const [sent] = patentCalls(kit, from);
    assert.equal(sent?.method, "POST");
    assert.equal(sent?.headers["x-api-key"], "demo-key");
    assert.deepEqual(JSON.parse(sent?.body ?? "{}").q, {
      _and: [
        { _gte: { patent_date: "1990-01-01" } },
        { _lte: { patent_date: "1995-12-31" } },
        { _text_phrase: { "assignees.assignee_organization": "Teikoku Seiyaku" } },
      ],
    });
    assert.deepEqual(JSON.parse(sent?.body ?? "{}").s, [{ patent_date: "asc" }, { patent_id: "asc" }]);
    assert.deepEqual(JSON.parse(sent?.body ?? "{}").o, { size: 10 });
  });

  test("bounds: query 1-300, match, dates YYYY-MM-DD, assignee and inventor 1-200, sort, num 1-25", async () => {
    await kit.expectViolation({ query: "" }, "/query");
    await kit.expectViolation({ query: "x".repeat(301) }, "/query");
    await kit.expectViolation({ query: "x", match: "most" }, "/match");
    await kit.expectViolation({ from_date: "1990-1-1" }, "/from_date");
    await kit.expectViolation({ to_date: "yesterday" }, "/to_date");
    await kit.expectViolation({ assignee: "" }, "/assignee");
    await kit.expectViolation({ assignee: "x".repeat(201) }, "/assignee");
    await kit.expectViolation({ inventor: "x".repeat(201) }, "/inventor");
    await kit.expectViolation({ query: "x", sort: "relevance" }, "/sort");
    await kit.expectViolation({ query: "x", num: 0 }, "/num");
    await kit.expectViolation({ query: "x", num: 26 }, "/num");
    const edge = await kit.execute({ query: "x".repeat(300), assignee: "a".repeat(200), inventor: "i".repeat(200), num: 25 });
    assert.equal(edge.status, 200, JSON.stringify(edge.body));
  });

  test("rules: a filter, match needs query, real calendar dates, from_date not after to_date (also via update)", async () => {
    await kit.expectViolation({}, "", /at least one of `query`, `assignee`, `inventor`, `from_date` or `to_date`/);
    await kit.expectViolation({ sort: "oldest", num: 5 }, "");
    await kit.expectViolation({ assignee: "x", match: "any" }, "/match", /requires `query`/);
    await kit.expectViolation({ from_date: "2021-02-30" }, "/from_date", /valid calendar date/);
    await kit.expectViolation({ to_date: "2021-13-01" }, "/to_date", /valid calendar date/);
    await kit.expectViolation({ from_date: "2001-01-01", to_date: "2000-12-31" }, "/from_date", /must not exceed/);
    const ok = await kit.execute({ from_date: "1992-05-26", to_date: "1992-05-26" });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const ex = await kit.execute({ query: "analgesic patch", match: "phrase", from_date: "1990-01-01" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    await kit.expectUpdateViolation(ex.body.search_id, { to_date: "1989-12-31" }, "/params/to_date", /from the search/);
    await kit.expectUpdateViolation(ex.body.search_id, { query: null }, "/params/query", /requires `query`/);
    await kit.expectUpdateViolation(ex.body.search_id, { from_date: "1990-02-30" }, "/params/from_date");
    await kit.expectUpdateViolation(ex.body.search_id, { num: 26 }, "/params/num");
  });

  test("update: merged, same search id, paging reset, free", async () => {
    const ex = await kit.execute({ query: "anti-inflammatory analgesic patch" });
    const from = kit.h.replay.requests.length;
    const up = await kit.update(ex.body.search_id, { sort: "oldest", num: 3 });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.search_id, ex.body.search_id);
    assert.equal(up.body.charged_credits, 0);
    const body = JSON.parse(patentCalls(kit, from)[0]?.body ?? "{}");
    assert.deepEqual(body.o, { size: 3 });
    assert.deepEqual(body.s, [{ patent_date: "asc" }, { patent_id: "asc" }]);
    assert.ok(JSON.stringify(body.q).includes("anti-inflammatory analgesic patch"));
  });

  test("token paging: more sends o.after = the last patent's grant date and number; at the end an empty free page", async () => {
    const first = await paged.execute({ query: "analgesic", num: 1 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.has_more, true, "3,001 hits, one seen");
    const from = pagedReplay.requests.length;
    const next = await paged.more(first.body.search_id);
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal(next.body.search_id, first.body.search_id);
    assert.equal(next.body.charged_credits, 0);
    const body = JSON.parse(patentCalls(paged, from)[0]?.body ?? "{}");
    assert.deepEqual(body.o, { size: 1, after: ["1992-05-26", "5116621"] });
    assert.deepEqual(body.s, [{ patent_date: "desc" }, { patent_id: "desc" }]);
    // The default replay's answer is the whole result (1 of 1): no more, and `more` is an empty free page.
    const whole = await kit.execute({ query: "analgesic" });
    assert.equal(whole.body.has_more, false);
    const calls = kit.h.replay.requests.length;
    const end = await kit.more(whole.body.search_id);
    assert.equal(end.status, 200, JSON.stringify(end.body));
    assert.deepEqual(end.body.results, []);
    assert.equal(end.body.has_more, false);
    assert.equal(end.body.charged_credits, 0);
    assert.equal(kit.h.replay.requests.length, calls, "no provider call past the end");
  });

  test("details: fetched by patent number once, free; the repeat is cached", async () => {
    const ex = await kit.execute({ query: "anti-inflammatory analgesic patch" });
    const recordId = ex.body.results[0].record_id;
    const from = kit.h.replay.requests.length;
    const first = await kit.action(recordId, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    assert.equal(first.body.detail.abstract.length > 300, true);
    assert.deepEqual(first.body.detail.application, { number: "07/633146", filing_date: "1990-12-24" });
    assert.deepEqual(JSON.parse(patentCalls(kit, from)[0]?.body ?? "{}").q, { patent_id: "5116621" });
    const again = await kit.action(recordId, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(patentCalls(kit, from).length, 1);
  });

  test("a failing PatentsView is a provider error, charged nothing", async () => {
    kit.h.replay.setFault("patentsview", { kind: "status", status: 500, body: "<h1>Server Error (500)</h1>" });
    try {
      const res = await kit.execute({ query: "analgesic" });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
    } finally {
      kit.h.replay.setFault("patentsview", null);
    }
  });

  test("without PATENTSVIEW_API_KEY: 503 capability_unavailable naming it, and the catalog says so", async () => {
    const res = await keyless.execute({ query: "analgesic" });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /PATENTSVIEW_API_KEY/);
    const catalog = (await keyless.h.call("GET", "/v1/catalog", { key: keyless.key })).body.capabilities.find(
      (c: { id: string }) => c.id === "patents.search",
    );
    assert.equal(catalog.available, false);
    assert.match(catalog.unavailable_reason, /PATENTSVIEW_API_KEY/);
  });
});
