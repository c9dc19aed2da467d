/**
 * codehost.search `kind: issues` when the query names no kind: two GitHub searches (`is:issue`,
 * `is:pull-request`) merged in the sort's order. Checked against a simulated GitHub holding two
 * ordered streams: every slice in order, no result twice and none skipped across `more`, each
 * stream stopped at the 1,000-result cap, `has_more` right at the end, and at most 4 requests a slice.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture } from "../../../test/helpers/capability-kit.ts";
import type { JsonValue } from "../types.ts";
import { type GitHubIssueItem, type GitHubIssueSearch, SEARCH_RESULT_CAP } from "./github.ts";
import { type IssueStream, issuePlan, mergedIssueSlice, parseMergedCursor } from "./github-issues.ts";

test("issuePlan: a query naming its kind is one search as written; an issue type adds is:issue; none is two searches", () => {
  assert.deepEqual(issuePlan("sesame repo:o/r"), { kind: "merged", issues: "sesame repo:o/r is:issue", pulls: "sesame repo:o/r is:pull-request" });
  for (const own of ["bug is:issue", "is:pr repo:o/r", "x is:pull-request", "type:issue x", "x type:pr", "(is:issue) x", "IS:PR x"]) {
    assert.deepEqual(issuePlan(own), { kind: "single", q: own }, own);
  }
  assert.deepEqual(issuePlan("crash type:Bug"), { kind: "single", q: "crash type:Bug is:issue" });
  assert.deepEqual(issuePlan('x type:"Feature request"'), { kind: "single", q: 'x type:"Feature request" is:issue' });
  // Negated or embedded qualifiers name no kind.
  assert.equal(issuePlan("x -is:pr").kind, "merged");
  assert.equal(issuePlan("this:is:issue").kind, "merged");
});

test("parseMergedCursor: offsets per stream, null when used up; anything else starts both at 0", () => {
  assert.deepEqual(parseMergedCursor(null), { issues: 0, pulls: 0 });
  assert.deepEqual(parseMergedCursor({ issues: 7, pulls: null }), { issues: 7, pulls: null });
  assert.deepEqual(parseMergedCursor({ issues: null, pulls: null }), { issues: 0, pulls: 0 });
  assert.deepEqual(parseMergedCursor({ page: 2 }), { issues: 0, pulls: 0 });
  assert.deepEqual(parseMergedCursor({ issues: 1000, pulls: 0 }), { issues: 0, pulls: 0 });
});

function item(stream: IssueStream, i: number, key: { created?: string; score?: number; comments?: number }): GitHubIssueItem {
  return {
    html_url: `https://github.com/o/r/${stream === "issues" ? "issues" : "pull"}/${i}`,
    repository_url: "https://api.github.com/repos/o/r",
    title: `${stream} ${i}`,
    number: i + 1,
    ...(stream === "pulls" ? { pull_request: {} } : {}),
    ...(key.created === undefined ? {} : { created_at: key.created }),
    ...(key.score === undefined ? {} : { score: key.score }),
    ...(key.comments === undefined ? {} : { comments: key.comments }),
  };
}

/** A simulated GitHub: each stream's results in its own order; pages of `num` as GitHub serves them. */
function simulated(streams: Record<IssueStream, GitHubIssueItem[]>, totals?: Partial<Record<IssueStream, number>>) {
  const calls: { stream: IssueStream; page: number }[] = [];
  const read = async (stream: IssueStream, page: number, num: number): Promise<GitHubIssueSearch | null> => {
    calls.push({ stream, page });
    const all = streams[stream];
    if ((page - 1) * num >= SEARCH_RESULT_CAP) return null;
    return { total_count: totals?.[stream] ?? all.length, incomplete_results: false, items: all.slice((page - 1) * num, page * num) };
  };
  return { calls, read };
}

async function walk(streams: Record<IssueStream, GitHubIssueItem[]>, sort: string | undefined, num: number, totals?: Partial<Record<IssueStream, number>>) {
  const sim = simulated(streams, totals);
  const pages: string[][] = [];
  let cursor: JsonValue = null;
  let maxCalls = 0;
  for (let guard = 0; guard < 500; guard++) {
    const before = sim.calls.length;
    const page = await mergedIssueSlice((s, p) => sim.read(s, p, num), parseMergedCursor(cursor), sort, num);
    maxCalls = Math.max(maxCalls, sim.calls.length - before);
    pages.push(page.records.map((r) => r.summary.title));
    if (page.next === null) return { pages, maxCalls, last: page };
    cursor = page.next;
  }
  throw new Error("no end");
}

const day = (n: number) => `2026-01-${String(n).padStart(2, "0")}T00:00:00Z`;

test("sort created: the two streams merged newest first, across pages, without repeats or gaps", async () => {
  // Issues on even days, pull requests on odd days, both newest first (as GitHub sorts each).
  const issuesStream = Array.from({ length: 13 }, (_, i) => item("issues", i, { created: day(30 - 2 * i) }));
  const pullsStream = Array.from({ length: 7 }, (_, i) => item("pulls", i, { created: day(29 - 2 * i) }));
  const { pages, maxCalls, last } = await walk({ issues: issuesStream, pulls: pullsStream }, "created", 3);
  const all = pages.flat();
  assert.equal(all.length, 20);
  assert.equal(new Set(all).size, 20, "no result twice");
  assert.deepEqual(all.slice(0, 4), ["issues 0", "pulls 0", "issues 1", "pulls 1"]);
  const created = new Map([...issuesStream, ...pullsStream].map((i) => [i.title, i.created_at!]));
  const order = all.map((t) => created.get(t)!);
  assert.deepEqual(order, [...order].sort().reverse(), "newest first throughout");
  assert.ok(pages.slice(0, -1).every((p) => p.length === 3), "every slice but the last is full");
  assert.ok(maxCalls <= 4, `at most 4 requests a slice (${maxCalls})`);
  assert.equal(last.next, null);
});

test("best match: merged by GitHub's score; ties keep issues first", async () => {
  const issuesStream = [item("issues", 0, { score: 9 }), item("issues", 1, { score: 5 }), item("issues", 2, { score: 5 })];
  const pullsStream = [item("pulls", 0, { score: 7 }), item("pulls", 1, { score: 5 }), item("pulls", 2, { score: 1 })];
  const { pages } = await walk({ issues: issuesStream, pulls: pullsStream }, undefined, 10);
  assert.deepEqual(pages, [["issues 0", "pulls 0", "issues 1", "issues 2", "pulls 1", "pulls 2"]]);
});

test("sort comments: most commented first; one stream empty is just the other", async () => {
  const pullsStream = [item("pulls", 0, { comments: 4 }), item("pulls", 1, { comments: 2 })];
  const { pages } = await walk({ issues: [], pulls: pullsStream }, "comments", 1);
  assert.deepEqual(pages, [["pulls 0"], ["pulls 1"]]);
});

test("the first slice asks page 1 of both searches; has_more while either has more, false at the end", async () => {
  const sim = simulated({
    issues: Array.from({ length: 4 }, (_, i) => item("issues", i, { created: day(20 - i) })),
    pulls: Array.from({ length: 2 }, (_, i) => item("pulls", i, { created: day(10 - i) })),
  });
  const first = await mergedIssueSlice((s, p) => sim.read(s, p, 3), parseMergedCursor(null), "created", 3);
  assert.deepEqual(sim.calls, [
    { stream: "issues", page: 1 },
    { stream: "pulls", page: 1 },
  ]);
  assert.deepEqual(first.records.map((r) => r.summary.kind), ["issue", "issue", "issue"]);
  assert.deepEqual(first.next, { issues: 3, pulls: 0 });
  const second = await mergedIssueSlice((s, p) => sim.read(s, p, 3), parseMergedCursor(first.next), "created", 3);
  assert.deepEqual(second.records.map((r) => r.summary.title), ["issues 3", "pulls 0", "pulls 1"]);
  assert.equal(second.next, null, "both streams used up: has_more is false");
});

test("each stream stops at GitHub's 1,000-result cap, with a note, even when its total is larger", async () => {
  const many = Array.from({ length: 1030 }, (_, i) => item("issues", i, { created: day(28) }));
  const pullsStream = [item("pulls", 0, { created: day(1) })];
  const { pages, last } = await walk({ issues: many, pulls: pullsStream }, "created", 30, { issues: 5000 });
  const all = pages.flat();
  assert.equal(all.filter((t) => t.startsWith("issues")).length, SEARCH_RESULT_CAP);
  assert.equal(all.at(-1), "pulls 0", "the pull request comes after the capped issues (older)");
  assert.equal(new Set(all).size, all.length);
  assert.equal(last.next, null);
  assert.ok(pages.flat().length === 1001, "pages.flat().length === 1001");
  const notes = (await mergedIssueSlice(
    (s, p) => simulated({ issues: many, pulls: [] }, { issues: 5000 }).read(s, p, 30),
    { issues: 990, pulls: null },
    "created",
    30,
  )).notes;
  assert.ok(notes?.some((n) => /5000 issues but serves at most the first 1000/.test(n)), JSON.stringify(notes));
});

test("a page GitHub refuses past the cap (null) ends that stream; the other goes on", async () => {
  const page = await mergedIssueSlice(
    async (stream) => (stream === "issues" ? null : { total_count: 1, items: [item("pulls", 0, {})] }),
    { issues: 0, pulls: 0 },
    undefined,
    5,
  );
  assert.deepEqual(page.records.map((r) => r.summary.title), ["pulls 0"]);
  assert.equal(page.next, null);
});

test("the recorded issue search answers the issue stream; an empty recorded search the pull-request stream", async () => {
  const recorded = fixture("github", "search_issues.json") as GitHubIssueSearch;
  const empty = fixture("github", "search_repositories_empty.json") as GitHubIssueSearch;
  const page = await mergedIssueSlice(async (stream) => (stream === "issues" ? recorded : empty), { issues: 0, pulls: 0 }, "created", 10);
  assert.deepEqual(page.records.map((r) => [r.summary.kind, r.summary.number]), [
    ["issue", 2],
    ["issue", 1],
  ]);
  assert.equal(page.next, null);
});
