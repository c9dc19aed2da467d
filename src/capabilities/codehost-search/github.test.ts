/**
 * GitHub mappers of codehost.search against recorded bodies: requests per kind with their declared
 * answers, the recordings checked against those schemas (and drift when a read field is renamed),
 * repository, issue, pull-request and code records, the 1,000-result cap, GitHub's refusals (the
 * 422 refusal hook; the rate limit read with the headers), and repository details.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { CodehostSearchQuery } from "./schema.ts";
import {
  codeRecord,
  githubCodeSearch,
  githubIssueSearch,
  githubProbe,
  githubRepositorySearch,
  githubSearchRefusal,
  hasNextPage,
  issueRecord,
  readGitHub,
  repoFromApiUrl,
  SEARCH_RESULT_CAP,
  toSearchPage,
  toSearchRequest,
} from "./github.ts";
import {
  contentsRequest,
  githubContents,
  githubReadme,
  githubRepository,
  movedTo,
  README_HEAD_CHARS,
  readmeHead,
  readmeRequest,
  repoName,
  repoRequest,
  topLevelFiles,
  toRepoDetail,
} from "./github-repo.ts";

const fixture = (name: string) => recorded("github", name);
const q = (over: Partial<CodehostSearchQuery>): CodehostSearchQuery => ({ query: "x", kind: "repositories", num: 10, ...over });
const NOW = new Date("2026-01-01T00:00:00Z");

const repos = checkShape("github", githubRepositorySearch, fixture("search_repositories.json"));
const issues = checkShape("github", githubIssueSearch, fixture("search_issues.json"));
const code = checkShape("github", githubCodeSearch, fixture("search_code.json"));
const repo = checkShape("github", githubRepository, fixture("repo_get_pygithub.json"));
const readme = checkShape("github", githubReadme, fixture("readme_get_base64.json"));
const listing = checkShape("github", githubContents, fixture("contents_root_listing.json"));

const isDrift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^GitHub answered in a shape/.test(e.message);

test("search requests: path per kind, sort with order desc, page size and page, the declared answer and the refusal hook", () => {
  const req = toSearchRequest(q({ query: "github language:Python", sort: "stars" }), 2);
  assert.equal(req.path, "/search/repositories");
  assert.deepEqual(req.query, { q: "github language:Python", sort: "stars", order: "desc", per_page: 10, page: 2 });
  assert.equal(req.headers, undefined);
  assert.deepEqual(req.acceptStatus, [403, 422]);
  assert.equal(req.response, githubRepositorySearch);
  assert.equal(req.refusal, githubSearchRefusal);
  const issueReq = toSearchRequest(q({ kind: "issues" }), 1, "x is:issue");
  assert.equal(issueReq.path, "/search/issues");
  assert.equal(issueReq.query?.q, "x is:issue");
  assert.equal(issueReq.query?.sort, undefined);
  assert.equal(issueReq.query?.order, undefined);
  assert.equal(issueReq.response, githubIssueSearch);
  const codeReq = toSearchRequest(q({ kind: "code", num: 30 }), 1);
  assert.equal(codeReq.path, "/search/code");
  assert.deepEqual(codeReq.headers, { accept: "application/vnd.github.text-match+json" });
  assert.equal(codeReq.response, githubCodeSearch);
});

test("every recording fits its declared answer; the empty search and the constructed one too", () => {
  checkShape("github", githubRepositorySearch, fixture("search_repositories_empty.json"));
  checkShape("github", githubRepositorySearch, fixture("search_repositories_pygithub_constructed.json"));
  checkShape("github", githubIssueSearch, fixture("search_repositories_empty.json"));
  assert.equal(listing.length, 1);
  assert.equal(readme.encoding, "base64");
  assert.equal(repo.full_name, "PyGithub/PyGithub");
});

test("drift: a renamed or retyped field a mapper reads is a ProviderDrift naming GitHub and the field", () => {
  const { items, ...rest } = fixture("search_issues.json") as { items: unknown[] };
  assert.throws(() => checkShape("github", githubIssueSearch, { ...rest, results: items }), isDrift("/items"));
  const [first] = items as Record<string, unknown>[];
  const { title, ...untitled } = first!;
  assert.ok(title, "title");
  assert.throws(() => checkShape("github", githubIssueSearch, { ...rest, items: [untitled] }), isDrift("/items/0/title"));
  assert.throws(() => checkShape("github", githubIssueSearch, { ...rest, items: [{ ...first, comments: "0" }] }), isDrift("/items/0/comments"));
  const { total_count, ...noTotal } = fixture("search_repositories.json") as { total_count: number };
  assert.ok(total_count > 0, "total_count > 0");
  assert.throws(() => checkShape("github", githubRepositorySearch, noTotal), isDrift("/total_count"));
  assert.throws(() => checkShape("github", githubRepository, { name: "PyGithub" }), isDrift("/full_name"));
  assert.throws(() => checkShape("github", githubContents, { message: "Not Found" }), isDrift(""));
});

test("recorded repositories: keys the source has; the old recording has no topics or license", () => {
  const page = toSearchPage(repos, "repositories", 1, 10);
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

test("the 1,000-result cap: has_more turns false before GitHub's total, and no record past the 1,000th", () => {
  assert.equal(repos.total_count, 2723);
  assert.deepEqual(toSearchPage(repos, "repositories", 99, 10).next, { page: 100 });
  const last = toSearchPage(repos, "repositories", 100, 10);
  assert.equal(last.next, null, "page 100 × 10 = 1,000: GitHub serves nothing past it");
  assert.match(last.notes?.[0] ?? "", /2723 matches but serves at most the first 1000/);
  const thirty = { ...repos, items: [...repos.items, ...repos.items, ...repos.items] };
  assert.equal(toSearchPage(thirty, "repositories", 33, 30).next !== null, true);
  const p34 = toSearchPage(thirty, "repositories", 34, 30);
  assert.equal(p34.next, null);
  assert.equal(p34.records.length, 10, "GitHub serves results 991-1020 on page 34; the cap keeps 991-1000");
  assert.equal(SEARCH_RESULT_CAP, 1000);
  // Below the cap the provider's total decides.
  assert.equal(toSearchPage({ total_count: 20, items: repos.items }, "repositories", 2, 10).next, null);
});

test("code search: no next page that would reach past 1,000 results (GitHub refuses page × per_page > 1000)", () => {
  assert.equal(hasNextPage("code", 5000, 33, 30), false, "page 34 at 30 would end at 1,020");
  assert.equal(hasNextPage("repositories", 5000, 33, 30), true, "the other searches serve a page that starts before 1,000");
  assert.equal(hasNextPage("code", 5000, 99, 10), true);
  assert.equal(hasNextPage("code", 5000, 100, 10), false);
  assert.equal(hasNextPage("code", 40, 1, 30), true);
  assert.equal(hasNextPage("code", 30, 1, 30), false);
});

test("recorded issues, and a pull request told apart by its pull_request block", () => {
  const page = toSearchPage(issues, "issues", 1, 10);
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
    pull_request: { url: "https://api.github.com/repos/o/r/pulls/7" } as object,
  });
  assert.equal(pr?.summary.kind, "pull_request");
  assert.deepEqual(pr?.summary.labels, ["bug"]);
  assert.equal(repoFromApiUrl("https://api.github.com/repos/o/r"), "o/r");
});

test("recorded code results: repo and path; matches from text-match fragments when GitHub sends them", () => {
  const page = toSearchPage(code, "code", 1, 30);
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

test("the refusal hook: a 422 on a search is the query (invalid_request at /query, GitHub's words); past the cap is an empty last page", () => {
  const refused = githubSearchRefusal(fixture("error_422_search_documented.json"), 422);
  assert.ok(refused instanceof ApiError, "refused instanceof ApiError");
  assert.equal(refused.code, "invalid_request");
  assert.equal(refused.violations?.[0]?.path, "/query");
  assert.match(refused.violations?.[0]?.message ?? "", /cannot be searched/);
  const kind = githubSearchRefusal({ message: "Query must include 'is:issue' or 'is:pull-request'", errors: [] }, 422);
  assert.ok(kind instanceof ApiError && /Query must include 'is:issue'/.test(kind.violations?.[0]?.message ?? ""), "kind instanceof ApiError && /Query must include 'is:issue'/.test(kind.violations?.[0]?....");
  assert.equal(githubSearchRefusal({ message: "Only the first 1000 search results are available", status: "422" }, 422), "no_results");
  assert.equal(githubSearchRefusal(fixture("search_issues.json"), 200), undefined);
  assert.equal(githubSearchRefusal({ message: "API rate limit exceeded" }, 403), undefined, "rate limits are read with their headers");
  assert.doesNotThrow(() => readGitHub(response(422, { message: "Only the first 1000 search results are available" }), NOW));
});

test("repository details: stats, license, topics, README head from base64, links", () => {
  const { detail, links } = toRepoDetail(repo, readme, undefined);
  assert.equal(detail.repo, "PyGithub/PyGithub");
  assert.deepEqual(detail.stats, { stars: 7122, forks: 1793, watchers: 111, open_issues: 357, size_kb: 16425 });
  assert.equal(detail.license, "LGPL-3.0");
  assert.deepEqual(detail.topics, ["github", "github-api", "pygithub", "python"]);
  assert.equal(detail.default_branch, "main");
  const head = detail.readme as { name: string; head: string; truncated: boolean };
  assert.equal(head.name, "ReadMe.md");
  assert.ok(head.head.startsWith("This is a Python library to access the [Github API v3]"), "head.head.startsWith(\"This is a Python library to access the [Github API v3]\")");
  assert.ok(head.head.length <= README_HEAD_CHARS, "head.head.length <= README_HEAD_CHARS");
  assert.equal(head.truncated, true, "the 7,531-byte README is cut at a line end");
  assert.equal("files" in detail, false);
  assert.deepEqual(links, [
    { label: "Repository", url: "https://github.com/PyGithub/PyGithub" },
    { label: "Homepage", url: "https://pygithub.readthedocs.io/" },
    { label: "README", url: "https://github.com/PyGithub/PyGithub/blob/master/ReadMe.md" },
  ]);
});

test("top-level files from a recorded directory listing; README head of a short file is whole", () => {
  assert.deepEqual(topLevelFiles(listing), [{ name: "README.md", type: "file", size: 13 }]);
  const short = readmeHead({ name: "README.md", encoding: "base64", content: Buffer.from("# hello-world").toString("base64") });
  assert.deepEqual(short, { name: "README.md", head: "# hello-world", truncated: false });
  assert.equal(readmeHead({ encoding: "utf-8", content: "x" }), undefined);
});

test("details requests declare their answers; 404 is an answer, README and listing are optional parts", () => {
  assert.equal(repoRequest("o/r").response, githubRepository);
  assert.deepEqual(repoRequest("o/r").acceptStatus, [301, 404, 403]);
  assert.equal(readmeRequest("o/r").response, githubReadme);
  assert.equal(readmeRequest("o/r").optionalPart, true);
  assert.equal(contentsRequest("o/r").response, githubContents);
  assert.equal(movedTo({ message: "Moved Permanently", url: "https://api.github.com/repositories/3544490" }), "3544490");
  assert.equal(movedTo({ message: "Moved Permanently" }), undefined);
});

test("repoName: owner/name only", () => {
  assert.equal(repoName("PyGithub/PyGithub"), "PyGithub/PyGithub");
  assert.equal(repoName("a/b/c"), undefined);
  assert.equal(repoName("../x"), undefined);
  assert.equal(repoName("o/.."), undefined);
  assert.equal(repoName(7), undefined);
});

test("the probe: a one-result issue search naming its kind, with the adapter's declared answer", () => {
  assert.equal(githubProbe.provider, "github");
  assert.equal(githubProbe.request.path, "/search/issues");
  assert.equal(githubProbe.request.query?.q, "sesame repo:octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli is:issue");
  assert.equal(githubProbe.request.query?.per_page, 1);
  assert.equal(githubProbe.request.response, githubIssueSearch);
});
