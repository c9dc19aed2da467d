/**
 * Drift of the code and reading providers (test/helpers/drift.ts): GitHub, Open Library, Gutendex,
 * Wikisource, Project Gutenberg, TheMealDB and wger each serve a recording with one field their
 * mapper reads renamed (or, for Gutenberg's plain text, an HTML page), and must answer 502 naming
 * the provider and the field, free, with a warning logged. TheMealDB's `{"meals": null}` stays an
 * empty page.
 */
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";
import { driftSuite } from "./helpers/drift.ts";

const ISSUES_QUERY = "sesame repo:octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli";

driftSuite("code and reading providers: a changed answer is an error", [
  // GitHub: one case per search kind's item shape, and the repository details.
  { provider: "github", capability: "codehost.search", body: { query: "pygithub" }, pointer: "/items/0/full_name" },
  { provider: "github", capability: "codehost.search", body: { query: ISSUES_QUERY, kind: "issues" }, pointer: "/items/0/title" },
  { provider: "github", capability: "codehost.search", body: { query: "toto user:jacquev6", kind: "code", num: 30 }, pointer: "/items/0/repository" },
  { provider: "github", capability: "codehost.search", body: { query: "pygithub" }, action: "details", pointer: "/full_name" },
  // Open Library: the search answer and a work.
  { provider: "openlibrary", capability: "books.search", body: { query: "denver", num: 2 }, pointer: "/numFound" },
  { provider: "openlibrary", capability: "books.search", body: { query: "quiet" }, action: "details", pointer: "/key" },
  // Gutendex (Wikisource, its fallback, has no recording for this search: both fail, Gutendex's drift is named).
  { provider: "gutendex", capability: "classics.search", body: { query: "Frankenstein" }, pointer: "/results" },
  // TheMealDB: a full meal (search.php) and a filter's partial meal (filter.php).
  { provider: "themealdb", capability: "recipes.search", body: { query: "Salmon Prawn Risotto" }, pointer: "/meals/0/idMeal" },
  { provider: "themealdb", capability: "recipes.search", body: { category: "Seafood", num: 20 }, pointer: "/meals/0/strMeal" },
  // wger: the index's exerciseinfo page (an exercise's English translation).
  { provider: "wger", capability: "fitness.exercises", body: { query: "squat" }, pointer: "/results/0/translations/0/language" },
]);

describe("code and reading providers: drift behind a fallback, in plain text, and TheMealDB's no match", () => {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  let classics: CapabilityKit;
  let recipes: CapabilityKit;
  before(async () => {
    classics = await startCapabilityKit("classics.search", { logger: { level: "warn", stream: sink } });
    recipes = await startCapabilityKit("recipes.search", { replay: classics.h.replay });
  });
  after(async () => {
    await recipes.close();
    await classics.close();
  });

  test("wikisource: the fallback's answer with a hit's title renamed is 502 naming Wikisource and the field, free, logged", async () => {
    const used = await classics.used();
    const from = lines.length;
    classics.h.replay.setFault("gutendex", { kind: "status", status: 503 });
    classics.h.replay.setFault("wikisource", { kind: "rename", pointer: "/query/search/0/title", to: "title_renamed" });
    try {
      const res = await classics.execute({ query: "Albert Einstein" });
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
      assert.match(res.body.error.message, /Wikisource answered in a shape Quarry does not read: \/query\/search\/0\/title is missing/);
      assert.equal(res.body.error.retryable, false);
    } finally {
      classics.h.replay.setFault("gutendex", null);
      classics.h.replay.setFault("wikisource", null);
    }
    assert.equal(await classics.used(), used);
    const warning = lines
      .slice(from)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === "provider answer drifted");
    assert.ok(warning, "a warning was logged");
    assert.equal(warning.provider, "wikisource");
    assert.equal(warning.pointer, "/query/search/0/title");
  });

  test("gutenberg: an HTML page where the book's plain text was expected is 502 naming Project Gutenberg, free, not cached", async () => {
    const found = await classics.execute({ query: "Frankenstein" });
    assert.equal(found.status, 200, JSON.stringify(found.body));
    const recordId = found.body.results[0].record_id;
    const used = await classics.used();
    classics.h.replay.setFault("gutenberg", {
      kind: "replace",
      find: "The Project Gutenberg eBook of Frankenstein",
      with: "<!DOCTYPE html><html><body>The Project Gutenberg eBook of Frankenstein",
    });
    try {
      const res = await classics.action(recordId, "details");
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "provider_error");
      assert.match(res.body.error.message, /^Project Gutenberg answered in a shape Quarry does not read: the body is an HTML page/);
      assert.equal(res.body.error.retryable, false);
    } finally {
      classics.h.replay.setFault("gutenberg", null);
    }
    assert.equal(await classics.used(), used);
    // Not cached: the text as recorded answers the next call.
    const again = await classics.action(recordId, "details");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.match(again.body.detail.excerpt, /^Frankenstein;/);
    // The warning line is the upstream client's, for drift it detects itself; this drift is found by
    // the mapper (the client does not check `response: "text"` answers): reported for the framework.
  });

  test('themealdb: {"meals": null} is an empty page, not drift', async () => {
    const res = await recipes.execute({ query: "xablau" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.results, []);
    assert.equal(res.body.has_more, false);
  });
});
