/**
 * twitterapi.io mappers for social.search `platform: microblog` (pure, no I/O; the key goes in the
 * `X-API-Key` header, added by the upstream client):
 * - posts: `GET /twitter/tweet/advanced_search?query=&queryType=Top&cursor=` → `{tweets[], has_next_page, next_cursor}`;
 * - profiles: `GET /twitter/user/search?query=&cursor=` → `{users[], has_next_page, next_cursor}`;
 * - details: `GET /twitter/tweets?tweet_ids=` (`{tweets[]}`) and `GET /twitter/user/info?userName=` (`{data}`).
 *
 * twitterapi.io pages hold about 20 items and take no page size, while `num` asks for 1-25: a slice
 * takes `num` items from as many provider pages as needed (at most three requests), and the cursor
 * `{cursor, skip}` remembers the provider page it stopped in and how many of its items were already
 * returned, so `more` continues exactly there (that page is asked again). Errors come as HTTP 400
 * `{status: "error", msg}` (or `message`): provider_error with the provider's words.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";
import { arr, bool, clip, defined, httpUrl, int, type Obj, obj, str, strings } from "../shared/read.ts";
import { isoTime, type SocialKind } from "./social-query.ts";

/** Provider requests one slice may make. */
export const MAX_FETCHES = 3;

/** Where a microblog slice resumes: the provider cursor of a page (null: the first) and items of it already returned. */
export interface MicroblogCursor {
  cursor: string | null;
  skip: number;
}

export function parseMicroblogCursor(value: JsonValue): MicroblogCursor {
  const o = obj(value);
  const skip = int(o?.skip);
  return { cursor: str(o?.cursor) ?? null, skip: skip !== undefined && skip > 0 ? skip : 0 };
}

export function toTwitterSearchRequest(kind: SocialKind, query: string, cursor: string | null): UpstreamRequest {
  const path = kind === "posts" ? "/twitter/tweet/advanced_search" : "/twitter/user/search";
  return {
    provider: "twitterapi",
    method: "GET",
    path,
    query: { query, ...(kind === "posts" ? { queryType: "Top" } : {}), ...(cursor === null ? {} : { cursor }) },
    acceptStatus: [400],
  };
}

export function toTweetRequest(id: string): UpstreamRequest {
  return { provider: "twitterapi", method: "GET", path: "/twitter/tweets", query: { tweet_ids: id }, acceptStatus: [400] };
}

export function toUserInfoRequest(userName: string): UpstreamRequest {
  return { provider: "twitterapi", method: "GET", path: "/twitter/user/info", query: { userName }, acceptStatus: [400] };
}

/** The body's root, or provider_error for twitterapi.io's error answers. */
function readTwitterApi(status: number, body: unknown): Obj {
  const root = obj(body);
  if (root === undefined || status >= 400 || root.status === "error") {
    const words = str(root?.msg) ?? str(root?.message) ?? `HTTP ${status}`;
    throw new ApiError("provider_error", `twitterapi.io could not answer: ${words}.`);
  }
  return root;
}

/** One provider page: its items and where the next one starts. */
export interface TwitterPage {
  items: Obj[];
  next: string | null;
}

export function parseTwitterSearch(status: number, body: unknown, kind: SocialKind): TwitterPage {
  const root = readTwitterApi(status, body);
  const list = arr(root[kind === "posts" ? "tweets" : "users"]);
  if (list === undefined) throw new ApiError("provider_error", `twitterapi.io answered without a ${kind === "posts" ? "tweets" : "users"} list.`);
  const items = list.map(obj).filter((o): o is Obj => o !== undefined);
  const next = root.has_next_page === true ? (str(root.next_cursor) ?? null) : null;
  return { items, next };
}

function profileUrl(user: Obj): string | undefined {
  const name = str(user.userName);
  return httpUrl(user.url) ?? (name === undefined ? undefined : `https://x.com/${name}`);
}

/** A post's summary keys (spec 4.6: author, author_name, created_at, likes, reposts, replies, views). */
function postKeys(tweet: Obj): JsonObject {
  const author = obj(tweet.author) ?? {};
  return defined({
    author: str(author.userName),
    author_name: str(author.name),
    created_at: isoTime(tweet.createdAt),
    likes: int(tweet.likeCount),
    reposts: int(tweet.retweetCount),
    replies: int(tweet.replyCount),
    views: int(tweet.viewCount),
  });
}

/** A profile's summary keys (followers, following, posts, verified, location). */
function profileKeys(user: Obj): JsonObject {
  return defined({
    author: str(user.userName),
    author_name: str(user.name),
    created_at: isoTime(user.createdAt),
    followers: int(user.followers),
    following: int(user.following),
    posts: int(user.statusesCount),
    verified: bool(user.isBlueVerified),
    location: str(user.location),
  });
}

export function tweetRecord(tweet: Obj): RecordDraft | undefined {
  const id = str(tweet.id);
  const text = str(tweet.text);
  if (id === undefined || text === undefined) return undefined;
  const author = str(obj(tweet.author)?.userName);
  const url = httpUrl(tweet.url) ?? httpUrl(tweet.twitterUrl) ?? (author === undefined ? undefined : `https://x.com/${author}/status/${id}`);
  return {
    summary: {
      title: clip(text, 120),
      ...(url ? { url } : {}),
      snippet: clip(text, 300),
      platform: "microblog",
      kind: "post",
      ...postKeys(tweet),
    },
    ref: { kind: "post", id },
  };
}

export function userRecord(user: Obj): RecordDraft | undefined {
  const userName = str(user.userName);
  if (userName === undefined) return undefined;
  const name = str(user.name);
  const url = profileUrl(user);
  const description = str(user.description);
  return {
    summary: {
      title: name === undefined ? `@${userName}` : `${name} (@${userName})`,
      ...(url ? { url } : {}),
      ...(description ? { snippet: clip(description, 300) } : {}),
      platform: "microblog",
      kind: "profile",
      ...profileKeys(user),
    },
    ref: { kind: "profile", userName },
  };
}

/** The records of a provider page's items. */
export function twitterRecords(items: readonly Obj[], kind: SocialKind): RecordDraft[] {
  return items.map((item) => (kind === "posts" ? tweetRecord(item) : userRecord(item))).filter((r) => r !== undefined);
}

const entityTexts = (list: unknown, key: string) => strings((arr(list) ?? []).map((e) => obj(e)?.[key]));

/** `details` of a post: the full post with its engagement, from `GET /twitter/tweets`. */
export function tweetDetail(status: number, body: unknown, id: string): { detail: JsonObject; links: Link[] } {
  const tweets = arr(readTwitterApi(status, body).tweets) ?? [];
  const tweet = tweets.map(obj).find((t) => t !== undefined && str(t.id) === id);
  if (tweet === undefined) throw new ApiError("provider_error", `twitterapi.io no longer has post ${id} (deleted or protected).`);
  const record = tweetRecord(tweet);
  const author = obj(tweet.author) ?? {};
  const entities = obj(tweet.entities) ?? {};
  const detail = defined({
    platform: "microblog",
    kind: "post",
    id,
    url: record?.summary.url,
    text: str(tweet.text),
    lang: str(tweet.lang),
    ...postKeys(tweet),
    quotes: int(tweet.quoteCount),
    bookmarks: int(tweet.bookmarkCount),
    is_reply: bool(tweet.isReply),
    in_reply_to_id: str(tweet.inReplyToId),
    in_reply_to_user: str(tweet.inReplyToUsername),
    conversation_id: str(tweet.conversationId),
    hashtags: entityTexts(entities.hashtags, "text"),
    urls: entityTexts(entities.urls, "expanded_url"),
    mentions: entityTexts(entities.user_mentions, "screen_name"),
    author_profile: Object.keys(author).length > 0 ? profileKeys(author) : undefined,
  });
  const url = record?.summary.url;
  return { detail, links: typeof url === "string" ? [{ label: "Post", url }] : [] };
}

/** `details` of a profile: the profile from `GET /twitter/user/info`. */
export function userDetail(status: number, body: unknown, userName: string): { detail: JsonObject; links: Link[] } {
  const user = obj(readTwitterApi(status, body).data);
  if (user === undefined || user.unavailable === true) {
    throw new ApiError("provider_error", `twitterapi.io has no profile @${userName}${str(user?.unavailableReason) ? ` (${str(user?.unavailableReason)})` : ""}.`);
  }
  const url = profileUrl(user);
  const detail = defined({
    platform: "microblog",
    kind: "profile",
    id: str(user.id),
    url,
    description: str(user.description),
    ...profileKeys(user),
    verified_type: str(user.verifiedType),
    likes_given: int(user.favouritesCount),
    media: int(user.mediaCount),
    picture: httpUrl(user.profilePicture),
    cover: httpUrl(user.coverPicture),
    pinned_posts: strings(user.pinnedTweetIds),
    automated: bool(user.isAutomated),
  });
  return { detail, links: url ? [{ label: "Profile", url }] : [] };
}
