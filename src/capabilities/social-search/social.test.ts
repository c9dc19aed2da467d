// social.search mappers and sources without a server: twitterapi.io requests and records (documented
// examples), the microblog slice that takes `num` items across provider pages with a {cursor, skip}
// cursor, Reddit's recorded listing and account, each provider's refusals (the requests' `refusal`),
// the declared answers every recording fits (and drift when a field moves), and what each variant costs.
import type { TSchema } from "@sinclair/typebox";
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeContext, fixture, fixtureText, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonRequest, UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject } from "../types.ts";
import { socialSearch } from "./capability.ts";
import {
  type RedditAbout,
  type RedditAccountListing,
  type RedditPostListing,
  redditPage,
  redditPostDetail,
  redditRefusal,
  redditUserDetail,
  toRedditPostRequest,
  toRedditSearchRequest,
  toRedditUserRequest,
} from "./reddit.ts";
import {
  parseTwitterSearch,
  type TwitterTweetPage,
  type TwitterTweets,
  type TwitterUserInfo,
  type TwitterUserPage,
  toTweetRequest,
  toTwitterSearchRequest,
  toUserInfoRequest,
  tweetDetail,
  twitterApiRefusal,
  twitterRecords,
  userDetail,
} from "./twitterapi.ts";

/** A recorded body as the upstream client passes it to the mapper: through the request's refusal and schema. */
function answered<T>(request: JsonRequest<TSchema>, folder: string, file: string, status = 200): T {
  const body = fixture(folder, file);
  checkJsonAnswer(request, status, body);
  return body as T;
}

const page1 = fixture("twitterapi", "advanced_search_page1.json") as JsonObject;
const page2 = fixture("twitterapi", "advanced_search_page2.json");
const CURSOR = page1.next_cursor as string;
const listing = (file: string) => answered<RedditPostListing>(toRedditSearchRequest("posts", "x", 25, null), "reddit", file);
const posts = (file: string) => answered<TwitterTweetPage>(toTwitterSearchRequest("posts", "x", null), "twitterapi", file);
const query = (extra: JsonObject = {}): JsonObject => ({ platform: "microblog", query: "open data", kind: "posts", num: 10, ...extra });

/** twitterapi.io as recorded: page 1 without a cursor, page 2 under page 1's cursor. */
const microblog = (r: UpstreamRequest) => (r.query?.cursor === CURSOR ? page2 : page1);

test("twitterapi.io requests: advanced search (Top) or user search, the cursor when there is one", () => {
  const { response: declared, ...request } = toTwitterSearchRequest("posts", "open data", null);
  assert.deepEqual(request, {
    provider: "twitterapi",
    method: "GET",
    path: "/twitter/tweet/advanced_search",
    query: { query: "open data", queryType: "Top" },
    refusal: twitterApiRefusal,
  });
  assert.ok(declared, "declared");
  assert.deepEqual(toTwitterSearchRequest("profiles", "open data", "abc").query, { query: "open data", cursor: "abc" });
  assert.equal(toTwitterSearchRequest("profiles", "x", null).path, "/twitter/user/search");
});

test("posts and profiles map to the spec's keys, ISO times, ids in ref", () => {
  const { items, next } = parseTwitterSearch(posts("advanced_search_page1.json"));
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
  const users = parseTwitterSearch(answered<TwitterUserPage>(toTwitterSearchRequest("profiles", "x", null), "twitterapi", "user_search.json"));
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

test("twitterapi.io errors are every request's refusal: its words for the request, the account's kept for the log", () => {
  const request = toTwitterSearchRequest("posts", "x", null);
  assert.equal(request.refusal, twitterApiRefusal);
  assert.equal(toTweetRequest("1").refusal, twitterApiRefusal);
  assert.equal(toUserInfoRequest("x").refusal, twitterApiRefusal);
  const refused = (message: RegExp) => (e: unknown) => e instanceof ApiError && e.code === "provider_error" && !e.retryable && message.test(e.message);
  assert.throws(() => answered(request, "twitterapi", "error_400.json", 400), refused(/could not answer: Invalid query: the query is empty/));
  // https://docs.twitterapi.io/errors: 400 {detail}; "status": "error" with HTTP 200; 401/402/403 about the account.
  assert.throws(() => checkJsonAnswer(request, 400, { detail: "userName is required" }), refused(/userName is required/));
  assert.throws(() => checkJsonAnswer(toUserInfoRequest("nobody"), 200, { status: "error", msg: "user not found" }), refused(/user not found/));
  for (const [status, message] of [
    [401, "API key is invalid"],
    [402, "Credits is not enough.Please recharge"],
    [403, "API key required. Please include x-api-key in your request header..."],
  ] as const) {
    assert.throws(
      () => checkJsonAnswer(request, status, { error: "Unauthorized", message }),
      (e: unknown) => refused(/refused this deployment's account/)(e) && !(e as ApiError).message.includes(message) && String(((e as ApiError).cause as Error).message).includes(message),
      String(status),
    );
  }
  assert.equal(twitterApiRefusal(page1, 200), undefined);
  assert.equal(twitterApiRefusal(undefined, 429), undefined, "the client's rate limit");
});

test("every twitterapi.io example fits its declared answer; an answer that moved a field the mapper reads is drift", () => {
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^twitterapi\.io answered in a shape/.test(e.message);
  assert.throws(() => checkJsonAnswer(toTwitterSearchRequest("posts", "x", null), 200, { status: "success" }), drift("/tweets"));
  const { tweets, ...rest } = page1 as { tweets: Record<string, unknown>[] };
  const renamed = tweets.map((t, i) => (i === 1 ? { ...t, full_text: t.text, text: undefined } : t));
  assert.throws(() => checkJsonAnswer(toTwitterSearchRequest("posts", "x", null), 200, JSON.parse(JSON.stringify({ ...rest, tweets: renamed }))), drift("/tweets/1/text"));
  const retyped = { ...rest, tweets: tweets.map((t, i) => (i === 0 ? { ...t, likeCount: "318" } : t)) };
  assert.throws(() => checkJsonAnswer(toTwitterSearchRequest("posts", "x", null), 200, retyped), drift("/tweets/0/likeCount"));
  assert.throws(() => checkJsonAnswer(toTwitterSearchRequest("profiles", "x", null), 200, { people: [] }), drift("/users"));
  assert.throws(() => checkJsonAnswer(toUserInfoRequest("x"), 200, { user: {} }), drift("/data"));
});

test("a microblog slice takes num items across provider pages; the cursor resumes inside a page", async () => {
  const { ctx, requests } = fakeContext(microblog);
  const first = await socialSearch.search(ctx, query({ num: 2 }), null);
  assert.deepEqual(first.records.map((r) => r.ref?.id), ["1860000000000000001", "1860000000000000002"]);
  assert.deepEqual(first.next, { page: null, skip: 2 });
  assert.equal(first.credits, 1, "2 × $0.00015 rounds up to 1 credit");
  const second = await socialSearch.search(ctx, query({ num: 2 }), first.next);
  assert.deepEqual(second.records.map((r) => r.ref?.id), ["1860000000000000003", "1860000000000000004"]);
  assert.deepEqual(second.next, { page: CURSOR, skip: 1 });
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
  const post = tweetDetail(answered<TwitterTweets>(toTweetRequest("1860000000000000001"), "twitterapi", "tweets_by_ids.json"), "1860000000000000001");
  assert.equal(post.detail.likes, 325);
  assert.equal(post.detail.quotes, 5);
  assert.deepEqual(post.detail.hashtags, ["opendata"]);
  assert.equal((post.detail.author_profile as JsonObject).followers, 15230);
  assert.deepEqual(post.links, [{ label: "Post", url: "https://x.com/opendata_notes/status/1860000000000000001" }]);
  assert.throws(() => tweetDetail({ tweets: [] }, "1"), (e: unknown) => e instanceof ApiError && /no longer has post 1/.test(e.message));
  const profile = userDetail(answered<TwitterUserInfo>(toUserInfoRequest("opendata_notes"), "twitterapi", "user_info.json"), "opendata_notes");
  assert.equal(profile.detail.id, "1500000000000000001");
  assert.equal(profile.detail.description, "Notes on open data, public APIs and data licences. (Illustrative account.)");
  assert.equal(profile.detail.media, 87);
});

test("Reddit requests: /search.json with type, limit, after and raw_json, JSON with Reddit's refusal", () => {
  const { response: declared, ...request } = toRedditSearchRequest("posts", "pop", 10, null);
  assert.deepEqual(request, {
    provider: "reddit",
    method: "GET",
    path: "/search.json",
    query: { q: "pop", type: "link", limit: 10, raw_json: 1 },
    refusal: redditRefusal,
  });
  assert.ok(declared, "declared");
  assert.deepEqual(toRedditSearchRequest("profiles", "pop", 5, "t2_x").query, { q: "pop", type: "user", limit: 5, after: "t2_x", raw_json: 1 });
  assert.equal(toRedditUserRequest("Watchful1").path, "/user/Watchful1/about.json");
});

test("the recorded Reddit listing: posts with subreddit, score, comments, link_url, subscribers; the next token", () => {
  const page = redditPage(listing("search_listing.json"), "posts", 25);
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
  assert.ok(selfPosts.every((r) => !String(r.summary.url).includes("i.redd.it")), "selfPosts.every((r) => !String(r.summary.url).includes(\"i.redd.it\"))");
});

test("Reddit listing more than `num` (the limit asked): the page keeps `num` and continues after the last one kept", () => {
  const all = redditPage(listing("search_listing.json"), "posts", 25);
  const page = redditPage(listing("search_listing.json"), "posts", 3);
  assert.deepEqual(page.records, all.records.slice(0, 3));
  assert.equal(page.next, all.records[2]?.ref?.name, "Reddit's `after` takes the fullname of the last post kept");
  // Exactly `num` listed: Reddit's own token.
  assert.equal(redditPage(listing("search_listing.json"), "posts", 25).next, "t3_155olnd");
});

test("Reddit accounts: karma, followers (profile subscribers), verified; the legacy shape sums link and comment karma", () => {
  const page = redditPage(answered<RedditAccountListing>(toRedditSearchRequest("profiles", "x", 25, null), "reddit", "search_users_listing.json"), "profiles", 25);
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
  const about = redditUserDetail(answered<RedditAbout>(toRedditUserRequest("Watchful1"), "reddit", "user_about.json"), "Watchful1");
  assert.equal(about.detail.comment_karma, 206653);
  assert.match(String(about.detail.description), /RemindMeBot/);
  const post = redditPostDetail(answered<RedditPostListing>(toRedditPostRequest("t3_14ynl0l"), "reddit", "by_id_t3_14ynl0l.json"), "t3_14ynl0l");
  assert.equal(post.detail.upvote_ratio, 0.97);
  assert.equal(post.links.length, 2);
});

test("Reddit refusals: the 403 HTML page from datacenter networks and other failures are provider_error, never a page", () => {
  const request = toRedditSearchRequest("posts", "x", 10, null);
  const refused = (e: unknown) => e instanceof ApiError && e.code === "provider_error" && e.retryable && /\(HTTP 403, an HTML page\)/.test(e.message) && /datacenter networks/.test(e.hint ?? "");
  // The client passes an HTML body to the refusal as undefined (it is not JSON).
  assert.ok(fixtureText("reddit", "blocked_network_policy.html").includes("blocked due to a network policy"), "fixtureText(\"reddit\", \"blocked_network_policy.html\").includes(\"blocked due to a network...");
  assert.throws(() => checkJsonAnswer(request, 403, undefined), refused);
  assert.throws(() => checkJsonAnswer(request, 403, { message: "Forbidden", error: 403 }), (e: unknown) => e instanceof ApiError && /\(HTTP 403\)\./.test(e.message));
  assert.throws(() => answered(toRedditUserRequest("nobody"), "reddit", "error_404_not_found.json", 404), (e: unknown) => e instanceof ApiError && /Not Found \(HTTP 404\)/.test(e.message) && !e.retryable);
  // With an OAuth client a 401 means the token is to be renewed: the upstream client's, not the refusal's.
  assert.equal(redditRefusal(fixture("reddit", "error_401_unauthorized.json"), 401), undefined);
  assert.equal(redditRefusal(undefined, 429), undefined);
});

test("every Reddit recording fits its request's declared answer; a listing that moved a field the mapper reads is drift", () => {
  assert.doesNotThrow(() => listing("search_listing.json"));
  assert.doesNotThrow(() => answered(toRedditPostRequest("t3_14ynl0l"), "reddit", "by_id_t3_14ynl0l.json"));
  assert.doesNotThrow(() => answered(toRedditSearchRequest("profiles", "x", 25, null), "reddit", "search_users_listing.json"));
  assert.doesNotThrow(() => answered(toRedditUserRequest("Watchful1"), "reddit", "user_about.json"));
  assert.doesNotThrow(() => answered(toRedditUserRequest("PyAPITestUser3"), "reddit", "user_about_small_legacy.json"));
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^Reddit answered in a shape/.test(e.message);
  const request = toRedditSearchRequest("posts", "x", 10, null);
  assert.throws(() => checkJsonAnswer(request, 200, { kind: "t2", data: {} }), drift("/kind"));
  const body = fixture("reddit", "search_listing.json") as { data: { children: { data: Record<string, unknown> }[] } };
  body.data.children[4]!.data.headline = body.data.children[4]!.data.title;
  delete body.data.children[4]!.data.title;
  assert.throws(() => checkJsonAnswer(request, 200, body), drift("/data/children/4/data/title"));
  const retyped = fixture("reddit", "search_listing.json") as { data: { children: { data: Record<string, unknown> }[] } };
  retyped.data.children[0]!.data.num_comments = "24";
  assert.throws(() => checkJsonAnswer(request, 200, retyped), drift("/data/children/0/data/num_comments"));
  assert.throws(() => checkShape("reddit", toRedditUserRequest("x").response, { kind: "t2", data: { username: "x" } }), drift("/data/name"));
  // An HTML page with a 2xx status is not a refusal the hook can tell: the client answers it as drift (not JSON).
  assert.throws(() => checkJsonAnswer(request, 200, "<!doctype html><html><body>blocked</body></html>"), (e: unknown) => e instanceof ProviderDrift && e.pointer === "");
});

test("the forum source answers a 429 (after the client's retries) with Reddit's hint", async () => {
  const { ctx } = fakeContext(new ApiError("provider_error", "reddit failed: rate limited by the provider (429).", { retryAfter: 30 }));
  await assert.rejects(socialSearch.search(ctx, query({ platform: "forum" }), null), (e: unknown) => {
    assert.ok(e instanceof ApiError && e.code === "provider_error", "e instanceof ApiError && e.code === \"provider_error\"");
    assert.match(e.hint ?? "", /datacenter networks/);
    assert.equal(e.retryAfter, 30);
    return true;
  });
  const ok = fakeContext(() => response(200, fixture("reddit", "search_listing.json")));
  const page = await socialSearch.search(ok.ctx, query({ platform: "forum", num: 25 }), "t3_abc");
  assert.equal(ok.requests[0]?.query?.after, "t3_abc");
  assert.equal(page.next, "t3_155olnd");
  assert.equal(page.credits, 0);
});
