/**
 * Reddit mappers for social.search `platform: forum` (pure, no I/O; keyless public JSON, free; with the
 * deployment's optional OAuth client the upstream client sends the same requests to oauth.reddit.com with an
 * application token, docs/providers.md):
 * - posts and profiles: `GET /search.json?q=&type=link|user&limit=&after=&raw_json=1`, a Listing of
 *   `t3` posts or `t2` accounts; `data.after` is the next page's token (null at the end);
 * - details: `GET /by_id/t3_{id}.json` (the post, engagement as of now) and `GET /user/{name}/about.json`.
 *
 * Each request declares the fields its mapper reads (a Listing of posts, of accounts, or one account):
 * a renamed or retyped one is `502 provider_error` naming it. Reddit refuses many requests from
 * datacenter networks (HTTP 403 with an HTML page, or 429): `redditRefusal` (every Reddit request's)
 * answers the 403 as `502 provider_error` with a hint saying so, never an empty page; an HTML page
 * with a 2xx status is drift (the client's). (These requests were read as text until issue 39, only
 * to recognise that HTML page; the refusal hook sees a 403's body whatever it is.)
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { clip, defined, httpUrl, int, obj, str } from "../shared/read.ts";
import { isoTime, type SocialKind } from "./social-query.ts";

export const REDDIT = "https://www.reddit.com";

/** The hint of every Reddit refusal. */
export const REDDIT_REFUSAL_HINT =
  "Reddit refuses many requests from datacenter networks and limits unauthenticated clients to a few " +
  "requests a minute; nothing was charged. Retry later, or use `platform: microblog`.";

/** A post (`t3`): its fullname and title are what a record cannot do without; the rest may be absent. */
export const redditPost = Type.Object({
  name: Type.String(),
  title: Type.String(),
  permalink: Type.Optional(Type.String()),
  selftext: Type.Optional(Type.String()),
  url: nullish(Type.String()),
  is_self: Type.Optional(Type.Boolean()),
  author: Type.Optional(Type.String()),
  created_utc: Type.Optional(Type.Number()),
  subreddit: Type.Optional(Type.String()),
  score: Type.Optional(Type.Number()),
  num_comments: Type.Optional(Type.Number()),
  subreddit_subscribers: Type.Optional(Type.Number()),
  upvote_ratio: Type.Optional(Type.Number()),
  link_flair_text: nullish(Type.String()),
  over_18: Type.Optional(Type.Boolean()),
  domain: Type.Optional(Type.String()),
});
export type RedditPost = Static<typeof redditPost>;

/** An account (`t2`): its name; older and suspended accounts leave out much of the rest. */
export const redditAccount = Type.Object({
  name: Type.String(),
  id: Type.Optional(Type.String()),
  created_utc: Type.Optional(Type.Number()),
  verified: Type.Optional(Type.Boolean()),
  total_karma: Type.Optional(Type.Number()),
  link_karma: Type.Optional(Type.Number()),
  comment_karma: Type.Optional(Type.Number()),
  icon_img: Type.Optional(Type.String()),
  is_employee: Type.Optional(Type.Boolean()),
  is_mod: Type.Optional(Type.Boolean()),
  // The account's profile (a user subreddit): null for accounts without one.
  subreddit: nullish(
    Type.Object({ title: Type.Optional(Type.String()), subscribers: Type.Optional(Type.Number()), public_description: Type.Optional(Type.String()) }),
  ),
});
export type RedditAccount = Static<typeof redditAccount>;

/** A Listing of things of one shape (posts or accounts) and the next page's token. */
function listingOf<T extends TSchema>(thing: T) {
  return Type.Object({
    kind: Type.Literal("Listing"),
    data: Type.Object({ after: nullish(Type.String()), children: Type.Array(Type.Object({ kind: Type.String(), data: thing })) }),
  });
}
export const redditPostListing = listingOf(redditPost);
export const redditAccountListing = listingOf(redditAccount);
/** `/user/{name}/about.json`: one account. */
export const redditAbout = Type.Object({ kind: Type.String(), data: redditAccount });

export type RedditPostListing = Static<typeof redditPostListing>;
export type RedditAccountListing = Static<typeof redditAccountListing>;
export type RedditAbout = Static<typeof redditAbout>;

/**
 * Reddit's own refusals, whatever the body (an HTML page is passed here as undefined): 403 (the
 * "blocked due to a network policy" page datacenter networks get) and other 4xx `{message, error}`
 * answers. A 401 is left to the upstream client (with an OAuth client it renews the token); a 429 is
 * the client's rate limit.
 */
export function redditRefusal(body: unknown, status: number): ApiError | undefined {
  if ((status >= 200 && status < 300) || status === 401 || status === 429) return undefined;
  const root = obj(body);
  if (status === 403) {
    return new ApiError("provider_error", `Reddit refused the request (HTTP 403${root === undefined ? ", an HTML page" : ""}).`, { hint: REDDIT_REFUSAL_HINT });
  }
  if (status < 400 || status >= 500) return undefined;
  const words = str(root?.message) ?? str(root?.reason) ?? (root === undefined ? "not JSON" : `HTTP ${status}`);
  return new ApiError("provider_error", `Reddit could not answer: ${words} (HTTP ${status}).`, {
    retryable: false,
    hint: "Reddit refused this request; nothing was charged. The same request is likely to be refused again: change it.",
  });
}

function redditRequest<S extends TSchema>(path: string, query: Record<string, string | number>, response: S): JsonRequest<S> {
  return { provider: "reddit", method: "GET", path, query: { ...query, raw_json: 1 }, refusal: redditRefusal, response };
}

export function toRedditSearchRequest(kind: SocialKind, q: string, num: number, after: string | null): JsonRequest<typeof redditPostListing | typeof redditAccountListing> {
  return redditRequest("/search.json", { q, type: kind === "posts" ? "link" : "user", limit: num, ...(after === null ? {} : { after }) }, kind === "posts" ? redditPostListing : redditAccountListing);
}

export function toRedditPostRequest(fullname: string): JsonRequest<typeof redditPostListing> {
  return redditRequest(`/by_id/${encodeURIComponent(fullname)}.json`, {}, redditPostListing);
}

export function toRedditUserRequest(name: string): JsonRequest<typeof redditAbout> {
  return redditRequest(`/user/${encodeURIComponent(name)}/about.json`, {}, redditAbout);
}

function postUrl(post: RedditPost): string | undefined {
  const permalink = str(post.permalink);
  return permalink === undefined ? undefined : `${REDDIT}${permalink}`;
}

/** A post's summary keys: author, created_at; forum's subreddit, score, comments, link_url, subscribers. */
function postKeys(post: RedditPost): JsonObject {
  const link = httpUrl(post.url);
  const own = post.is_self === true || (link !== undefined && link === postUrl(post));
  return defined({
    author: str(post.author),
    created_at: isoTime(post.created_utc),
    subreddit: str(post.subreddit),
    score: int(post.score),
    comments: int(post.num_comments),
    link_url: own ? undefined : link,
    subscribers: int(post.subreddit_subscribers),
  });
}

/** An account's karma: `total_karma`, or link plus comment karma where an older answer has no total. */
function karmaOf(user: RedditAccount): number | undefined {
  const total = int(user.total_karma);
  if (total !== undefined) return total;
  const link = int(user.link_karma);
  const comment = int(user.comment_karma);
  return link !== undefined && comment !== undefined ? link + comment : undefined;
}

/** A profile's keys; `followers` is the subscriber count of the user's profile (how Reddit counts followers). */
function profileKeys(user: RedditAccount): JsonObject {
  const profile = user.subreddit ?? {};
  return defined({
    author: str(user.name),
    author_name: str(profile.title),
    created_at: isoTime(user.created_utc),
    followers: int(profile.subscribers),
    verified: user.verified,
    karma: karmaOf(user),
  });
}

export function postRecord(post: RedditPost): RecordDraft | undefined {
  const name = str(post.name);
  const title = str(post.title);
  if (name === undefined || title === undefined) return undefined;
  const url = postUrl(post);
  const text = str(post.selftext);
  return {
    summary: { title, ...(url ? { url } : {}), ...(text ? { snippet: clip(text, 300) } : {}), platform: "forum", kind: "post", ...postKeys(post) },
    ref: { kind: "post", name },
  };
}

export function userRecord(user: RedditAccount): RecordDraft | undefined {
  const name = str(user.name);
  if (name === undefined) return undefined;
  const about = str(user.subreddit?.public_description);
  return {
    summary: {
      title: `u/${name}`,
      url: `${REDDIT}/user/${encodeURIComponent(name)}/`,
      ...(about ? { snippet: clip(about, 300) } : {}),
      platform: "forum",
      kind: "profile",
      ...profileKeys(user),
    },
    ref: { kind: "profile", name },
  };
}

/**
 * A search page of at most `num` posts (`t3`) or profiles (`t2`), and the next token. Reddit may list
 * more than the `limit` asked; the page keeps `num` and continues after the last one kept (its
 * fullname is the token Reddit's `after` takes).
 */
export function redditPage(body: RedditPostListing | RedditAccountListing, kind: SocialKind, num: number): { records: RecordDraft[]; next: string | null } {
  const things: { kind: string; data: RedditPost | RedditAccount }[] = body.data.children;
  const after = str(body.data.after) ?? null;
  const wanted = kind === "posts" ? "t3" : "t2";
  const records: RecordDraft[] = [];
  for (const [i, t] of things.entries()) {
    if (t.kind !== wanted) continue;
    const record = kind === "posts" ? postRecord(t.data as RedditPost) : userRecord(t.data as RedditAccount);
    if (record === undefined) continue;
    if (records.length === num) {
      const last = things.slice(0, i).findLast((k) => k.kind === wanted && str(k.data.name) !== undefined);
      return { records, next: str(last?.data.name) ?? after };
    }
    records.push(record);
  }
  return { records, next: after };
}

/** `details` of a post: the full post with its engagement now. */
export function redditPostDetail(body: RedditPostListing, fullname: string): { detail: JsonObject; links: Link[] } {
  const post = body.data.children.find((t) => t.kind === "t3" && t.data.name === fullname)?.data;
  if (post === undefined) throw new ApiError("provider_error", `Reddit no longer has post ${fullname} (removed or private).`);
  const url = postUrl(post);
  const detail = defined({
    platform: "forum",
    kind: "post",
    id: fullname,
    title: str(post.title),
    url,
    text: str(post.selftext),
    ...postKeys(post),
    upvote_ratio: post.upvote_ratio,
    flair: str(post.link_flair_text),
    over_18: post.over_18,
    domain: str(post.domain),
  });
  const links: Link[] = [];
  if (url) links.push({ label: "Post on Reddit", url });
  if (typeof detail.link_url === "string") links.push({ label: "Linked page", url: detail.link_url });
  return { detail, links };
}

/** `details` of a profile: the account's `about`. */
export function redditUserDetail(body: RedditAbout, name: string): { detail: JsonObject; links: Link[] } {
  if (body.kind !== "t2") throw new ApiError("provider_error", `Reddit answered no account for u/${name}.`);
  const user = body.data;
  const profile = user.subreddit ?? {};
  const url = `${REDDIT}/user/${encodeURIComponent(name)}/`;
  const detail = defined({
    platform: "forum",
    kind: "profile",
    id: str(user.id),
    url,
    ...profileKeys(user),
    description: str(profile.public_description),
    link_karma: int(user.link_karma),
    comment_karma: int(user.comment_karma),
    icon: httpUrl(user.icon_img),
    is_employee: user.is_employee,
    is_mod: user.is_mod,
  });
  return { detail, links: [{ label: "Profile on Reddit", url }] };
}

/** The live check's probe: a one-post search (free; keyless, or through the OAuth client when one is configured). */
export const redditProbe: ProviderProbe = {
  provider: "reddit",
  what: "a one-post search (free)",
  request: toRedditSearchRequest("posts", "reddit", 1, null),
};
