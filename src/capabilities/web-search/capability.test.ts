// web.search end to end over HTTP: Quarry against a Serper stand-in serving the recorded bodies by
// query (test/helpers/serper-stub.ts) and the replay upstream's pages for `read`: every field's
// bounds, the request Serper gets, page paging, update, the credits of a search and of `read`,
// `read` cached on repeat, `read` refused on a record without a URL, and the missing key.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "../../../test/helpers/capability-kit.ts";
import { type SerperStub, startSerperStub } from "../../../test/helpers/serper-stub.ts";
import { startHarness } from "../../../test/helpers/harness.ts";
import { webSearch } from "./capability.ts";

let kit: CapabilityKit;
let serper: SerperStub;

before(async () => {
  serper = await startSerperStub({
    "/search": { "apple inc": "search_apple_inc.json", "who is the cm of tamil nadu": "search_tamil_nadu_page5.json", "speed of light": "search_answer_box_no_link.json" },
  });
  kit = await startCapabilityKit("web.search", { env: { SERPER_BASE_URL: serper.baseUrl } });
});
after(async () => {
  await kit.close();
  await serper.close();
});

const lastBody = () => serper.requests.at(-1)!.body;

test("execute: records of each kind with the spec's keys, 1 credit, the key in X-API-KEY", async () => {
  const before = await kit.used();
  const res = await kit.execute({ query: "apple inc" });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.charged_credits, 1);
  assert.equal((await kit.used()) - before, 1);
  assert.deepEqual(lastBody(), { q: "apple inc", num: 10, page: 1 });
  assert.equal(serper.requests.at(-1)!.headers["x-api-key"], "demo-key");
  assert.deepEqual(
    res.body.results.map((r: { kind: string }) => r.kind),
    ["knowledge_graph", ...Array(8).fill("organic")],
  );
  assert.equal(res.body.results[1].position, 1);
  assert.equal(res.body.results[0].type, "Technology company");
  assert.deepEqual(res.body.record_actions, ["read"]);
  assert.equal(res.body.has_more, true, "8 organic results of 10: Google lists a few fewer than asked, more may follow");
  assert.deepEqual(res.body.next.example, { search_id: res.body.search_id, action: "more" });
});

test("country, language and time_range reach Serper as gl, hl and tbs", async () => {
  const res = await kit.execute({ query: "apple inc", num: 20, country: "DE", language: "pt-BR", time_range: "month" });
  assert.equal(res.status, 200);
  assert.deepEqual(lastBody(), { q: "apple inc", num: 20, page: 1, gl: "de", hl: "pt-br", tbs: "qdr:m" });
});

test("every field's bounds and patterns", async () => {
  await kit.expectViolation({}, "/query");
  await kit.expectViolation({ query: "" }, "/query");
  await kit.expectViolation({ query: "x".repeat(501) }, "/query");
  await kit.expectViolation({ query: "a", num: 0 }, "/num");
  await kit.expectViolation({ query: "a", num: 21 }, "/num");
  await kit.expectViolation({ query: "a", num: 2.5 }, "/num");
  await kit.expectViolation({ query: "a", country: "usa" }, "/country");
  await kit.expectViolation({ query: "a", country: "u1" }, "/country");
  await kit.expectViolation({ query: "a", language: "e" }, "/language");
  await kit.expectViolation({ query: "a", language: "en-USA" }, "/language");
  await kit.expectViolation({ query: "a", time_range: "hour" }, "/time_range");
  await kit.expectViolation({ query: "a", page: 2 }, "/page");
  const ok = await kit.execute({ query: "x".repeat(500), num: 20, country: "us", language: "zh-cn", time_range: "day" });
  assert.equal(ok.status, 502, "valid at every bound; no recording for that query: Serper's 400 comes back as provider_error");
  assert.equal(ok.body.error.code, "provider_error");
  assert.equal(ok.body.error.message, "Serper refused the search: Query not recorded");
});

test("page paging: a full page has more; `more` asks Serper for the next page and is billed", async () => {
  const first = await kit.execute({ query: "who is the cm of tamil nadu" });
  assert.equal(first.status, 200);
  assert.equal(first.body.results.length, 10);
  assert.equal(first.body.has_more, true);
  const more = await kit.more(first.body.search_id);
  assert.equal(more.status, 200, JSON.stringify(more.body));
  assert.equal(more.body.search_id, first.body.search_id);
  assert.deepEqual(lastBody(), { q: "who is the cm of tamil nadu", num: 10, page: 2 });
  assert.equal(more.body.charged_credits, 1);
  const third = await kit.more(first.body.search_id);
  assert.equal(lastBody().page, 3);
  assert.equal(third.body.charged_credits, 1);
});

test("update merges params, starts again at page 1, is billed like a search; its violations are under /params", async () => {
  const first = await kit.execute({ query: "who is the cm of tamil nadu" });
  await kit.more(first.body.search_id);
  const updated = await kit.update(first.body.search_id, { time_range: "day", num: 10 });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.deepEqual(lastBody(), { q: "who is the cm of tamil nadu", num: 10, page: 1, tbs: "qdr:d" });
  assert.equal(updated.body.charged_credits, 1);
  await kit.expectUpdateViolation(first.body.search_id, { num: 50 }, "/params/num");
  await kit.expectUpdateViolation(first.body.search_id, { time_range: "decade" }, "/params/time_range");
});

test("read: the record's page as Markdown for 5 credits, then cached at 0", async () => {
  const search = await kit.execute({ query: "apple inc" });
  const organic = search.body.results[1];
  const used = await kit.used();
  const read = await kit.action(organic.record_id, "read");
  assert.equal(read.status, 200, JSON.stringify(read.body));
  assert.equal(read.body.charged_credits, 5);
  assert.equal((await kit.used()) - used, 5);
  assert.equal(read.body.detail.url, "https://www.apple.com/");
  assert.equal(read.body.detail.format, "markdown");
  assert.equal(typeof read.body.detail.content, "string");
  assert.equal(read.body.detail.chars, [...read.body.detail.content].length);
  // The replay holds no copy of apple.com: its stand-in page answers, and the note says so.
  assert.match(read.body.detail.notes.join(" "), /DEMO: the offline demo holds no copy of https:\/\/www\.apple\.com\/; the content is the demo's stand-in page/);
  assert.doesNotMatch(read.body.detail.notes.join(" "), /recorded copy/);
  assert.ok(kit.h.replay.requests.some((r) => r.path === "/webpages/www.apple.com/"), "the page came through the reader");
  const again = await kit.action(organic.record_id, "read");
  assert.equal(again.status, 200);
  assert.equal(again.body.charged_credits, 0);
  assert.equal(again.body.cached, true);
  assert.deepEqual(again.body.detail, read.body.detail);
  assert.equal((await kit.used()) - used, 5);
});

test("read of a knowledge graph reads the entity's website", async () => {
  const search = await kit.execute({ query: "apple inc" });
  const read = await kit.action(search.body.results[0].record_id, "read");
  assert.equal(read.status, 200);
  assert.equal(read.body.detail.url, "http://www.apple.com/");
});

test("read of an answer box without a link is refused (400 at /record_id), charged nothing", async () => {
  const search = await kit.execute({ query: "speed of light" });
  assert.equal(search.status, 200);
  const [box] = search.body.results;
  assert.equal(box.kind, "answer_box");
  assert.equal(box.url, undefined);
  // The answer's own next.example never suggests reading it: here no record can be read at all.
  assert.equal(search.body.has_more, false);
  assert.deepEqual(search.body.results.map((r: { kind: string }) => r.kind), ["answer_box"]);
  assert.equal(search.body.next.example, null);
  assert.match(search.body.notes.at(-1), /No record on this page can take a record action \(read\)/);
  assert.deepEqual(box.snippetHighlighted, ["299,792,458 metres per second"]);
  const used = await kit.used();
  const read = await kit.action(box.record_id, "read");
  assert.equal(read.status, 400);
  assert.equal(read.body.error.code, "invalid_request");
  assert.deepEqual(read.body.error.violations, [{ path: "/record_id", message: "this answer_box carries no url, so there is no page to read" }]);
  assert.match(read.body.error.hint, /This record cannot take this action .*choose another record/, "not \"fix the fields\": the record is the problem");
  assert.equal(await kit.used(), used);
});

test("without SERPER_API_KEY: unavailable in the catalog and 503 naming the variable", async () => {
  assert.deepEqual(webSearch.availability(new Set()), { missing: "SERPER_API_KEY" });
  const h = await startHarness({ replay: kit.h.replay, env: { SERPER_API_KEY: "" } });
  try {
    const { key } = await h.account("pro");
    const res = await h.call("POST", "/v1/capabilities/web.search/execute", { key, body: { query: "apple inc" } });
    assert.equal(res.status, 503);
    assert.equal(res.body.error.code, "capability_unavailable");
    assert.match(res.body.error.message, /SERPER_API_KEY/);
    const catalog = await h.call("GET", "/v1/catalog", { key });
    const entry = catalog.body.capabilities.find((c: { id: string }) => c.id === "web.search");
    assert.equal(entry.available, false);
    assert.match(entry.unavailable_reason, /SERPER_API_KEY is not set/);
  } finally {
    await h.close();
  }
});
