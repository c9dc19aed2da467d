/**
 * social.search (spec 4.6): posts or profiles from a microblog (twitterapi.io, `TWITTERAPI_API_KEY`,
 * $0.00015 per post returned) or a forum (Reddit, keyless, free), chosen by `platform`. Token paging;
 * `update` re-runs with merged params; `details` is fetched on the first call and cached (microblog
 * billed per post, forum free). Without `TWITTERAPI_API_KEY` only `platform: microblog` is
 * unavailable (503 naming the variable); the forum keeps working.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError, invalidRequest } from "../../errors.ts";
import { faultOf } from "../../upstream/faults.ts";
import { free } from "../framework/costs.ts";
import { collectPages } from "../framework/cursors.ts";
import { defineCapability, type RecordView } from "../framework/define.ts";
import type { CapabilityContext, JsonValue, SourcePage } from "../types.ts";
import {
  redditPage,
  redditPostDetail,
  redditUserDetail,
  REDDIT_REFUSAL_HINT,
  toRedditPostRequest,
  toRedditSearchRequest,
  toRedditUserRequest,
} from "./reddit.ts";
import { PLATFORMS } from "./social-query.ts";
import {
  MAX_FETCHES,
  parseTwitterSearch,
  toTweetRequest,
  toTwitterSearchRequest,
  toUserInfoRequest,
  tweetDetail,
  twitterRecords,
  userDetail,
} from "./twitterapi.ts";
import { MINUTE } from "../framework/durations.ts";
import { type SocialSearchQuery, socialSearchSchema } from "./schema.ts";

export { type SocialSearchQuery, socialSearchSchema } from "./schema.ts";

/** USD per microblog post (or profile) returned, and per microblog detail. */
export const MICROBLOG_ITEM_USD = 0.00015;

/** A microblog slice: `num` items from up to MAX_FETCHES provider pages (twitterapi.ts, header). */
async function microblogSlice(ctx: CapabilityContext<unknown>, query: SocialSearchQuery, cursor: JsonValue): Promise<SourcePage> {
  const got = await collectPages({
    cursor,
    want: query.num,
    maxRequests: MAX_FETCHES,
    fetch: async (at) => {
      const response = await ctx.upstream.send(toTwitterSearchRequest(query.kind, query.query, typeof at === "string" ? at : null), ctx.signal);
      const page = parseTwitterSearch(response.body);
      return { items: twitterRecords(page.items, query.kind), next: page.next };
    },
  });
  return { records: got.items, next: got.next };
}

/**
 * Reddit's own refusals keep their hint; its rate limit (a 429 the client reports) gains Reddit's,
 * with the wait when one is known (Reddit sends `x-ratelimit-reset`, not `Retry-After`, so the client
 * usually knows none). The client's own pacing refusal keeps its hint (the rate it keeps to).
 */
async function fromReddit<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    const limited = faultOf(error) === "rate_limited" || (error instanceof ApiError && /429|rate limit/i.test(error.message));
    if (error instanceof ApiError && error.code === "provider_error" && error.hint !== REDDIT_REFUSAL_HINT && limited) {
      throw new ApiError("provider_error", error.message, {
        hint: `${REDDIT_REFUSAL_HINT}${error.retryAfter === undefined ? "" : ` Reddit's wait: about ${error.retryAfter} s.`}`,
        cause: error,
        ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      });
    }
    throw error;
  }
}

const NO_STORED_ID = "This record carries no stored post or profile id, so details cannot be fetched.";
const storedId = Type.Optional(Type.String({ minLength: 1 }));
/** What `details` needs: whether the record is a post or a profile, and its platform's id (microblog `id` or `userName`, forum `name`). */
const socialRef = Type.Object({ kind: Type.Union([Type.Literal("post"), Type.Literal("profile")]), id: storedId, userName: storedId, name: storedId });

/** The stored id of the platform's kind a record action needs; `invalidRequest` at `/record_id` when the record has none. */
function refOf(record: RecordView<SocialSearchQuery, Static<typeof socialRef>>, key: "id" | "userName" | "name"): { kind: "post" | "profile"; value: string } {
  const value = record.ref[key];
  if (value === undefined) throw invalidRequest([{ path: "/record_id", message: NO_STORED_ID }]);
  return { kind: record.ref.kind, value };
}

const count = (description: string) => Type.Optional(Type.Integer({ minimum: 0, description }));

export const socialSearch = defineCapability({
  id: "social.search",
  title: "Social posts and profiles",
  summary: "Public posts or profiles from a microblog or a discussion forum, with engagement counts.",
  description:
    "Searches `platform: microblog` (twitterapi.io; needs TWITTERAPI_API_KEY in the deployment) or `platform: " +
    "forum` (Reddit's public search) for `kind: posts` (default) or `profiles`. Records carry " +
    "`platform` and `kind` (`post` or `profile`) always, and when the source has them `author` (handle), " +
    "`author_name`, `created_at` (ISO 8601), `likes`, `reposts`, `replies`, `views`; profiles `followers`, " +
    "`following`, `posts`, `verified`, `location`; forum records `subreddit`, `score`, `comments`, " +
    "`link_url` (the page a link post points to), `subscribers` (the community's) and `karma` (profiles). " +
    "Token paging: `more` continues where the last page stopped. `update` re-runs with merged params " +
    "(billed like a search). `details` fetches the full post with engagement now, or the profile, on the " +
    "first call and caches it. Reddit refuses many requests " +
    "from datacenter networks; that is 502 provider_error with a hint, never an empty page.",
  topic: "media and entertainment",
  schema: socialSearchSchema,
  recordKeys: Type.Object({
    platform: Type.String({ enum: [...PLATFORMS] }),
    kind: Type.String({ enum: ["post", "profile"] }),
    author: Type.Optional(Type.String({ description: "The author's handle (posts) or the account's (profiles)." })),
    author_name: Type.Optional(Type.String({ description: "Display name." })),
    created_at: Type.Optional(Type.String({ description: "When posted or when the account was created, ISO 8601." })),
    likes: count("Likes (microblog)."),
    reposts: count("Reposts (microblog)."),
    replies: count("Replies (microblog)."),
    views: count("Views (microblog)."),
    followers: count("Profiles: followers."),
    following: count("Profiles: accounts followed (microblog)."),
    posts: count("Profiles: posts written (microblog)."),
    verified: Type.Optional(Type.Boolean({ description: "Profiles: the platform's verification mark." })),
    location: Type.Optional(Type.String({ description: "Profiles: location as the account states it (microblog)." })),
    subreddit: Type.Optional(Type.String({ description: "Forum posts: the community." })),
    score: Type.Optional(Type.Integer({ description: "Forum posts: net votes." })),
    comments: count("Forum posts: comments."),
    link_url: Type.Optional(Type.String({ description: "Forum link posts: the page linked." })),
    subscribers: count("Forum posts: members of the community."),
    karma: Type.Optional(Type.Integer({ description: "Forum profiles: karma." })),
  }),
  paging: "token",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: 5 * MINUTE,
  cost: {
    perItem: MICROBLOG_ITEM_USD,
    maxItems: (q) => q.num,
    basis:
      "microblog: $0.00015 per post or profile returned (twitterapi.io's price per post), credits rounded up " +
      "per call (10 posts = 2 credits), `num` posts reserved; `details` 1 credit on the first call, then " +
      "cached and free. forum (Reddit): free, details included.",
  },
  variants: {
    field: "platform",
    options: {
      microblog: {
        sources: [{ id: "twitterapi", title: "twitterapi.io", providers: ["twitterapi"], search: microblogSlice }],
        actions: {
          details: {
            cost: { perCall: MICROBLOG_ITEM_USD },
            async run(ctx, record) {
              const { kind, value } = refOf(record, record.ref.kind === "profile" ? "userName" : "id");
              if (kind === "post") {
                const response = await ctx.upstream.send(toTweetRequest(value), ctx.signal);
                return tweetDetail(response.body, value);
              }
              const response = await ctx.upstream.send(toUserInfoRequest(value), ctx.signal);
              return userDetail(response.body, value);
            },
          },
        },
      },
      forum: {
        cost: free("Free: Reddit's public search."),
        sources: [
          {
            id: "reddit",
            title: "Reddit",
            providers: ["reddit"],
            async search(ctx, query, cursor) {
              const after = typeof cursor === "string" ? cursor : null;
              const response = await fromReddit(() => ctx.upstream.send(toRedditSearchRequest(query.kind, query.query, query.num, after), ctx.signal));
              return redditPage(response.body, query.kind, query.num);
            },
          },
        ],
        actions: {
          details: {
            async run(ctx, record) {
              const { kind, value } = refOf(record, "name");
              if (kind === "post") {
                const response = await fromReddit(() => ctx.upstream.send(toRedditPostRequest(value), ctx.signal));
                return redditPostDetail(response.body, value);
              }
              const response = await fromReddit(() => ctx.upstream.send(toRedditUserRequest(value), ctx.signal));
              return redditUserDetail(response.body, value);
            },
          },
        },
      },
    },
  },
  update: { example: { title: "Profiles instead of posts", params: { kind: "profiles" } } },
  actions: {
    details: {
      description:
        "The full post with its engagement now, or the profile: fetched on the first call, then cached, and " +
        "repeats are free. The first call: microblog $0.00015 (1 credit), forum free.",
      mode: "fetched",
      needs: { ref: socialRef, refusal: NO_STORED_ID },
    },
  },
  // twitterapi.io answers are built from its documented examples; the Reddit listing is recorded.
  examples: [
    { title: "Microblog posts about open data, two at a time", body: { platform: "microblog", query: "open data", num: 2 } },
    { title: "Forum threads about pop music", body: { platform: "forum", query: "pop" } },
    { title: "Microblog accounts about open data", body: { platform: "microblog", query: "open data", kind: "profiles" } },
  ],
});
