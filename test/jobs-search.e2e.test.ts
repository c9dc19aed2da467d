/**
 * jobs.search end to end over HTTP against the replay upstream: execute on the recorded google_jobs
 * answer, every field's bounds (at execute and through update), token paging across Google pages
 * (documented-example pages) with nothing repeated or skipped and each SerpApi search billed,
 * update billed like a search, and the stored details (free, cached).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
before(async () => {
  kit = await startCapabilityKit("jobs.search");
});
after(async () => {
  await kit.close();
});

const BARISTA = { query: "barista", location: "New York, New York, United States", country: "us", language: "en" };
const jobsCalls = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.query.engine === "google_jobs");

test("execute: the recorded page, ten listings with their keys, 4 credits, no next page", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const res = await kit.execute({ query: "Python HTML", language: "en" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.capability, "jobs.search");
  assert.equal(res.body.result_count, 10);
  assert.equal(res.body.has_more, false);
  assert.equal(res.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.deepEqual(res.body.next.actions, ["more", "update"]);
  assert.deepEqual(res.body.record_actions, ["details"]);
  const [call] = jobsCalls(from);
  assert.equal(call?.matched, "serpapi-google_jobs/search_jobs");
  assert.deepEqual({ ...call?.query, api_key: undefined }, { engine: "google_jobs", q: "Python HTML", hl: "en", api_key: undefined });
  const first = res.body.results[0];
  assert.equal(first.title, "Python Developer");
  assert.equal(first.company, "codesbright");
  assert.equal(first.location, "Los Angeles, CA");
  assert.equal(first.salary, "103K–104K a year");
  assert.equal(first.source, "Google Jobs via SerpApi");
  assert.equal("posted_at" in first, false);

  const more = await kit.more(res.body.search_id);
  assert.equal(more.status, 200);
  assert.equal(more.body.result_count, 0);
  assert.equal(more.body.charged_credits, 0, "past the end: free, no provider call");
});

test("every field's bounds: violations at their pointers, at execute and through update", async () => {
  const cases: [object, string][] = [
    [{}, "/query"],
    [{ query: "" }, "/query"],
    [{ query: "x".repeat(501) }, "/query"],
    [{ query: "x", country: "usa" }, "/country"],
    [{ query: "x", country: "u1" }, "/country"],
    [{ query: "x", language: "e" }, "/language"],
    [{ query: "x", language: "e".repeat(13) }, "/language"],
    [{ query: "x", location: "" }, "/location"],
    [{ query: "x", location: "l".repeat(201) }, "/location"],
    [{ query: "x", num: 0 }, "/num"],
    [{ query: "x", num: 26 }, "/num"],
    [{ query: "x", num: 2.5 }, "/num"],
    [{ query: "x", page: 2 }, "/page"],
  ];
  const used0 = await kit.used();
  for (const [body, pointer] of cases) await kit.expectViolation(body, pointer);
  assert.equal(await kit.used(), used0, "refused calls cost nothing");
  // Bounds that hold: the extremes are accepted (the schema, not the replay, is checked here).
  const ok = await kit.execute({ query: "Python HTML", language: "en", num: 25 });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  const id = ok.body.search_id;
  const used1 = await kit.used();
  for (const [params, pointer] of [
    [{ num: 26 }, "/params/num"],
    [{ query: "" }, "/params/query"],
    [{ country: "deu" }, "/params/country"],
    [{ location: "" }, "/params/location"],
    [{ qurey: "x" }, "/params/qurey"],
  ] as [object, string][]) {
    await kit.expectUpdateViolation(id, params, pointer);
  }
  assert.equal(await kit.used(), used1, "refused updates cost nothing");
});

test("token paging: num listings a call across Google pages, none repeated or skipped, each search billed", async () => {
  const before = await kit.used();
  const from = kit.h.replay.requests.length;
  const seen: string[] = [];
  const first = await kit.execute({ ...BARISTA, num: 4 });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  assert.equal(first.body.result_count, 4);
  assert.equal(first.body.has_more, true);
  assert.equal(first.body.charged_credits, 4);
  seen.push(...first.body.results.map((r: { title: string; company: string }) => `${r.title} @ ${r.company}`));
  const charges = [first.body.charged_credits];
  const counts = [first.body.result_count];
  let page = first;
  while (page.body.has_more) {
    page = await kit.more(first.body.search_id);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.equal(page.body.search_id, first.body.search_id);
    seen.push(...page.body.results.map((r: { title: string; company: string }) => `${r.title} @ ${r.company}`));
    charges.push(page.body.charged_credits);
    counts.push(page.body.result_count);
  }
  // 13 listings: 10 on Google's first page, 3 on its second. The third call starts at the 9th
  // listing of page 1 and reads page 2 too (two searches, 8 credits).
  assert.deepEqual(counts, [4, 4, 4, 1]);
  assert.deepEqual(charges, [4, 4, 8, 4]);
  assert.equal(new Set(seen).size, 13, `no listing twice: ${seen.join(" | ")}`);
  assert.equal(seen[0], "Barista @ Corner Coffee Co.");
  assert.equal(seen[12], "Barista (Seasonal) @ Coney Boardwalk Coffee");
  assert.equal((await kit.used()) - before, 20);
  const calls = jobsCalls(from);
  assert.deepEqual(
    calls.map((c) => [c.matched, c.query.next_page_token === undefined ? "first" : "token"]),
    [
      ["serpapi-google_jobs/search_jobs_token_page1", "first"],
      ["serpapi-google_jobs/search_jobs_token_page1", "first"],
      ["serpapi-google_jobs/search_jobs_token_page1", "first"],
      ["serpapi-google_jobs/search_jobs_token_page2", "token"],
      ["serpapi-google_jobs/search_jobs_token_page2", "token"],
    ],
  );
  const end = await kit.more(first.body.search_id);
  assert.equal(end.body.result_count, 0);
  assert.equal(end.body.charged_credits, 0);
});

test("update: params merged, paging reset, same search_id, billed 4 credits", async () => {
  const ex = await kit.execute({ ...BARISTA, num: 4 });
  await kit.more(ex.body.search_id);
  const before = await kit.used();
  const up = await kit.update(ex.body.search_id, { num: 5 });
  assert.equal(up.status, 200, JSON.stringify(up.body));
  assert.equal(up.body.search_id, ex.body.search_id);
  assert.equal(up.body.result_count, 5);
  assert.equal(up.body.results[0].title, "Barista", "paging starts again at the first listing");
  assert.equal(up.body.charged_credits, 4);
  assert.equal((await kit.used()) - before, 4);
  assert.equal(up.body.has_more, true);
});

test("details: the stored listing with its application links, free, cached", async () => {
  const ex = await kit.execute({ ...BARISTA, num: 2 });
  const record = ex.body.results[0];
  const from = kit.h.replay.requests.length;
  const before = await kit.used();
  const d = await kit.action(record.record_id, "details");
  assert.equal(d.status, 200, JSON.stringify(d.body));
  assert.equal(d.body.cached, true);
  assert.equal(d.body.charged_credits, 0);
  assert.equal(d.body.detail.company, "Corner Coffee Co.");
  assert.match(d.body.detail.description, /espresso drinks/);
  assert.deepEqual(d.body.detail.apply_options, [{ title: "Corner Coffee Careers", link: "https://careers.cornercoffee.example/jobs/barista-nyc-1042" }]);
  assert.ok(d.body.links.some((l: { url: string }) => l.url === "https://careers.cornercoffee.example/jobs/barista-nyc-1042"), "d.body.links.some((l: { url: string }) => l.url === \"https://careers.cornercoffee.examp...");
  const again = await kit.action(record.record_id, "details");
  assert.equal(again.body.cached, true);
  assert.equal(again.body.charged_credits, 0);
  assert.deepEqual(again.body.detail, d.body.detail);
  assert.equal(kit.h.replay.requests.length, from, "no provider call");
  assert.equal(await kit.used(), before);
});
