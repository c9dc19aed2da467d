/**
 * codehost.search declaration: spec 4.6's row (free, 15 s, page paging, num 10/30), the `kind`
 * variant that needs GITHUB_TOKEN for code only, and the per-kind sort rule with its pointers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { violationsOf } from "../../../test/helpers/capability-kit.ts";
import type { JsonObject } from "../types.ts";
import { codehostSearch } from "./capability.ts";

test("metadata follows spec 4.6", () => {
  assert.equal(codehostSearch.paging, "page");
  assert.equal(codehostSearch.deadlineMs, 15_000);
  assert.equal(codehostSearch.typicalCredits, 0);
  assert.deepEqual(codehostSearch.recordKeys.required, ["kind"]);
  assert.deepEqual(
    Object.values(codehostSearch.actions).map((a) => [a.name, a.mode, a.credits]),
    [["details", "fetched", 0]],
  );
});

test("availability: only kind code needs GITHUB_TOKEN", () => {
  assert.deepEqual(codehostSearch.availability(new Set(["GITHUB_TOKEN"])), {});
  assert.deepEqual(codehostSearch.availability(new Set()), { partial: 'kind "code" is unavailable: GITHUB_TOKEN is not set in this deployment' });
  assert.equal(codehostSearch.missingKeyFor(new Set(), { query: "x", kind: "code", num: 10 }), "GITHUB_TOKEN");
  assert.equal(codehostSearch.missingKeyFor(new Set(), { query: "x", kind: "issues", num: 10 }), undefined);
});

test("defaults, and the sort rule per kind", () => {
  const body = { query: "x" };
  assert.deepEqual(violationsOf(codehostSearch, body), []);
  assert.deepEqual(body, { query: "x", kind: "repositories", num: 10 });
  const at = (b: JsonObject) => violationsOf(codehostSearch, b).map((v) => v.path);
  assert.deepEqual(at({ query: "x", sort: "stars" }), []);
  assert.deepEqual(at({ query: "x", kind: "issues", sort: "comments" }), []);
  assert.deepEqual(at({ query: "x", kind: "issues", sort: "forks" }), ["/sort"]);
  assert.deepEqual(at({ query: "x", kind: "code", sort: "stars" }), ["/sort"]);
  const stored = { query: "x", kind: "issues", sort: "stars", num: 10 };
  assert.deepEqual(codehostSearch.checkRules(stored, new Set(["kind"])).map((v) => v.path), ["/kind"]);
  assert.deepEqual(codehostSearch.checkRules(stored, new Set(["sort"])).map((v) => v.path), ["/sort"]);
  for (const e of codehostSearch.examples) assert.deepEqual(violationsOf(codehostSearch, structuredClone(e.body)), [], e.title);
});

test("details follow a renamed repository's 301 to /repositories/{id}, then read README and files by the new name", async () => {
  const { fakeContext, fixture, response } = await import("../../../test/helpers/capability-kit.ts");
  const moved = { message: "Moved Permanently", url: "https://api.github.com/repositories/3544490" };
  const { ctx, requests } = fakeContext((req: { path: string }) => {
    if (req.path === "/repos/jacquev6/PyGithub") return response(301, moved);
    if (req.path === "/repositories/3544490") return fixture("github", "repo_get_pygithub.json");
    if (req.path.endsWith("/readme")) return fixture("github", "readme_get_base64.json");
    return response(404, { message: "This repository is empty." });
  });
  const record = { summary: { title: "x" }, ref: { repo: "jacquev6/PyGithub" }, detail: null, query: { query: "x", kind: "code", num: 10 } };
  const out = await codehostSearch.actions.details!.run!(ctx, record);
  assert.equal((out.detail as JsonObject).repo, "PyGithub/PyGithub");
  assert.equal(out.credits, 0);
  assert.deepEqual(
    requests.map((r) => r.path),
    ["/repos/jacquev6/PyGithub", "/repositories/3544490", "/repos/PyGithub/PyGithub/readme", "/repos/PyGithub/PyGithub/contents/"],
  );
  const bad = { ...record, ref: { repo: "../etc" } };
  await assert.rejects(codehostSearch.actions.details!.run!(ctx, bad), (e: { violations?: { path: string }[] }) => e.violations?.[0]?.path === "/record_id");
});
