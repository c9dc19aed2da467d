/**
 * GitHub mappers of codehost.search against recorded bodies: requests per kind, repository, issue,
 * pull-request and code records, the 1,000-result cap, GitHub's refusals (rate limit by headers or
 * words, 422 query errors), and repository details (README head, top-level files, stats).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { CodehostSearchQuery } from "./capability.ts";
import { codeRecord, cursorPage, issueRecord, readGitHub, repoFromApiUrl, SEARCH_RESULT_CAP, toSearchPage, toSearchRequest } from "./github.ts";
import { README_HEAD_CHARS, readmeHead, repoName, topLevelFiles, toRepoDetail } from "./github-repo.ts";

const fixture = (name: string) => recorded("github", name);
const q = (over: Partial<CodehostSearchQuery>): CodehostSearchQuery => ({ query: "x", kind: "repositories", num: 10, ...over });
const NOW = new Date("2026-01-01T00:00:00Z");

test("search requests: path per kind, sort with order desc, page size and page; code asks for text matches", () => {
  const repos = toSearchRequest(q({ query: "github language:Python", sort: "stars" }), 2);
  assert.equal(repos.path, "/search/repositories");
  assert.deepEqual(repos.query, { q: "github language:Python", sort: "stars", order: "desc", per_page: 10, page: 2 });
  assert.equal(repos.headers, undefined);
  assert.deepEqual(repos.acceptStatus, [403, 422]);
  const issues = toSearchRequest(q({ kind: "issues" }), 1);
  assert.equal(issues.path, "/search/issues");
  assert.equal(issues.query?.sort, undefined);
  assert.equal(issues.query?.order, undefined);
  const code = toSearchRequest(q({ kind: "code", num: 30 }), 1);
  assert.equal(code.path, "/search/code");
  assert.deepEqual(code.headers, { accept: "application/vnd.github.text-match+json" });
  assert.equal(cursorPage({ page: 3 }), 3);
  assert.equal(cursorPage(null), 1);
});

test("recorded repositories: keys the source has; the old recording has no topics or license", () => {
  const page = toSearchPage(fixture("search_repositories.json"), "repositories", 1, 10);
  assert.equal(page.records.length, 10);
  assert.deepEqual(page.records[0]?.summary, {
    title: "kennethreitz/legit",
    url: "https://github.com/kennethreitz/legit",
    snippet: "Git for Humans, Inspired by GitHub for Mac™.",
    kind: "repository",
    stars: 3036,
    forks: 118,
    open_issues: 56,
    language: "Python",
    updated_at: "2014-01-27T17:39:32Z",
  });
  assert.deepEqual(page.records[0]?.ref, { repo: "kennethreitz/legit" });
  assert.deepEqual(page.next, { page: 2 });
});

test("the 1,000-result cap: has_more turns false before GitHub's total", () => {
  const body = fixture("search_repositories.json") as { total_count: number };
  assert.equal(body.total_count, 2723);
  assert.deepEqual(toSearchPage(body, "repositories", 99, 10).next, { page: 100 });
  const last = toSearchPage(body, "repositories", 100, 10);
  assert.equal(last.next, null, "page 100 × 10 = 1,000: GitHub serves nothing past it");
  assert.match(last.notes?.[0] ?? "", /2723 matches but serves at most the first 1000/);
  assert.equal(toSearchPage(body, "repositories", 33, 30).next !== null, true);
  assert.equal(toSearchPage(body, "repositories", 34, 30).next, null);
  assert.equal(SEARCH_RESULT_CAP, 1000);
  // Below the cap the provider's total decides.
  assert.equal(toSearchPage({ total_count: 20, items: [{}] }, "repositories", 2, 10).next, null);
});

test("recorded issues, and a pull request told apart by its pull_request block", () => {
  const page = toSearchPage(fixture("search_issues.json"), "issues", 1, 10);
  assert.equal(page.records.length, 2);
  assert.deepEqual(page.records[0]?.summary, {
    title: "Sesame seeds split without a pop!",
    url: "https://github.com/octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli/issues/2",
    snippet: "I’ve waited all year long, but there was no pop 😭",
    kind: "issue",
    created_at: "2022-07-19T04:40:52Z",
    repo: "octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli",
    number: 2,
    state: "open",
    author: "octokit-fixture-user-b",
    comments: 0,
    updated_at: "2022-07-19T04:40:52Z",
  });
  assert.equal(page.next, null);
  const pr = issueRecord({
    html_url: "https://github.com/o/r/pull/7",
    repository_url: "https://api.github.com/repos/o/r",
    title: "Fix it",
    number: 7,
    state: "closed",
    labels: [{ name: "bug" }, { name: "" }],
    pull_request: { url: "https://api.github.com/repos/o/r/pulls/7" },
  });
  assert.equal(pr?.summary.kind, "pull_request");
  assert.deepEqual(pr?.summary.labels, ["bug"]);
  assert.equal(repoFromApiUrl("https://api.github.com/repos/o/r"), "o/r");
});

test("recorded code results: repo and path; matches from text-match fragments when GitHub sends them", () => {
  const page = toSearchPage(fixture("search_code.json"), "code", 1, 30);
  assert.equal(page.records.length, 14);
  assert.deepEqual(page.records[0]?.summary, {
    title: "jacquev6/PyGithub: github/tests/ReplayData/Commit.setUp.txt",
    url: "https://github.com/jacquev6/PyGithub/blob/72f8876112ba029111c739871e3e4d7bce66b95d/github/tests/ReplayData/Commit.setUp.txt",
    kind: "code",
    repo: "jacquev6/PyGithub",
    path: "github/tests/ReplayData/Commit.setUp.txt",
  });
  assert.equal(page.next, null, "14 results on a page of 30");
  const withMatches = codeRecord({
    html_url: "https://github.com/o/r/blob/x/a.py",
    path: "a.py",
    repository: { full_name: "o/r" },
    text_matches: [{ fragment: "def toto():\n    return 1" }, { fragment: "x".repeat(400) }],
  });
  assert.deepEqual(withMatches?.summary.matches, ["def toto():\n    return 1", `${"x".repeat(299)}…`]);
  assert.equal(withMatches?.summary.snippet, "def toto(): return 1");
});

test("GitHub's rate limit: x-ratelimit-remaining 0 is a retryable provider error saying when to retry", () => {
  const reset = Math.floor(NOW.getTime() / 1000) + 600;
  const limited = { ...response(403, { message: "API rate limit exceeded for 203.0.113.7." }), headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(reset) } };
  assert.throws(
    () => readGitHub(limited, NOW),
    (e: unknown) =>
      e instanceof ApiError && e.code === "provider_error" && e.retryAfter === 600 && /Retry after 2026-01-01T00:10:00.000Z/.test(e.hint ?? "") && /60 requests an hour/.test(e.hint ?? ""),
  );
  // By GitHub's words alone (no headers), and a secondary limit's Retry-After.
  assert.throws(() => readGitHub(response(403, fixture("error_403_rate_limit_documented.json")), NOW), (e: unknown) => e instanceof ApiError && /rate limit/.test(e.message));
  const secondary = { ...response(403, { message: "You have exceeded a secondary rate limit." }), headers: { "retry-after": "30" } };
  assert.throws(() => readGitHub(secondary, NOW), (e: unknown) => e instanceof ApiError && e.retryAfter === 30);
  // Another 403 is GitHub refusing the request, not a rate limit.
  assert.throws(
    () => readGitHub(response(403, { message: "Resource not accessible" }), NOW),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /HTTP 403: Resource not accessible/.test(e.message) && e.retryAfter === undefined,
  );
  assert.doesNotThrow(() => readGitHub(response(200, {}), NOW));
});

test("a 422 on a search is the query: invalid_request at /query with GitHub's words", () => {
  assert.throws(
    () => readGitHub(response(422, fixture("error_422_search_documented.json")), NOW),
    (e: unknown) =>
      e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/query" && /cannot be searched/.test(e.violations[0].message),
  );
});

test("repository details: stats, license, topics, README head from base64, links", () => {
  const { detail, links } = toRepoDetail(fixture("repo_get_pygithub.json"), fixture("readme_get_base64.json"), undefined);
  assert.equal(detail.repo, "PyGithub/PyGithub");
  assert.deepEqual(detail.stats, { stars: 7122, forks: 1793, watchers: 111, open_issues: 357, size_kb: 16425 });
  assert.equal(detail.license, "LGPL-3.0");
  assert.deepEqual(detail.topics, ["github", "github-api", "pygithub", "python"]);
  assert.equal(detail.default_branch, "main");
  const readme = detail.readme as { name: string; head: string; truncated: boolean };
  assert.equal(readme.name, "ReadMe.md");
  assert.ok(readme.head.startsWith("This is a Python library to access the [Github API v3]"));
  assert.ok(readme.head.length <= README_HEAD_CHARS);
  assert.equal(readme.truncated, true, "the 7,531-byte README is cut at a line end");
  assert.equal("files" in detail, false);
  assert.deepEqual(links, [
    { label: "Repository", url: "https://github.com/PyGithub/PyGithub" },
    { label: "Homepage", url: "https://pygithub.readthedocs.io/" },
    { label: "README", url: "https://github.com/PyGithub/PyGithub/blob/master/ReadMe.md" },
  ]);
});

test("top-level files from a recorded directory listing; README head of a short file is whole", () => {
  assert.deepEqual(topLevelFiles(fixture("contents_root_listing.json")), [{ name: "README.md", type: "file", size: 13 }]);
  assert.equal(topLevelFiles({ message: "Not Found" }), undefined);
  const short = readmeHead({ name: "README.md", encoding: "base64", content: Buffer.from("# hello-world").toString("base64") });
  assert.deepEqual(short, { name: "README.md", head: "# hello-world", truncated: false });
  assert.equal(readmeHead({ encoding: "utf-8", content: "x" }), undefined);
});

test("repoName: owner/name only", () => {
  assert.equal(repoName("PyGithub/PyGithub"), "PyGithub/PyGithub");
  assert.equal(repoName("a/b/c"), undefined);
  assert.equal(repoName("../x"), undefined);
  assert.equal(repoName("o/.."), undefined);
  assert.equal(repoName(7), undefined);
});
