// social.search mappers and sources without a server: twitterapi.io requests and records (documented
// examples), the microblog slice that takes `num` items across provider pages with a {cursor, skip}
// cursor, Reddit's recorded listing and account, its refusals, and what each variant costs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, fixtureText, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject } from "../types.ts";
import { socialSearch } from "./capability.ts";
import { readReddit, redditPage, redditPostDetail, redditUserDetail, toRedditSearchRequest, toRedditUserRequest } from "./reddit.ts";
import { parseTwitterSearch, toTwitterSearchRequest, tweetDetail, twitterRecords, userDetail } from "./twitterapi.ts";

const page1 = fixture("twitterapi", "advanced_search_page1.json") as JsonObject;
const page2 = fixture("twitterapi", "advanced_search_page2.json");
const CURSOR = page1.next_cursor as string;
const query = (extra: JsonObject = {}): JsonObject => ({ platform: "microblog", query: "open data", kind: "posts", num: 10, ...extra });

/** twitterapi.io as recorded: page 1 without a cursor, page 2 under page 1's cursor. */
const microblog = (r: UpstreamRequest) => (r.query?.cursor === CURSOR ? page2 : page1);

test("twitterapi.io requests: advanced search (Top) or user search, the cursor when there is one", () => {
  assert.deepEqual(toTwitterSearchRequest("posts", "open data", null), {
    provider: "twitterapi",
    method: "GET",
    path: "/twitter/tweet/advanced_search",
    query: { query: "open data", queryType: "Top" },
    acceptStatus: [400],
  });
  assert.deepEqual(toTwitterSearchRequest("profiles", "open data", "abc").query, { query: "open data", cursor: "abc" });
  assert.equal(toTwitterSearchRequest("profiles", "x", null).path, "/twitter/user/search");
});

test("posts and profiles map to the spec's keys, ISO times, ids in ref", () => {
  const { items, next } = parseTwitterSearch(200, page1, "posts");
  assert.equal(next, CURSOR);
  const [post] = twitterRecords(items, "posts");
  assert.deepEqual(post?.summary, {
    title: "Open data is only as useful as its licence: CC BY and ODbL both ask for attribution. A short thread on getting it…",
    url: "https://x.com/opendata_notes/status/1860000000000000001",
    snippet: "Open data is only as useful as its licence: CC BY and ODbL both ask for attribution. A short thread on getting it right. #opendata",
    platform: "microblog",
    kind: "post",
    author: "opendata_notes",
    author_name: "Open Data Notes",
    created_at: "2024-12-10T07:00:30.000Z",
    likes: 318,
    reposts: 41,
    replies: 12,
    views: 20411,
  });
  assert.deepEqual(post?.ref, { kind: "post", id: "1860000000000000001" });
  const users = parseTwitterSearch(200, fixture("twitterapi", "user_search.json"), "profiles");
  assert.equal(users.next, null);
  const [profile, , third] = twitterRecords(users.items, "profiles");
  assert.equal(profile?.summary.title, "Open Data Notes (@opendata_notes)");
  assert.equal(profile?.summary.followers, 15230);
  assert.equal(profile?.summary.posts, 8931);
  assert.equal(profile?.summary.verified, true);
  assert.equal(profile?.summary.location, "Berlin, Germany");
  assert.equal("location" in (third?.summary ?? {}), false, "an empty location is left out");
  assert.deepEqual(profile?.ref, { kind: "profile", userName: "opendata_notes" });
});

test("twitterapi.io errors (the documented 400 {status: error, msg}) are provider_error with its words", () => {
  assert.throws(
    () => parseTwitterSearch(400, fixture("twitterapi", "error_400.json"), "posts"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /the query is empty/.test(e.message),
  );
  assert.throws(() => parseTwitterSearch(200, { status: "success" }, "posts"), (e: unknown) => e instanceof ApiError && /without a tweets list/.test(e.message));
});

test("a microblog slice takes num items across provider pages; the cursor resumes inside a page", async () => {
  const { ctx, requests } = fakeContext(microblog);
  const first = await socialSearch.search(ctx, query({ num: 2 }), null);
  assert.deepEqual(first.records.map((r) => r.ref?.id), ["1860000000000000001", "1860000000000000002"]);
  assert.deepEqual(first.next, { cursor: null, skip: 2 });
  assert.equal(first.credits, 1, "2 × $0.00015 rounds up to 1 credit");
  const second = await socialSearch.search(ctx, query({ num: 2 }), first.next);
  assert.deepEqual(second.records.map((r) => r.ref?.id), ["1860000000000000003", "1860000000000000004"]);
  assert.deepEqual(second.next, { cursor: CURSOR, skip: 1 });
  const third = await socialSearch.search(ctx, query({ num: 2 }), second.next);
  assert.deepEqual(third.records.map((r) => r.ref?.id), ["1860000000000000005"]);
  assert.equal(third.next, null);
  assert.deepEqual(
    requests.map((r) => r.query?.cursor ?? null),
    [null, null, CURSOR, CURSOR],
  );
  const all = await socialSearch.search(ctx, query({ num: 25 }), null);
  assert.equal(all.records.length, 5);
  assert.equal(all.next, null);
  assert.equal(all.credits, 1, "5 × $0.00015 = $0.00075: 1 credit");
});

test("costs: microblog reserves num × $0.00015, the forum nothing; details 1 credit on the microblog, free on the forum", () => {
  assert.equal(socialSearch.maxCredits(query({ num: 10 })), 2);
  assert.equal(socialSearch.maxCredits(query({ num: 25 })), 4);
  assert.equal(socialSearch.maxCredits(query({ num: 1 })), 1);
  assert.equal(socialSearch.maxCredits(query({ platform: "forum", num: 25 })), 0);
  assert.equal(socialSearch.typicalCredits, 2);
  const details = socialSearch.actions.details!;
  assert.equal(details.mode, "fetched");
  assert.equal(details.maxCredits(query()), 1);
  assert.equal(details.maxCredits(query({ platform: "forum" })), 0);
  assert.deepEqual(socialSearch.availability(new Set()), { partial: 'platform "microblog" is unavailable: TWITTERAPI_API_KEY is not set in this deployment' });
  assert.equal(socialSearch.missingKeyFor(new Set(), query()), "TWITTERAPI_API_KEY");
  assert.equal(socialSearch.missingKeyFor(new Set(), query({ platform: "forum" })), undefined);
});

test("microblog details: the post by id (with engagement now) and the profile; a missing post is provider_error", () => {
  const post = tweetDetail(200, fixture("twitterapi", "tweets_by_ids.json"), "1860000000000000001");
  assert.equal(post.detail.likes, 325);
  assert.equal(post.detail.quotes, 5);
  assert.deepEqual(post.detail.hashtags, ["opendata"]);
  assert.equal((post.detail.author_profile as JsonObject).followers, 15230);
  assert.deepEqual(post.links, [{ label: "Post", url: "https://x.com/opendata_notes/status/1860000000000000001" }]);
  assert.throws(() => tweetDetail(200, { tweets: [], status: "success" }, "1"), (e: unknown) => e instanceof ApiError && /no longer has post 1/.test(e.message));
  const profile = userDetail(200, fixture("twitterapi", "user_info.json"), "opendata_notes");
  assert.equal(profile.detail.id, "1500000000000000001");
  assert.equal(profile.detail.description, "Notes on open data, public APIs and data licences. (Illustrative account.)");
  assert.equal(profile.detail.media, 87);
});

test("Reddit requests: /search.json with type, limit, after and raw_json, read as text, 403/404 read here", () => {
  assert.deepEqual(toRedditSearchRequest("posts", "pop", 10, null), {
    provider: "reddit",
    method: "GET",
    path: "/search.json",
    query: { q: "pop", type: "link", limit: 10, raw_json: 1 },
    responseType: "text",
    acceptStatus: [403, 404],
  });
  assert.deepEqual(toRedditSearchRequest("profiles", "pop", 5, "t2_x").query, { q: "pop", type: "user", limit: 5, after: "t2_x", raw_json: 1 });
  assert.equal(toRedditUserRequest("Watchful1").path, "/user/Watchful1/about.json");
});

test("the recorded Reddit listing: posts with subreddit, score, comments, link_url, subscribers; the next token", () => {
  const page = redditPage(200, fixtureText("reddit", "search_listing.json"), "posts", 25);
  assert.equal(page.records.length, 25);
  assert.equal(page.next, "t3_155olnd");
  assert.deepEqual(page.records[0]?.summary, {
    title: "Poetic Pop Quiz. All correct answers.",
    url: "https://www.reddit.com/r/afkarena/comments/14ynl0l/poetic_pop_quiz_all_correct_answers/",
    platform: "forum",
    kind: "post",
    author: "afk_inside",
    created_at: "2023-07-13T15:16:41.000Z",
    subreddit: "afkarena",
    score: 863,
    comments: 24,
    link_url: "https://i.redd.it/z1kwwlue1rbb1.png",
    subscribers: 262250,
  });
  assert.deepEqual(page.records[0]?.ref, { kind: "post", name: "t3_14ynl0l" });
  const selfPosts = page.records.filter((r) => r.summary.link_url === undefined);
  assert.ok(selfPosts.every((r) => !String(r.summary.url).includes("i.redd.it")));
});

test("Reddit listing more than `num` (the limit asked): the page keeps `num` and continues after the last one kept", () => {
  const all = redditPage(200, fixtureText("reddit", "search_listing.json"), "posts", 25);
  const page = redditPage(200, fixtureText("reddit", "search_listing.json"), "posts", 3);
  assert.deepEqual(page.records, all.records.slice(0, 3));
  assert.equal(page.next, all.records[2]?.ref?.name, "Reddit's `after` takes the fullname of the last post kept");
  // Exactly `num` listed: Reddit's own token.
  assert.equal(redditPage(200, fixtureText("reddit", "search_listing.json"), "posts", 25).next, "t3_155olnd");
});

test("Reddit accounts: karma, followers (profile subscribers), verified; the legacy shape sums link and comment karma", () => {
  const page = redditPage(200, fixtureText("reddit", "search_users_listing.json"), "profiles", 25);
  assert.equal(page.next, null);
  const [watchful, legacy] = page.records;
  assert.equal(watchful?.summary.title, "u/Watchful1");
  assert.equal(watchful?.summary.karma, 265351);
  assert.equal(watchful?.summary.followers, 156);
  assert.equal(watchful?.summary.verified, true);
  assert.equal(watchful?.summary.created_at, "2013-09-05T23:38:17.000Z");
  assert.deepEqual(watchful?.ref, { kind: "profile", name: "Watchful1" });
  const raw = JSON.parse(fixtureText("reddit", "user_about_small_legacy.json")).data;
  assert.equal(legacy?.summary.karma, raw.link_karma + raw.comment_karma);
  const about = redditUserDetail(200, fixtureText("reddit", "user_about.json"), "Watchful1");
  assert.equal(about.detail.comment_karma, 206653);
  assert.match(String(about.detail.description), /RemindMeBot/);
  const post = redditPostDetail(200, fixtureText("reddit", "by_id_t3_14ynl0l.json"), "t3_14ynl0l");
  assert.equal(post.detail.upvote_ratio, 0.97);
  assert.equal(post.links.length, 2);
});

test("Reddit refusals: the 403 HTML page from datacenter networks and other failures are provider_error, never a page", () => {
  const refused = (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /datacenter networks/.test(e.hint ?? "");
  assert.throws(() => readReddit(403, fixtureText("reddit", "blocked_network_policy.html")), refused);
  assert.throws(() => readReddit(200, "<!doctype html><html><body>blocked</body></html>"), refused);
  assert.throws(() => readReddit(404, fixtureText("reddit", "error_404_not_found.json")), (e: unknown) => e instanceof ApiError && /Not Found \(HTTP 404\)/.test(e.message));
  assert.throws(() => redditPage(200, '{"kind": "t2", "data": {}}', "posts", 10), (e: unknown) => e instanceof ApiError && /not a listing|other than a listing/.test(e.message));
});

test("the forum source answers a 429 (after the client's retries) with Reddit's hint", async () => {
  const { ctx } = fakeContext(new ApiError("provider_error", "reddit failed: rate limited by the provider (429).", { retryAfter: 30 }));
  await assert.rejects(socialSearch.search(ctx, query({ platform: "forum" }), null), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "provider_error");
    assert.match(e.hint ?? "", /datacenter networks/);
    assert.equal(e.retryAfter, 30);
    return true;
  });
  const ok = fakeContext(() => response(200, fixtureText("reddit", "search_listing.json")));
  const page = await socialSearch.search(ok.ctx, query({ platform: "forum", num: 25 }), "t3_abc");
  assert.equal(ok.requests[0]?.query?.after, "t3_abc");
  assert.equal(page.next, "t3_155olnd");
  assert.equal(page.credits, 0);
});
