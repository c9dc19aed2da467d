/**
 * codehost.search end to end over HTTP against the replay upstream: repositories, issues and code
 * searches (issues and pull requests as two GitHub searches, each naming its kind, merged; a query
 * naming its kind as one), bounds and the per-kind sort rule (also through `update`), page paging up to the
 * 1,000-result cap, free cached repository details, GitHub's rate limit and query refusals, and
 * `kind: code` without GITHUB_TOKEN (503 naming it; the other kinds stay available).
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;
let keyless: CapabilityKit;

before(async () => {
  kit = await startCapabilityKit("codehost.search");
  keyless = await startCapabilityKit("codehost.search", { env: { GITHUB_TOKEN: "" }, replay: kit.h.replay });
});
after(async () => {
  await keyless.close();
  await kit.close();
});

const ISSUES_QUERY = "sesame repo:octokit-fixture-org/tmp-scenario-search-issues-20220719044045959-jlcli";
const searches = (from: number) => kit.h.replay.requests.slice(from).filter((r) => r.path.startsWith("/github/search/"));

describe("codehost.search", () => {
  test("repositories: the example answers typed records, free", async () => {
    const from = kit.h.replay.requests.length;
    const res = await kit.execute({ query: "pygithub" });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 0);
    assert.equal(res.body.has_more, false);
    const [repo] = res.body.results;
    assert.equal(repo.title, "PyGithub/PyGithub");
    assert.equal(repo.kind, "repository");
    assert.equal(repo.stars, 7122);
    assert.equal(repo.license, "LGPL-3.0");
    assert.deepEqual(repo.topics, ["github", "github-api", "pygithub", "python"]);
    assert.equal(repo.archived, false);
    const [sent] = searches(from);
    assert.equal(sent?.path, "/github/search/repositories");
    assert.equal(sent?.query.q, "pygithub");
    assert.equal(sent?.query.per_page, "10");
    assert.equal(sent?.query.page, "1");
    assert.equal(sent?.headers.accept, "application/vnd.github+json");
    assert.equal(sent?.headers.authorization, "Bearer demo-key");
  });

  test("issues and code: their own record keys", async () => {
    const before = kit.h.replay.requests.length;
    const issues = await kit.execute({ query: ISSUES_QUERY, kind: "issues", sort: "created" });
    assert.equal(issues.status, 200, JSON.stringify(issues.body));
    assert.deepEqual(
      issues.body.results.map((r: { kind: string; number: number }) => [r.kind, r.number]),
      [
        ["issue", 2],
        ["issue", 1],
      ],
    );
    assert.equal(issues.body.results[0].author, "octokit-fixture-user-b");
    assert.equal(issues.body.has_more, false);
    assert.equal(issues.body.charged_credits, 0);
    // GitHub refuses a query naming neither kind: one search per kind, both sorted as asked.
    assert.deepEqual(
      searches(before)
        .map((r) => [r.path, r.query.q, r.query.sort, r.query.order, r.query.page])
        .sort(),
      [
        ["/github/search/issues", `${ISSUES_QUERY} is:issue`, "created", "desc", "1"],
        ["/github/search/issues", `${ISSUES_QUERY} is:pull-request`, "created", "desc", "1"],
      ],
    );
    // A query naming its kind is sent as written: one search.
    const own = kit.h.replay.requests.length;
    const onlyIssues = await kit.execute({ query: `${ISSUES_QUERY} is:issue`, kind: "issues" });
    assert.equal(onlyIssues.status, 200, JSON.stringify(onlyIssues.body));
    assert.equal(onlyIssues.body.results.length, 2);
    assert.deepEqual(
      searches(own).map((r) => r.query.q),
      [`${ISSUES_QUERY} is:issue`],
    );
    const from = kit.h.replay.requests.length;
    const code = await kit.execute({ query: "toto user:jacquev6", kind: "code", num: 30 });
    assert.equal(code.status, 200, JSON.stringify(code.body));
    assert.equal(code.body.results.length, 14);
    assert.equal(code.body.results[0].kind, "code");
    assert.equal(code.body.results[0].repo, "jacquev6/PyGithub");
    assert.equal(code.body.results[0].path, "github/tests/ReplayData/Commit.setUp.txt");
    assert.equal(searches(from)[0]?.headers.accept, "application/vnd.github.text-match+json");
  });

  test("bounds: query 1-300, kind, sort 1-30, num 1-30", async () => {
    await kit.expectViolation({}, "/query");
    await kit.expectViolation({ query: "" }, "/query");
    await kit.expectViolation({ query: "x".repeat(301) }, "/query");
    await kit.expectViolation({ query: "x", kind: "users" }, "/kind");
    await kit.expectViolation({ query: "x", sort: "" }, "/sort");
    await kit.expectViolation({ query: "x", sort: "s".repeat(31) }, "/sort");
    await kit.expectViolation({ query: "x", num: 0 }, "/num");
    await kit.expectViolation({ query: "x", num: 31 }, "/num");
    await kit.expectViolation({ query: "x", order: "asc" }, "/order");
    const ok = await kit.execute({ query: "pygithub", num: 30, sort: "forks" });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
  });

  test("rule: sort per kind, at /sort; an update changing only kind is pointed at /params/kind", async () => {
    await kit.expectViolation({ query: "x", sort: "comments" }, "/sort", /use "stars", "forks", "updated"/);
    await kit.expectViolation({ query: "x", kind: "issues", sort: "stars" }, "/sort", /use "created", "updated", "comments"/);
    await kit.expectViolation({ query: "x", kind: "code", sort: "updated" }, "/sort", /code" takes no sort/);
    const ex = await kit.execute({ query: "pygithub", sort: "stars" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    await kit.expectUpdateViolation(ex.body.search_id, { kind: "issues" }, "/params/kind", /sort is "stars"/);
    await kit.expectUpdateViolation(ex.body.search_id, { sort: "comments" }, "/params/sort");
    await kit.expectUpdateViolation(ex.body.search_id, { num: 31 }, "/params/num");
    const fixed = await kit.update(ex.body.search_id, { sort: "updated" });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.equal(fixed.body.search_id, ex.body.search_id);
    assert.equal(fixed.body.charged_credits, 0);
  });

  test("page paging: more asks for the next page; at GitHub's 1,000-result cap has_more turns false", async () => {
    // A key of its own: the walk to the cap is 34 calls (the per-key rate is 60 a minute).
    const { key } = await kit.h.account("pro");
    const post = (body: unknown) => kit.h.call("POST", "/v1/follow-up", { key, body });
    const first = await kit.execute({ query: "github language:Python", sort: "stars", num: 30 }, key);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.has_more, true);
    let page = first;
    let pages = 1;
    const from = kit.h.replay.requests.length;
    while (page.body.has_more === true && pages < 40) {
      page = await post({ search_id: first.body.search_id, action: "more" });
      assert.equal(page.status, 200, JSON.stringify(page.body));
      pages += 1;
    }
    assert.equal(pages, 34, "34 pages of 30 reach the cap (GitHub reports 2,723 matches)");
    assert.equal(page.body.has_more, false);
    assert.ok(page.body.notes.some((n: string) => /2723 matches but serves at most the first 1000/.test(n)), "page.body.notes.some((n: string) => /2723 matches but serves at most the first 1000/.te...");
    const sent = searches(from);
    assert.equal(sent[0]?.query.page, "2");
    assert.equal(sent.at(-1)?.query.page, "34");
    assert.equal(sent.at(-1)?.query.per_page, "30");
    const past = await post({ search_id: first.body.search_id, action: "more" });
    assert.equal(past.status, 200);
    assert.equal(past.body.results.length, 0);
    assert.equal(past.body.charged_credits, 0);
  });

  test("details: the repository's stats, README head and files, fetched once and free; the repeat is cached", async () => {
    const ex = await kit.execute({ query: "pygithub" });
    const recordId = ex.body.results[0].record_id;
    const from = kit.h.replay.requests.length;
    const first = await kit.action(recordId, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 0);
    assert.equal(first.body.detail.repo, "PyGithub/PyGithub");
    assert.equal(first.body.detail.stats.stars, 7122);
    assert.match(first.body.detail.readme.head, /^This is a Python library to access the \[Github API v3\]/);
    assert.equal("files" in first.body.detail, false, "the listing is not recorded (404): left out, not invented");
    assert.deepEqual(
      kit.h.replay.requests
        .slice(from)
        .map((r) => r.path)
        .sort(),
      ["/github/repos/PyGithub/PyGithub", "/github/repos/PyGithub/PyGithub/contents/", "/github/repos/PyGithub/PyGithub/readme"],
    );
    const again = await kit.action(recordId, "details");
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(kit.h.replay.requests.length, from + 3);
  });

  test("details of an issue: its repository, which GitHub no longer has (404) → invalid_request at /record_id", async () => {
    const ex = await kit.execute({ query: ISSUES_QUERY, kind: "issues" });
    const res = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.violations[0].path, "/record_id");
    assert.match(res.body.error.violations[0].message, /octokit-fixture-org\/tmp-scenario-search-issues/);
  });

  test("GitHub's rate limit: a retryable provider_error that says when to retry, charged nothing", async () => {
    const usedBefore = await kit.used();
    const res = await kit.execute({ query: "rate-limited example" });
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "provider_error");
    assert.equal(res.body.error.retryable, true);
    assert.match(res.body.error.message, /rate limit/);
    assert.match(res.body.error.hint, /60 requests an hour/);
    assert.equal(await kit.used(), usedBefore);
  });

  test("a query GitHub refuses (422): invalid_request at /query with GitHub's words", async () => {
    await kit.expectViolation({ query: "repo:no-such-owner/no-such-repo", kind: "issues" }, "/query", /cannot be searched/);
  });

  test("without GITHUB_TOKEN: kind code is 503 naming it; repositories and issues still answer", async () => {
    const code = await keyless.execute({ query: "toto user:jacquev6", kind: "code" });
    assert.equal(code.status, 503, JSON.stringify(code.body));
    assert.equal(code.body.error.code, "capability_unavailable");
    assert.match(code.body.error.message, /GITHUB_TOKEN/);
    const from = kit.h.replay.requests.length;
    const repos = await keyless.execute({ query: "pygithub" });
    assert.equal(repos.status, 200, JSON.stringify(repos.body));
    assert.equal(kit.h.replay.requests[from]?.headers.authorization, undefined, "no token: no Authorization header");
    const catalog = (await keyless.h.call("GET", "/v1/catalog", { key: keyless.key })).body.capabilities.find(
      (c: { id: string }) => c.id === "codehost.search",
    );
    assert.equal(catalog.available, true);
    assert.match(catalog.unavailable_reason, /kind "code" is unavailable: GITHUB_TOKEN is not set/);
    const ex = await keyless.execute({ query: "pygithub" });
    const toCode = await keyless.update(ex.body.search_id, { kind: "code" });
    assert.equal(toCode.status, 503, JSON.stringify(toCode.body));
    assert.match(toCode.body.error.message, /GITHUB_TOKEN/);
  });
});
