/**
 * patents.search end to end over HTTP against the replay upstream (SerpApi's google_patents and
 * google_patents_details, documented examples): the example search (query as sent, key added),
 * every field's bounds and rule (also through `update`), page paging cut from SerpApi pages (a replay
 * serving a second page built here from the documented one), details fetched once for 4 credits then
 * cached, a failing SerpApi charged nothing, and the capability unavailable without SERPAPI_API_KEY.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { type ReplayServer, startReplay } from "../src/demo/replay/replay-server.ts";
import { type CapabilityKit, fixture, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
let keyless: CapabilityKit;
let paged: CapabilityKit;
let pagedReplay: ReplayServer;
let dir: string;

/**
 * A replay holding two SerpApi pages of one search: the documented page 1 (3 results, a next page) and
 * a page 2 built here from it (its results in reverse order, no next page). Built in the test, not a
 * recording.
 */
async function startPagedReplay(): Promise<ReplayServer> {
  dir = mkdtempSync(join(tmpdir(), "patents-replay-"));
  const folder = join(dir, "serpapi-google_patents");
  mkdirSync(folder);
  const page1 = fixture("serpapi-google_patents", "search_coffee_documented.json") as { organic_results: unknown[]; serpapi_pagination?: unknown };
  const page2 = { ...page1, organic_results: [...page1.organic_results].reverse() };
  delete page2.serpapi_pagination;
  writeFileSync(join(folder, "page1.json"), JSON.stringify(page1));
  writeFileSync(join(folder, "page2.json"), JSON.stringify(page2));
  const entry = (page: string) => ({
    case: `page${page}`,
    file: `page${page}.json`,
    method: "GET",
    url_path: "/search.json",
    query: { engine: "google_patents", q: "<any query>", page },
    status: 200,
  });
  writeFileSync(join(folder, "index.json"), JSON.stringify([entry("1"), entry("2")]));
  return startReplay({ fixturesDir: dir });
}

before(async () => {
  kit = await startCapabilityKit("patents.search");
  keyless = await startCapabilityKit("patents.search", { env: { SERPAPI_API_KEY: "" }, replay: kit.h.replay });
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

const calls = (k: CapabilityKit, from: number, engine = "google_patents") => k.h.replay.requests.slice(from).filter((r) => r.query.engine === engine);

describe("patents.search", () => {
  test("execute: GET google_patents with q, page 1 and num 10, the key added; records typed as designed; 4 credits", async () => {
    const used = await kit.used();
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ query: "(Coffee)" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 4);
    assert.equal((await kit.used()) - used, 4);
    assert.equal(res.body.result_count, 3);
    assert.equal(res.body.has_more, true, "SerpApi links a next page");
    const [p] = res.body.results;
    assert.equal(p.patent_id, "US8110241B2");
    assert.equal(p.title, "Foaming soluble coffee powder containing pressurized gas");
    assert.equal(p.url, "https://patents.google.com/patent/US8110241B2/en");
    assert.equal(p.grant_date, "2012-02-07");
    assert.equal(p.priority_date, "2004-08-17");
    assert.equal(p.assignee, "Kraft Foods Global Brands Llc");
    assert.equal(p.inventor, "Bary Lyn Zeller");
    assert.equal(p.pdf_url, "https://patentimages.storage.googleapis.com/86/1c/bd/89a41d9faca215/US8110241.pdf");
    assert.match(p.snippet, /^An instant coffee powder/);
    assert.equal(res.body.results[2].title, "Method and apparatus for brewing coffee via universal coffee brewing chart …");
    const [sent] = calls(kit, from);
    assert.equal(sent?.matched, "serpapi-google_patents/search_coffee_documented");
    assert.equal(sent?.path, "/serpapi/search.json");
    assert.equal(sent?.query.api_key, "demo-key");
    assert.deepEqual({ ...sent?.query, api_key: undefined }, { engine: "google_patents", q: "(Coffee)", page: "1", num: "10", api_key: undefined });
  });

  test("filters as sent: match any/phrase, publication bounds, assignee, inventor, country, status, sort", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({
      query: "foaming instant coffee",
      match: "phrase",
      country: "us,ep",
      status: "granted",
      from_date: "2010-01-01",
      to_date: "2015-12-31",
      assignee: "Kraft Foods",
      inventor: "Bary Lyn Zeller",
      sort: "oldest",
      num: 25,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [sent] = calls(kit, from);
    assert.deepEqual(
      { ...sent?.query, api_key: undefined },
      {
        engine: "google_patents",
        q: '"foaming instant coffee"',
        page: "1",
        num: "25",
        sort: "old",
        after: "publication:20100101",
        before: "publication:20151231",
        assignee: "Kraft Foods",
        inventor: "Bary Lyn Zeller",
        country: "US,EP",
        status: "GRANT",
        api_key: undefined,
      },
    );
    const from2 = kit.h.replay.requests.length;
    const any = await kit.execute({ query: "foam froth", match: "any", inventor: "Bary Lyn Zeller" });
    assert.equal(any.status, 200, JSON.stringify(any.body));
    assert.equal(calls(kit, from2)[0]?.query.q, "foam OR froth");
  });

  test("bounds: query 1-300 not blank, match, dates YYYY-MM-DD, assignee and inventor 1-200, country, status, sort, num 1-25", async () => {
    const used = await kit.used();
    await kit.expectViolation({ query: "" }, "/query");
    await kit.expectViolation({ query: "   " }, "/query");
    await kit.expectViolation({ query: "x".repeat(301) }, "/query");
    await kit.expectViolation({ query: "x", match: "most" }, "/match");
    await kit.expectViolation({ from_date: "1990-1-1" }, "/from_date");
    await kit.expectViolation({ to_date: "yesterday" }, "/to_date");
    await kit.expectViolation({ assignee: "" }, "/assignee");
    await kit.expectViolation({ assignee: "x".repeat(201) }, "/assignee");
    await kit.expectViolation({ inventor: "x".repeat(201) }, "/inventor");
    await kit.expectViolation({ query: "x", country: "USA" }, "/country");
    await kit.expectViolation({ query: "x", country: "US,EP,WO,JP,CN,KR,DE,FR,GB,CA,AU" }, "/country");
    await kit.expectViolation({ query: "x", status: "pending" }, "/status");
    await kit.expectViolation({ query: "x", sort: "cited" }, "/sort");
    await kit.expectViolation({ query: "x", num: 0 }, "/num");
    await kit.expectViolation({ query: "x", num: 26 }, "/num");
    assert.equal(await kit.used(), used, "refused calls cost nothing");
    const edge = await kit.execute({ query: "x".repeat(300), assignee: "a".repeat(200), inventor: "i".repeat(200), country: "US,EP,WO,JP,CN,KR,DE,FR,GB,CA", num: 25 });
    assert.equal(edge.status, 200, JSON.stringify(edge.body));
  });

  test("rules: a filter, match needs query, real calendar dates, from_date not after to_date (also via update)", async () => {
    await kit.expectViolation({}, "", /at least one of `query`, `assignee`, `inventor`, `from_date` or `to_date`/);
    await kit.expectViolation({ sort: "oldest", num: 5 }, "");
    await kit.expectViolation({ assignee: "x", match: "any" }, "/match", /requires `query`/);
    await kit.expectViolation({ from_date: "2021-02-30" }, "/from_date", /valid calendar date/);
    await kit.expectViolation({ to_date: "2021-13-01" }, "/to_date", /valid calendar date/);
    await kit.expectViolation({ from_date: "2001-01-01", to_date: "2000-12-31" }, "/from_date", /must not exceed/);
    const ex = await kit.execute({ query: "foaming coffee", match: "phrase", from_date: "1990-01-01" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    await kit.expectUpdateViolation(ex.body.search_id, { to_date: "1989-12-31" }, "/params/to_date", /from the search/);
    await kit.expectUpdateViolation(ex.body.search_id, { query: null }, "/params/query", /requires `query`/);
    await kit.expectUpdateViolation(ex.body.search_id, { from_date: "1990-02-30" }, "/params/from_date");
    await kit.expectUpdateViolation(ex.body.search_id, { num: 26 }, "/params/num");
  });

  test("update: merged, same search id, paging reset, billed like a search", async () => {
    const ex = await kit.execute({ query: "(Coffee)" });
    const from = kit.h.replay.requests.length;
    const up = await kit.update(ex.body.search_id, { sort: "oldest", num: 3 });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.search_id, ex.body.search_id);
    assert.equal(up.body.charged_credits, 4);
    const [sent] = calls(kit, from);
    assert.equal(sent?.query.sort, "old");
    assert.equal(sent?.query.page, "1");
    assert.equal(sent?.query.q, "(Coffee)");
    assert.equal(up.body.result_count, 3);
  });

  test("page paging: `more` continues after the last record returned, in the same SerpApi page, then the next", async () => {
    const first = await paged.execute({ query: "coffee", num: 2 });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(
      first.body.results.map((r: { patent_id: string }) => r.patent_id),
      ["US8110241B2", "RU2766609C2"],
    );
    assert.equal(first.body.has_more, true);
    assert.equal(first.body.charged_credits, 4);
    assert.equal(pagedReplay.requests.at(-1)?.query.num, "10", "SerpApi's smallest page, sliced");
    const from = pagedReplay.requests.length;
    const second = await paged.more(first.body.search_id);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.search_id, first.body.search_id);
    assert.deepEqual(
      second.body.results.map((r: { patent_id: string }) => r.patent_id),
      ["US8495950B2", "US8495950B2"],
      "the last of page 1, then the first of page 2",
    );
    assert.deepEqual(
      pagedReplay.requests.slice(from).map((r) => r.query.page),
      ["1", "2"],
    );
    assert.equal(second.body.charged_credits, 8, "two SerpApi reads");
    const third = await paged.more(first.body.search_id);
    assert.deepEqual(
      third.body.results.map((r: { patent_id: string }) => r.patent_id),
      ["RU2766609C2", "US8110241B2"],
    );
    assert.equal(third.body.has_more, false, "page 2 is SerpApi's last");
    const calls0 = pagedReplay.requests.length;
    const end = await paged.more(first.body.search_id);
    assert.equal(end.status, 200, JSON.stringify(end.body));
    assert.deepEqual(end.body.results, []);
    assert.equal(end.body.charged_credits, 0);
    assert.equal(pagedReplay.requests.length, calls0, "no provider call past the end");
  });

  test("details: google_patents_details by SerpApi's id and its description page, 4 credits once; the repeat is cached", async () => {
    const ex = await kit.execute({ query: "(Coffee)" });
    const recordId = ex.body.results[0].record_id;
    const from = kit.h.replay.requests.length;
    const used = await kit.used();
    const first = await kit.action(recordId, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 4);
    assert.equal((await kit.used()) - used, 4);
    const detail = first.body.detail;
    assert.equal(detail.patent_id, "US8110241B2");
    assert.equal(detail.claim_count, 2);
    assert.match(detail.description_excerpt, /^BACKGROUND OF THE INVENTION/);
    assert.equal(detail.family.family_id, "34940354");
    assert.equal(detail.citations.count, 1);
    assert.deepEqual(detail.inventors, ["Bary Lyn Zeller"]);
    const [sent] = calls(kit, from, "google_patents_details");
    assert.equal(sent?.query.patent_id, "patent/US8110241B2/en");
    assert.equal(sent?.matched, "serpapi-google_patents/details_us8110241b2_documented");
    assert.ok(kit.h.replay.requests.slice(from).some((r) => r.matched === "serpapi-google_patents/description_us8110241b2_documented"), "kit.h.replay.requests.slice(from).some((r) => r.matched === \"serpapi-google_patents/des...");
    const again = await kit.action(recordId, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(calls(kit, from, "google_patents_details").length, 1);
  });

  test("a failing SerpApi is a provider error, charged nothing", async () => {
    const used = await kit.used();
    kit.h.replay.setFault("serpapi", { kind: "status", status: 500, body: "<h1>Server Error (500)</h1>" });
    try {
      const res = await kit.execute({ query: "(Coffee)" });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
    } finally {
      kit.h.replay.setFault("serpapi", null);
    }
    assert.equal(await kit.used(), used);
  });

  test("without SERPAPI_API_KEY: 503 capability_unavailable naming it, and the catalog says so", async () => {
    const res = await keyless.execute({ query: "(Coffee)" });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /SERPAPI_API_KEY/);
    const catalog = (await keyless.h.call("GET", "/v1/catalog", { key: keyless.key })).body.capabilities.find(
      (c: { id: string }) => c.id === "patents.search",
    );
    assert.equal(catalog.available, false);
    assert.match(catalog.unavailable_reason, /SERPAPI_API_KEY/);
  });
});
