// The Serper family: the request each field becomes, the page cursor and its next-page rule, and
// how Serper's errors are read.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ApiError } from "../../errors.ts";
import { nextSerperPage, readSerper, serperCredits, serperPage, serperRequest } from "./serper.ts";

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

test("page cursors: page 1 by default; a full page has a next one, a short one or one past the 100th result has none", () => {
  assert.equal(serperPage(null), 1);
  assert.equal(serperPage({ page: 4 }), 4);
  assert.equal(serperPage({ page: 0 }), 1);
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
  for (const status of [401, 403]) {
    assert.throws(
      () => readSerper(status, { message: "Not enough credits", statusCode: status }),
      (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /deployment's account/.test(e.message) && !/credits/.test(e.message.replace("(its key or credits)", "")),
    );
  }
  assert.throws(() => readSerper(400, { message: "Query not allowed" }), /Serper refused the search: Query not allowed/);
  assert.throws(() => readSerper(200, "<html>"), /non-object body/);
  assert.equal(serperCredits({ credits: 2 }), 2);
  assert.equal(serperCredits({}), undefined);
});
