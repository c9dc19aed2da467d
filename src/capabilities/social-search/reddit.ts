/**
 * Reddit mappers for social.search `platform: forum` (pure, no I/O; keyless public JSON, free; with the
 * deployment's optional OAuth client the upstream client sends the same requests to oauth.reddit.com with an
 * application token, docs/providers.md):
 * - posts and profiles: `GET /search.json?q=&type=link|user&limit=&after=&raw_json=1`, a Listing of
 *   `t3` posts or `t2` accounts; `data.after` is the next page's token (null at the end);
 * - details: `GET /by_id/t3_{id}.json` (the post, engagement as of now) and `GET /user/{name}/about.json`.
 *
 * Reddit refuses many requests from datacenter networks (HTTP 403 with an HTML page, or 429): that
 * is `502 provider_error` with a hint saying so, never an empty page. Bodies are read as text and
 * parsed here, so an HTML refusal is recognised as such.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { arr, bool, clip, defined, httpUrl, int, type Obj, obj, str } from "../shared/read.ts";
import { isoTime, type SocialKind } from "./social-query.ts";

export const REDDIT = "https://www.reddit.com";

/** The hint of every Reddit refusal. */
export const REDDIT_REFUSAL_HINT =
  "Reddit refuses many requests from datacenter networks and limits unauthenticated clients to a few " +
  "requests a minute; nothing was charged. Retry later, or use `platform: microblog`.";

function redditRequest(path: string, query: Record<string, string | number>): UpstreamRequest {
  return { provider: "reddit", method: "GET", path, query: { ...query, raw_json: 1 }, responseType: "text", acceptStatus: [403, 404] };
}

export function toRedditSearchRequest(kind: SocialKind, q: string, num: number, after: string | null): UpstreamRequest {
  return redditRequest("/search.json", { q, type: kind === "posts" ? "link" : "user", limit: num, ...(after === null ? {} : { after }) });
}

export function toRedditPostRequest(fullname: string): UpstreamRequest {
  return redditRequest(`/by_id/${encodeURIComponent(fullname)}.json`, {});
}

export function toRedditUserRequest(name: string): UpstreamRequest {
  return redditRequest(`/user/${encodeURIComponent(name)}/about.json`, {});
}

/** A Reddit answer's JSON; provider_error for refusals (403, HTML) and other failures. */
export function readReddit(status: number, text: unknown): Obj {
  const body = typeof text === "string" ? text : "";
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  if (status === 403 || (parsed === undefined && /<html|<!doctype/i.test(body))) {
    throw new ApiError("provider_error", `Reddit refused the request (HTTP ${status}${parsed === undefined ? ", an HTML page" : ""}).`, { hint: REDDIT_REFUSAL_HINT });
  }
  const root = obj(parsed);
  if (root === undefined || status >= 400) {
    const words = str(root?.message) ?? str(root?.reason) ?? (parsed === undefined ? "not JSON" : `HTTP ${status}`);
    throw new ApiError("provider_error", `Reddit could not answer: ${words} (HTTP ${status}).`);
  }
  return root;
}

/** The things of a Listing (`data.children[].data` with their kind) and the next page's token. */
export function readListing(root: Obj): { things: { kind: string; data: Obj }[]; after: string | null } {
  const data = obj(root.data);
  const children = arr(data?.children);
  if (root.kind !== "Listing" || children === undefined) throw new ApiError("provider_error", "Reddit answered something other than a listing.");
  const things = children.flatMap((c) => {
    const child = obj(c);
    const thing = obj(child?.data);
    const kind = str(child?.kind);
    return thing === undefined || kind === undefined ? [] : [{ kind, data: thing }];
  });
  return { things, after: str(data?.after) ?? null };
}

function postUrl(post: Obj): string | undefined {
  const permalink = str(post.permalink);
  return permalink === undefined ? undefined : `${REDDIT}${permalink}`;
}

/** A post's summary keys: author, created_at; forum's subreddit, score, comments, link_url, subscribers. */
function postKeys(post: Obj): JsonObject {
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
function karmaOf(user: Obj): number | undefined {
  const total = int(user.total_karma);
  if (total !== undefined) return total;
  const link = int(user.link_karma);
  const comment = int(user.comment_karma);
  return link !== undefined && comment !== undefined ? link + comment : undefined;
}

/** A profile's keys; `followers` is the subscriber count of the user's profile (how Reddit counts followers). */
function profileKeys(user: Obj): JsonObject {
  const profile = obj(user.subreddit) ?? {};
  return defined({
    author: str(user.name),
    author_name: str(profile.title),
    created_at: isoTime(user.created_utc),
    followers: int(profile.subscribers),
    verified: bool(user.verified),
    karma: karmaOf(user),
  });
}

export function postRecord(post: Obj): RecordDraft | undefined {
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

export function userRecord(user: Obj): RecordDraft | undefined {
  const name = str(user.name);
  if (name === undefined) return undefined;
  const about = str(obj(user.subreddit)?.public_description);
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
export function redditPage(status: number, text: unknown, kind: SocialKind, num: number): { records: RecordDraft[]; next: string | null } {
  const { things, after } = readListing(readReddit(status, text));
  const wanted = kind === "posts" ? "t3" : "t2";
  const records: RecordDraft[] = [];
  for (const [i, t] of things.entries()) {
    if (t.kind !== wanted) continue;
    const record = kind === "posts" ? postRecord(t.data) : userRecord(t.data);
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
export function redditPostDetail(status: number, text: unknown, fullname: string): { detail: JsonObject; links: Link[] } {
  const post = readListing(readReddit(status, text)).things.find((t) => t.kind === "t3" && str(t.data.name) === fullname)?.data;
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
    upvote_ratio: typeof post.upvote_ratio === "number" ? post.upvote_ratio : undefined,
    flair: str(post.link_flair_text),
    over_18: bool(post.over_18),
    domain: str(post.domain),
  });
  const links: Link[] = [];
  if (url) links.push({ label: "Post on Reddit", url });
  if (typeof detail.link_url === "string") links.push({ label: "Linked page", url: detail.link_url });
  return { detail, links };
}

/** `details` of a profile: the account's `about`. */
export function redditUserDetail(status: number, text: unknown, name: string): { detail: JsonObject; links: Link[] } {
  const root = readReddit(status, text);
  const user = obj(root.data);
  if (root.kind !== "t2" || user === undefined) throw new ApiError("provider_error", `Reddit answered no account for u/${name}.`);
  const profile = obj(user.subreddit) ?? {};
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
    is_employee: bool(user.is_employee),
    is_mod: bool(user.is_mod),
  });
  return { detail, links: [{ label: "Profile on Reddit", url }] };
}
