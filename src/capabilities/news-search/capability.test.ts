// news.search end to end over HTTP against a Serper stand-in serving the recorded news answer:
// bounds and patterns, the request, paging, the provider-reported credits and their reservation,
// stored details, update, and the missing key.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "../../../test/helpers/capability-kit.ts";
import { type SerperStub, startSerperStub } from "../../../test/helpers/serper-stub.ts";
import { newsSearch } from "./capability.ts";

let kit: CapabilityKit;
let serper: SerperStub;

before(async () => {
  serper = await startSerperStub({ "/news": { "apple inc": "news_apple_inc.json" } });
  kit = await startCapabilityKit("news.search", { env: { SERPER_BASE_URL: serper.baseUrl } });
});
after(async () => {
  await kit.close();
  await serper.close();
});

const lastBody = () => serper.requests.at(-1)!.body;

test("execute: metadata records with source, fetched_at and content_scope always; charged the credits Serper reports", async () => {
  const used = await kit.used();
  const res = await kit.execute({ query: "apple inc", country: "us", language: "en", time_range: "week" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(serper.requests.at(-1)!.path, "/news");
  assert.deepEqual(lastBody(), { q: "apple inc", num: 10, page: 1, gl: "us", hl: "en", tbs: "qdr:w" });
  assert.equal(res.body.charged_credits, 1, "the recording reports credits: 1");
  assert.equal((await kit.used()) - used, 1);
  assert.equal(res.body.results.length, 10);
  for (const r of res.body.results) {
    assert.equal(r.source, "Google News (via Serper)");
    assert.equal(r.content_scope, "indexed_metadata");
    assert.ok(!Number.isNaN(Date.parse(r.fetched_at)), r.fetched_at);
    assert.equal(typeof r.publisher, "string");
    assert.equal(typeof r.published_label, "string");
  }
  assert.deepEqual(res.body.record_actions, ["details"]);
});

test("details: the stored metadata and the original link, free, saying the publisher's page is not included", async () => {
  const res = await kit.execute({ query: "apple inc" });
  const record = res.body.results[2];
  const used = await kit.used();
  const details = await kit.action(record.record_id, "details");
  assert.equal(details.status, 200);
  assert.equal(details.body.charged_credits, 0);
  assert.equal(await kit.used(), used);
  assert.equal(details.body.detail.url, record.url);
  assert.equal(details.body.detail.position, 3);
  assert.match(details.body.detail.note, /must be read separately/);
  assert.deepEqual(details.body.links, [{ label: "Original article", url: record.url }]);
});

test("every field's bounds and patterns", async () => {
  await kit.expectViolation({}, "/query");
  await kit.expectViolation({ query: "" }, "/query");
  await kit.expectViolation({ query: "x".repeat(501) }, "/query");
  await kit.expectViolation({ query: "a", num: 0 }, "/num");
  await kit.expectViolation({ query: "a", num: 21 }, "/num");
  await kit.expectViolation({ query: "a", country: "usa" }, "/country");
  await kit.expectViolation({ query: "a", country: "1a" }, "/country");
  for (const bad of ["e", "english", "en-", "en-USA", "e1", "en_US"]) await kit.expectViolation({ query: "a", language: bad }, "/language");
  await kit.expectViolation({ query: "a", time_range: "hour" }, "/time_range");
  for (const good of ["en", "deu", "pt-BR", "zh-cn"]) {
    const res = await kit.execute({ query: "apple inc", language: good });
    assert.equal(res.status, 200, good);
  }
  const edge = await kit.execute({ query: "apple inc", num: 20, country: "GB" });
  assert.equal(edge.status, 200);
});

test("page paging: a full page of 10 has more; `more` asks for page 2 and is charged Serper's credits", async () => {
  const first = await kit.execute({ query: "apple inc" });
  assert.equal(first.body.has_more, true);
  const more = await kit.more(first.body.search_id);
  assert.equal(more.status, 200);
  assert.deepEqual(lastBody(), { q: "apple inc", num: 10, page: 2 });
  assert.equal(more.body.charged_credits, 1);
  // Half of what was asked still may have more (Google lists a few fewer than asked); fewer than half
  // is the last page (src/capabilities/shared/serper.test.ts).
  const half = await kit.execute({ query: "apple inc", num: 20 });
  assert.equal(half.body.has_more, true, "10 articles for 20 asked: more may follow");
});

test("the reservation: 1 credit up to 10 results, 2 above (Serper's price), so an account with 1 credit left can ask for 10", async () => {
  assert.equal(newsSearch.maxCredits({ query: "a", num: 10 }), 1);
  assert.equal(newsSearch.maxCredits({ query: "a", num: 11 }), 2);
  const account = (await kit.h.store.getAccount(kit.accountId))!;
  await kit.h.store.updateAccount(kit.accountId, { creditsUsed: account.creditsCap - 1 });
  try {
    const big = await kit.execute({ query: "apple inc", num: 20 });
    assert.equal(big.status, 402);
    assert.equal(big.body.error.code, "credits_exhausted");
    const small = await kit.execute({ query: "apple inc", num: 10 });
    assert.equal(small.status, 200, JSON.stringify(small.body));
    assert.equal(small.body.charged_credits, 1);
  } finally {
    await kit.h.store.updateAccount(kit.accountId, { creditsUsed: 0 });
  }
});

test("update: merged, page 1 again, billed; violations under /params", async () => {
  const first = await kit.execute({ query: "apple inc" });
  const updated = await kit.update(first.body.search_id, { time_range: "day" });
  assert.equal(updated.status, 200);
  assert.deepEqual(lastBody(), { q: "apple inc", num: 10, page: 1, tbs: "qdr:d" });
  assert.equal(updated.body.charged_credits, 1);
  await kit.expectUpdateViolation(first.body.search_id, { language: "english" }, "/params/language");
});

test("without SERPER_API_KEY it is unavailable, naming the variable", () => {
  assert.deepEqual(newsSearch.availability(new Set()), { missing: "SERPER_API_KEY" });
  assert.deepEqual(newsSearch.availability(new Set(["SERPER_API_KEY"])), {});
});
