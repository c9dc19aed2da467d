/**
 * twitterapi.io mappers for social.search `platform: microblog` (pure, no I/O; the key goes in the
 * `X-API-Key` header, added by the upstream client):
 * - posts: `GET /twitter/tweet/advanced_search?query=&queryType=Top&cursor=` → `{tweets[], has_next_page, next_cursor}`;
 * - profiles: `GET /twitter/user/search?query=&cursor=` → `{users[], has_next_page, next_cursor}`;
 * - details: `GET /twitter/tweets?tweet_ids=` (`{tweets[]}`) and `GET /twitter/user/info?userName=` (`{data}`).
 *
 * twitterapi.io pages hold about 20 items and take no page size, while `num` asks for 1-25: a slice
 * takes `num` items from as many provider pages as needed (at most three requests) with the
 * framework's `collectPages`, whose cursor `{page, skip}` remembers the provider page it stopped in and
 * how many of its items were already returned, so `more` continues exactly there (that page is asked again).
 *
 * Each request declares the fields its mapper reads (a renamed or retyped one is `502 provider_error`
 * naming it). Errors (https://docs.twitterapi.io/errors), read by `twitterApiRefusal` before the schema:
 * `{status: "error", msg}` (also with HTTP 200: "user not found"), HTTP 400 `{detail}` (a parameter),
 * 401, 402 and 403 (the key, the credits: about this deployment's account, whose words go to the log
 * only); 429 (more requests a second than the account allows) is the upstream client's rate limit.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft } from "../types.ts";
import { clip, defined, httpUrl, int, obj, str, strings } from "../shared/read.ts";
import { isoTime, type SocialKind } from "./social-query.ts";

/** Provider requests one slice may make. */
export const MAX_FETCHES = 3;

/** The profile fields the mappers read (all may be absent; an account is named by `userName`). */
const profileFields = {
  id: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.String()),
  followers: Type.Optional(Type.Number()),
  following: Type.Optional(Type.Number()),
  statusesCount: Type.Optional(Type.Number()),
  isBlueVerified: Type.Optional(Type.Boolean()),
  location: Type.Optional(Type.String()),
  verifiedType: nullish(Type.String()),
  favouritesCount: Type.Optional(Type.Number()),
  mediaCount: Type.Optional(Type.Number()),
  profilePicture: Type.Optional(Type.String()),
  coverPicture: Type.Optional(Type.String()),
  pinnedTweetIds: Type.Optional(Type.Array(Type.String())),
  isAutomated: Type.Optional(Type.Boolean()),
  unavailable: Type.Optional(Type.Boolean()),
  unavailableReason: nullish(Type.String()),
};

/** An account as searches list it: its handle is what a record cannot do without. */
export const twitterUser = Type.Object({ userName: Type.String(), ...profileFields });
export type TwitterUser = Static<typeof twitterUser>;

/** A post: its id and text are what a record cannot do without. */
export const twitterTweet = Type.Object({
  id: Type.String(),
  text: Type.String(),
  url: Type.Optional(Type.String()),
  twitterUrl: Type.Optional(Type.String()),
  createdAt: Type.Optional(Type.String()),
  likeCount: Type.Optional(Type.Number()),
  retweetCount: Type.Optional(Type.Number()),
  replyCount: Type.Optional(Type.Number()),
  viewCount: Type.Optional(Type.Number()),
  quoteCount: Type.Optional(Type.Number()),
  bookmarkCount: Type.Optional(Type.Number()),
  lang: Type.Optional(Type.String()),
  isReply: Type.Optional(Type.Boolean()),
  inReplyToId: nullish(Type.String()),
  inReplyToUsername: nullish(Type.String()),
  conversationId: nullish(Type.String()),
  author: Type.Optional(twitterUser),
  entities: Type.Optional(
    Type.Object({
      hashtags: Type.Optional(Type.Array(Type.Object({ text: nullish(Type.String()) }))),
      urls: Type.Optional(Type.Array(Type.Object({ expanded_url: nullish(Type.String()) }))),
      user_mentions: Type.Optional(Type.Array(Type.Object({ screen_name: nullish(Type.String()) }))),
    }),
  ),
});
export type TwitterTweet = Static<typeof twitterTweet>;

const paging = { has_next_page: Type.Optional(Type.Boolean()), next_cursor: nullish(Type.String()) };
/** `GET /twitter/tweet/advanced_search`: a page of posts. */
export const twitterTweetPage = Type.Object({ tweets: Type.Array(twitterTweet), ...paging });
/** `GET /twitter/user/search`: a page of accounts. */
export const twitterUserPage = Type.Object({ users: Type.Array(twitterUser), ...paging });
/** `GET /twitter/tweets?tweet_ids=`: the posts found (none for a deleted or protected one). */
export const twitterTweets = Type.Object({ tweets: Type.Array(twitterTweet) });
/** `GET /twitter/user/info`: the account (`unavailable`, with a reason, for a suspended one, which may lack the rest). */
export const twitterUserInfo = Type.Object({ data: Type.Object({ userName: Type.Optional(Type.String()), ...profileFields }) });

export type TwitterTweetPage = Static<typeof twitterTweetPage>;
export type TwitterUserPage = Static<typeof twitterUserPage>;
export type TwitterTweets = Static<typeof twitterTweets>;
export type TwitterUserInfo = Static<typeof twitterUserInfo>;

/**
 * twitterapi.io's own non-answers, whatever the status: `{status: "error", msg}`; 401, 402 and 403
 * (the deployment's key or credits: the caller is told only that the account was refused, the
 * provider's words go to the log as the cause); a 400 with the provider's words (`detail`, `msg`,
 * `message`). Undefined for an answer, and for other statuses (the upstream client's errors).
 */
export function twitterApiRefusal(body: unknown, status: number): ApiError | undefined {
  const root = obj(body);
  const words = str(root?.msg) ?? str(root?.message) ?? str(root?.detail) ?? str(root?.error);
  if (status === 401 || status === 402 || status === 403) {
    return new ApiError("provider_error", "twitterapi.io refused this deployment's account (its key or credits); nothing was charged.", {
      retryable: false,
      hint: "Retrying will not help until the operator fixes the deployment's twitterapi.io account (TWITTERAPI_API_KEY, its credits); the cause is in its log.",
      cause: new Error(`twitterapi.io (HTTP ${status}): ${words ?? "no message"}`),
    });
  }
  const ok = status >= 200 && status < 300;
  if (root?.status === "error" || status === 400) {
    return new ApiError("provider_error", `twitterapi.io could not answer: ${words ?? `HTTP ${status}`}.`, {
      retryable: false,
      hint: ok ? "twitterapi.io found nothing for this request; nothing was charged." : "twitterapi.io refused this request; nothing was charged. The same request is likely to be refused again.",
    });
  }
  return undefined;
}

function twitterRequest<S extends TSchema>(path: string, query: Record<string, string>, response: S): JsonRequest<S> {
  return { provider: "twitterapi", method: "GET", path, query, refusal: twitterApiRefusal, response };
}

export function toTwitterSearchRequest(kind: SocialKind, query: string, cursor: string | null): JsonRequest<typeof twitterTweetPage | typeof twitterUserPage> {
  const params = { query, ...(kind === "posts" ? { queryType: "Top" } : {}), ...(cursor === null ? {} : { cursor }) };
  return kind === "posts" ? twitterRequest("/twitter/tweet/advanced_search", params, twitterTweetPage) : twitterRequest("/twitter/user/search", params, twitterUserPage);
}

export function toTweetRequest(id: string): JsonRequest<typeof twitterTweets> {
  return twitterRequest("/twitter/tweets", { tweet_ids: id }, twitterTweets);
}

export function toUserInfoRequest(userName: string): JsonRequest<typeof twitterUserInfo> {
  return twitterRequest("/twitter/user/info", { userName }, twitterUserInfo);
}

/** One provider page: its items and where the next one starts. */
export interface TwitterPage {
  items: (TwitterTweet | TwitterUser)[];
  next: string | null;
}

export function parseTwitterSearch(body: TwitterTweetPage | TwitterUserPage): TwitterPage {
  const items = "tweets" in body ? body.tweets : body.users;
  const next = body.has_next_page === true ? (str(body.next_cursor) ?? null) : null;
  return { items, next };
}

type Profile = Static<typeof twitterUserInfo>["data"];

function profileUrl(user: Profile): string | undefined {
  const name = str(user.userName);
  return httpUrl(user.url) ?? (name === undefined ? undefined : `https://x.com/${name}`);
}

/** A post's summary keys (spec 4.6: author, author_name, created_at, likes, reposts, replies, views). */
function postKeys(tweet: TwitterTweet): JsonObject {
  return defined({
    author: str(tweet.author?.userName),
    author_name: str(tweet.author?.name),
    created_at: isoTime(tweet.createdAt),
    likes: int(tweet.likeCount),
    reposts: int(tweet.retweetCount),
    replies: int(tweet.replyCount),
    views: int(tweet.viewCount),
  });
}

/** A profile's summary keys (followers, following, posts, verified, location). */
function profileKeys(user: Profile): JsonObject {
  return defined({
    author: str(user.userName),
    author_name: str(user.name),
    created_at: isoTime(user.createdAt),
    followers: int(user.followers),
    following: int(user.following),
    posts: int(user.statusesCount),
    verified: user.isBlueVerified,
    location: str(user.location),
  });
}

export function tweetRecord(tweet: TwitterTweet): RecordDraft | undefined {
  const id = str(tweet.id);
  const text = str(tweet.text);
  if (id === undefined || text === undefined) return undefined;
  const author = str(tweet.author?.userName);
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

export function userRecord(user: TwitterUser): RecordDraft | undefined {
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
export function twitterRecords(items: readonly (TwitterTweet | TwitterUser)[], kind: SocialKind): RecordDraft[] {
  return items.map((item) => (kind === "posts" ? tweetRecord(item as TwitterTweet) : userRecord(item as TwitterUser))).filter((r) => r !== undefined);
}

const entityTexts = <K extends string>(list: readonly Partial<Record<K, string | null>>[] | undefined, key: K) => strings((list ?? []).map((e) => e[key]));

/** `details` of a post: the full post with its engagement, from `GET /twitter/tweets`. */
export function tweetDetail(body: TwitterTweets, id: string): { detail: JsonObject; links: Link[] } {
  const tweet = body.tweets.find((t) => t.id === id);
  if (tweet === undefined) throw new ApiError("provider_error", `twitterapi.io no longer has post ${id} (deleted or protected).`);
  const record = tweetRecord(tweet);
  const entities = tweet.entities ?? {};
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
    is_reply: tweet.isReply,
    in_reply_to_id: str(tweet.inReplyToId),
    in_reply_to_user: str(tweet.inReplyToUsername),
    conversation_id: str(tweet.conversationId),
    hashtags: entityTexts(entities.hashtags, "text"),
    urls: entityTexts(entities.urls, "expanded_url"),
    mentions: entityTexts(entities.user_mentions, "screen_name"),
    author_profile: tweet.author === undefined ? undefined : profileKeys(tweet.author),
  });
  const url = record?.summary.url;
  return { detail, links: typeof url === "string" ? [{ label: "Post", url }] : [] };
}

/** `details` of a profile: the profile from `GET /twitter/user/info`. */
export function userDetail(body: TwitterUserInfo, userName: string): { detail: JsonObject; links: Link[] } {
  const user = body.data;
  if (user.unavailable === true) {
    const reason = str(user.unavailableReason);
    throw new ApiError("provider_error", `twitterapi.io has no profile @${userName}${reason === undefined ? "" : ` (${reason})`}.`);
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
    automated: user.isAutomated,
  });
  return { detail, links: url ? [{ label: "Profile", url }] : [] };
}

/**
 * The live check's probe: one account by handle (twitterapi.io bills every request, at least $0.00015;
 * a profile is its cheapest answer).
 */
export const twitterApiProbe: ProviderProbe = {
  provider: "twitterapi",
  what: "one profile by handle (about $0.00018)",
  request: toUserInfoRequest("XDevelopers"),
};
