// The Serper family: the request each field becomes, the page cursor and its next-page rule, how
// Serper's errors are read (the requests' refusal), and the declared answers the recordings fit.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import { nextSerperPage, serperCredits, serperNewsAnswer, serperRefusal, serperRequest, serperSearchAnswer } from "./serper.ts";

test("every field maps to Serper's body: q, num, page, gl, hl, tbs", () => {
  const r = serperRequest("/search", { query: "apple inc", num: 20, country: "US", language: "pt-BR", time_range: "week" }, 3);
  assert.equal(r.provider, "serper");
  assert.equal(r.method, "POST");
  assert.equal(r.path, "/search");
  assert.deepEqual(r.body, { q: "apple inc", num: 20, page: 3, gl: "us", hl: "pt-br", tbs: "qdr:w" });
  assert.deepEqual(serperRequest("/news", { query: "x", num: 10 }, 1).body, { q: "x", num: 10, page: 1 });
  const tbs = (["day", "week", "month", "year"] as const).map((t) => (serperRequest("/news", { query: "x", num: 10, time_range: t }, 1).body as { tbs: string }).tbs);
  assert.deepEqual(tbs, ["qdr:d", "qdr:w", "qdr:m", "qdr:y"]);
});

test("page cursors: a full page has a next one, a short one or one past the 100th result has none", () => {
  assert.deepEqual(nextSerperPage(1, 10, 10), { page: 2 });
  assert.deepEqual(nextSerperPage(1, 10, 8), { page: 2 }, "Google lists 8 or 9 of 10 on pages that are not the last");
  assert.deepEqual(nextSerperPage(1, 10, 5), { page: 2 });
  assert.equal(nextSerperPage(1, 10, 4), null, "fewer than half: the last page");
  assert.equal(nextSerperPage(1, 10, 0), null);
  assert.equal(nextSerperPage(10, 10, 10), null);
  assert.deepEqual(nextSerperPage(4, 20, 20), { page: 5 });
  assert.equal(nextSerperPage(5, 20, 20), null);
});

test("Serper's refusals: the account's are not shown to the caller; a refused parameter is", () => {
  const request = serperRequest("/search", { query: "x", num: 10 }, 1);
  assert.equal(request.refusal, serperRefusal);
  assert.equal(serperRequest("/news", { query: "x", num: 10 }, 1).refusal, serperRefusal);
  const account = (e: unknown) =>
    e instanceof ApiError && e.code === "provider_error" && !e.retryable && /deployment's account/.test(e.message) && !/Unauthorized|Not enough/.test(e.message) && /Serper \(HTTP \d+\)/.test(String((e.cause as Error).message));
  // Serper's 403 as quoted in public issues (MiroMindAI/MiroFlow#7, crewAIInc/crewAI#633).
  assert.throws(() => checkJsonAnswer(request, 403, { message: "Unauthorized.", statusCode: 403 }), account);
  assert.throws(() => checkJsonAnswer(request, 401, { message: "Not enough credits", statusCode: 401 }), account);
  assert.throws(() => checkJsonAnswer(request, 400, { message: "Not enough credits", statusCode: 400 }), account, "a 400 about credits is about the account too");
  assert.throws(() => checkJsonAnswer(request, 400, { message: "Query not allowed" }), (e: unknown) => e instanceof ApiError && /Serper refused the search: Query not allowed/.test(e.message) && !e.retryable);
  assert.throws(() => checkJsonAnswer(request, 400, undefined), /Serper refused the search: HTTP 400/);
  assert.equal(serperRefusal({ organic: [] }, 200), undefined);
  assert.equal(serperRefusal(undefined, 429), undefined, "the client's rate limit");
  assert.equal(serperCredits({ credits: 2 }), 2);
  assert.equal(serperCredits({}), undefined);
});

test("every Serper recording fits its endpoint's declared answer; an answer that moved a field the mapper reads is drift", () => {
  for (const file of ["search_apple_inc.json", "search_tamil_nadu_page5.json", "search_answer_box_no_link.json"]) {
    assert.doesNotThrow(() => checkShape("serper", serperSearchAnswer, fixture("serper", file)), file);
  }
  assert.doesNotThrow(() => checkShape("serper", serperNewsAnswer, fixture("serper", "news_apple_inc.json")));
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^Serper answered in a shape/.test(e.message);
  const { organic, ...rest } = fixture("serper", "search_apple_inc.json") as { organic: Record<string, unknown>[] };
  assert.throws(() => checkShape("serper", serperSearchAnswer, { ...rest, organic_results: organic }), drift("/organic"));
  const moved = organic.map((o, i) => (i === 2 ? { ...o, url: o.link, link: undefined } : o));
  assert.throws(() => checkShape("serper", serperSearchAnswer, { ...rest, organic: JSON.parse(JSON.stringify(moved)) }), drift("/organic/2/link"));
  assert.throws(() => checkShape("serper", serperNewsAnswer, { articles: [] }), drift("/news"));
  assert.throws(() => checkShape("serper", serperNewsAnswer, { news: [{ title: "t", link: "https://x.example/", position: "1" }] }), drift("/news/0/position"));
});
