/**
 * social.search end to end over HTTP against the replay upstream: each field's bounds (at execute and
 * through `update`, under /params), microblog posts billed per post returned with token paging,
 * `update` and its charge, `details` fetched once (1 credit on the microblog, free on the forum) and
 * then cached at 0, the forum's Reddit listing and its refusal from datacenter networks, and records
 * found before an `update` that changed the platform keeping their own platform's details.
 *
 * Both providers are paced per process (Reddit about 10 requests a minute keyless, twitterapi.io one
 * every 5 s by default: src/upstream/client-pacing.test.ts); these kits set their interval variables
 * to 0 so the replay answers at once.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { type CapabilityKit, startCapabilityKit } from "./helpers/capability-kit.ts";

let kit: CapabilityKit;

/** Pacing off: the replay is not Reddit or twitterapi.io (pacing itself: client-pacing.test.ts). */
const UNPACED = { REDDIT_MIN_INTERVAL_MS: "0", TWITTERAPI_MIN_INTERVAL_MS: "0" };

before(async () => {
  kit = await startCapabilityKit("social.search", { env: UNPACED });
});
after(async () => {
  await kit.close();
});

/** Replay requests to a provider prefix since index `from`. */
const calls = (prefix: string, from: number) => kit.h.replay.requests.slice(from).filter((r) => r.prefix === prefix);

const microblog = { platform: "microblog", query: "open data", num: 2 };

describe("social.search fields", () => {
  test("bounds and enums are violations at their pointers", async () => {
    await kit.expectViolation({ query: "x" }, "/platform", /required/);
    await kit.expectViolation({ platform: "fediverse", query: "x" }, "/platform", /must be one of "microblog", "forum"/);
    await kit.expectViolation({ platform: "forum" }, "/query", /required/);
    await kit.expectViolation({ platform: "forum", query: "" }, "/query", /at least 1 character/);
    await kit.expectViolation({ platform: "forum", query: "q".repeat(301) }, "/query", /at most 300 characters/);
    await kit.expectViolation({ platform: "forum", query: "x", kind: "comments" }, "/kind", /must be one of "posts", "profiles"/);
    await kit.expectViolation({ platform: "forum", query: "x", num: 0 }, "/num");
    await kit.expectViolation({ platform: "forum", query: "x", num: 26 }, "/num");
    await kit.expectViolation({ platform: "forum", query: "x", num: 2.5 }, "/num");
    await kit.expectViolation({ platform: "forum", query: "x", limit: 5 }, "/limit", /did you mean "num"/);
  });

  test("through update the same bounds point under /params", async () => {
    const ex = await kit.execute({ platform: "forum", query: "pop" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    await kit.expectUpdateViolation(ex.body.search_id, { num: 26 }, "/params/num");
    await kit.expectUpdateViolation(ex.body.search_id, { kind: "threads" }, "/params/kind");
    await kit.expectUpdateViolation(ex.body.search_id, { platform: "blog" }, "/params/platform");
    await kit.expectUpdateViolation(ex.body.search_id, { query: "" }, "/params/query");
  });
});

describe("social.search microblog (twitterapi.io)", () => {
  test("posts are billed per post returned, the key goes in X-API-Key, and `more` continues on the next provider page", async () => {
    const used = await kit.used();
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute(microblog);
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.result_count, 2);
    assert.equal(ex.body.has_more, true);
    assert.deepEqual(ex.body.next.actions, ["more", "update"]);
    assert.deepEqual(ex.body.record_actions, ["details"]);
    assert.equal(ex.body.charged_credits, 1, "2 posts × $0.00015 = $0.0003 → 1 credit");
    assert.equal(await kit.used(), used + 1);
    const [first] = ex.body.results;
    assert.equal(first.platform, "microblog");
    assert.equal(first.kind, "post");
    assert.equal(first.author, "opendata_notes");
    assert.equal(first.likes, 318);
    assert.equal(first.created_at, "2024-12-10T07:00:30.000Z");
    const sent = calls("twitterapi", from);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]?.path, "/twitterapi/twitter/tweet/advanced_search");
    assert.deepEqual(sent[0]?.query, { query: "open data", queryType: "Top" });
    assert.equal(sent[0]?.headers["x-api-key"], "demo-key");
    assert.match(String(sent[0]?.headers["user-agent"]), /^Quarry\//);

    const more = await kit.more(ex.body.search_id);
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(more.body.search_id, ex.body.search_id);
    assert.deepEqual(
      more.body.results.map((r: { author: string }) => r.author),
      ["datasets_daily", "opendata_notes"],
      "the third post of page 1, then the first of page 2",
    );
    assert.equal(more.body.charged_credits, 1);
    const last = await kit.more(ex.body.search_id);
    assert.equal(last.status, 200, JSON.stringify(last.body));
    assert.equal(last.body.result_count, 1);
    assert.equal(last.body.has_more, false);
    assert.equal(await kit.used(), used + 3);
  });

  test("`update` to profiles re-runs the search under the same search_id and is billed per profile", async () => {
    const ex = await kit.execute(microblog);
    const used = await kit.used();
    const up = await kit.update(ex.body.search_id, { kind: "profiles", num: 3 });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.search_id, ex.body.search_id);
    assert.equal(up.body.result_count, 3);
    assert.equal(up.body.results[0].kind, "profile");
    assert.equal(up.body.results[0].followers, 15230);
    assert.equal(up.body.results[0].verified, true);
    assert.equal(up.body.charged_credits, 1, "3 × $0.00015 → 1 credit");
    assert.equal(await kit.used(), used + 1);
  });

  test("details of a post: fetched once for 1 credit (the post by id), then cached at 0", async () => {
    const ex = await kit.execute(microblog);
    const record = ex.body.results[0];
    const used = await kit.used();
    const from = kit.h.replay.requests.length;
    const first = await kit.action(record.record_id, "details");
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.cached, false);
    assert.equal(first.body.charged_credits, 1);
    assert.equal(first.body.detail.likes, 325, "engagement as the provider reports it now");
    assert.equal(first.body.detail.text.startsWith("Open data is only as useful"), true);
    assert.deepEqual(calls("twitterapi", from).map((r) => r.query.tweet_ids), ["1860000000000000001"]);
    const again = await kit.action(record.record_id, "details");
    assert.equal(again.status, 200);
    assert.equal(again.body.cached, true);
    assert.equal(again.body.charged_credits, 0);
    assert.deepEqual(again.body.detail, first.body.detail);
    assert.equal(calls("twitterapi", from).length, 1);
    assert.equal(await kit.used(), used + 1);
  });

  test("details of a profile: the user's info for 1 credit", async () => {
    const ex = await kit.execute({ platform: "microblog", query: "open data", kind: "profiles" });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.charged_credits, 1);
    const res = await kit.action(ex.body.results[0].record_id, "details");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.charged_credits, 1);
    assert.equal(res.body.detail.kind, "profile");
    assert.equal(res.body.detail.id, "1500000000000000001");
    assert.deepEqual(res.body.links, [{ label: "Profile", url: "https://x.com/opendata_notes" }]);
  });

  test("a record action the capability does not have is refused", async () => {
    const ex = await kit.execute(microblog);
    const res = await kit.action(ex.body.results[0].record_id, "transcript");
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "invalid_request");
  });
});

describe("social.search forum (Reddit)", () => {
  test("posts from the listing, free; `more` sends the listing's `after` token", async () => {
    const used = await kit.used();
    const from = kit.h.replay.requests.length;
    const ex = await kit.execute({ platform: "forum", query: "pop", num: 25 });
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    assert.equal(ex.body.result_count, 25);
    assert.equal(ex.body.charged_credits, 0);
    assert.equal(ex.body.has_more, true);
    const [first] = ex.body.results;
    assert.deepEqual(
      { platform: first.platform, kind: first.kind, subreddit: first.subreddit, score: first.score, comments: first.comments, subscribers: first.subscribers },
      { platform: "forum", kind: "post", subreddit: "afkarena", score: 863, comments: 24, subscribers: 262250 },
    );
    const search = calls("reddit", from);
    assert.deepEqual(search[0]?.query, { q: "pop", type: "link", limit: "25", raw_json: "1" });
    assert.match(String(search[0]?.headers["user-agent"]), /^Quarry\/.*search gateway/);

    const more = await kit.more(ex.body.search_id);
    assert.equal(more.status, 200, JSON.stringify(more.body));
    assert.equal(calls("reddit", from).at(-1)?.query.after, "t3_155olnd");
    assert.equal(more.body.charged_credits, 0);
    assert.equal(await kit.used(), used);
  });

  test("profiles, and details of a post and a profile: fetched once, free, then cached", async () => {
    const posts = await kit.execute({ platform: "forum", query: "pop" });
    const from = kit.h.replay.requests.length;
    const post = await kit.action(posts.body.results[0].record_id, "details");
    assert.equal(post.status, 200, JSON.stringify(post.body));
    assert.equal(post.body.charged_credits, 0);
    assert.equal(post.body.cached, false);
    assert.equal(post.body.detail.upvote_ratio, 0.97);
    assert.equal(calls("reddit", from)[0]?.path, "/reddit/by_id/t3_14ynl0l.json");
    const repeat = await kit.action(posts.body.results[0].record_id, "details");
    assert.equal(repeat.body.cached, true);
    assert.equal(repeat.body.charged_credits, 0);

    const users = await kit.execute({ platform: "forum", query: "watchful", kind: "profiles" });
    assert.equal(users.status, 200, JSON.stringify(users.body));
    assert.deepEqual(
      users.body.results.map((r: { title: string; karma: number }) => [r.title, r.karma]),
      [
        ["u/Watchful1", 265351],
        ["u/PyAPITestUser3", 1],
      ],
    );
    const about = await kit.action(users.body.results[0].record_id, "details");
    assert.equal(about.status, 200, JSON.stringify(about.body));
    assert.equal(about.body.detail.comment_karma, 206653);
    assert.equal(about.body.charged_credits, 0);
  });

  test("a refusal from a datacenter network is 502 provider_error with a hint, charged nothing", async () => {
    const used = await kit.used();
    const res = await kit.execute({ platform: "forum", query: "datacenter refusal" });
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "provider_error");
    assert.equal(res.body.error.retryable, true);
    assert.match(res.body.error.message, /Reddit refused the request \(HTTP 403, an HTML page\)/);
    assert.match(res.body.error.hint, /datacenter networks/);
    assert.equal(await kit.used(), used);
  });
});

describe("social.search records found before an update that changed the platform", () => {
  test("keep their own platform's details: the microblog's for 1 credit, the forum's free", async () => {
    const ex = await kit.execute(microblog);
    assert.equal(ex.status, 200, JSON.stringify(ex.body));
    const post = ex.body.results[0];
    const up = await kit.update(ex.body.search_id, { platform: "forum" });
    assert.equal(up.status, 200, JSON.stringify(up.body));
    assert.equal(up.body.results[0].platform, "forum");
    const forumPost = up.body.results[0];

    const used = await kit.used();
    const from = kit.h.replay.requests.length;
    const before = await kit.action(post.record_id, "details");
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.detail.platform, "microblog");
    assert.equal(before.body.detail.id, "1860000000000000001");
    assert.equal(before.body.charged_credits, 1, "billed as the microblog's details, the platform it was found on");
    assert.deepEqual(calls("twitterapi", from).map((r) => r.query.tweet_ids), ["1860000000000000001"]);
    assert.equal(await kit.used(), used + 1);

    const after = await kit.action(forumPost.record_id, "details");
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal(after.body.detail.platform, "forum");
    assert.equal(after.body.charged_credits, 0);

    // And back: a forum record found before an update to the microblog keeps the forum's free details.
    const forum = await kit.execute({ platform: "forum", query: "pop" });
    const back = await kit.update(forum.body.search_id, { platform: "microblog" });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    const res = await kit.action(forum.body.results[0].record_id, "details");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.detail.platform, "forum");
    assert.equal(res.body.charged_credits, 0);
  });
});

describe("social.search forum with an OAuth client (REDDIT_CLIENT_ID, REDDIT_CLIENT_SECRET)", () => {
  test("one application token from www.reddit.com, then the search and details on oauth.reddit.com with it; nothing else changes", async () => {
    const oauth = await startCapabilityKit("social.search", { env: { ...UNPACED, REDDIT_CLIENT_ID: "quarry-app", REDDIT_CLIENT_SECRET: "not-a-real-secret" } });
    try {
      const ex = await oauth.execute({ platform: "forum", query: "pop" });
      assert.equal(ex.status, 200, JSON.stringify(ex.body));
      assert.equal(ex.body.results[0].subreddit, "afkarena");
      const details = await oauth.action(ex.body.results[0].record_id, "details");
      assert.equal(details.status, 200, JSON.stringify(details.body));
      assert.equal(details.body.detail.upvote_ratio, 0.97);
      const seen = oauth.h.replay.requests.map((r) => [r.method, r.path.split("?")[0], r.headers.authorization]);
      assert.deepEqual(seen, [
        ["POST", "/reddit/api/v1/access_token", `Basic ${Buffer.from("quarry-app:not-a-real-secret").toString("base64")}`],
        ["GET", "/reddit-oauth/search.json", "bearer <ACCESS_TOKEN>"],
        ["GET", "/reddit-oauth/by_id/t3_14ynl0l.json", "bearer <ACCESS_TOKEN>"],
      ]);
      assert.equal(oauth.h.replay.requests[0]?.body, "grant_type=client_credentials");
    } finally {
      await oauth.close();
    }
  });
});

describe("social.search when a provider rate limits this deployment (HTTP 429)", () => {
  test("Reddit's and twitterapi.io's 429: 502 retryable with the wait, nothing charged, and the wait kept for the next caller", async () => {
    const limited = await startCapabilityKit("social.search", { env: { ...UNPACED, UPSTREAM_MAX_RETRIES: "0" } });
    try {
      for (const [provider, body] of [
        ["reddit", { platform: "forum", query: "pop" }],
        ["twitterapi", microblog],
      ] as const) {
        const used = await limited.used();
        // The replay's 429 carries Retry-After; Reddit's own carries x-ratelimit-reset instead (no wait known then).
        limited.h.replay.setFault(provider, { kind: "rate_limit", retryAfterSeconds: 30, times: 1 });
        const res = await limited.execute(body);
        assert.equal(res.status, 502, JSON.stringify(res.body));
        assert.equal(res.body.error.code, "provider_error");
        assert.equal(res.body.error.retryable, true);
        assert.match(res.body.error.message, /rate limiting this deployment \(HTTP 429\) and asks to wait 30 s/);
        if (provider === "reddit") assert.match(res.body.error.hint, /datacenter networks.*Reddit's wait: about 30 s/);
        else assert.match(res.body.error.hint, /Retry after 30 s/);
        // The provider is not called again while its wait lasts: the next caller is told at once.
        const from = limited.h.replay.requests.length;
        const again = await limited.execute(body);
        assert.equal(again.status, 502, JSON.stringify(again.body));
        assert.match(again.body.error.message, /asked this deployment to wait .* it was not called/);
        assert.equal(limited.h.replay.requests.slice(from).filter((r) => r.prefix === provider).length, 0);
        assert.equal(await limited.used(), used, "nothing charged");
      }
    } finally {
      await limited.close();
    }
  });
});
