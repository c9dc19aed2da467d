/**
 * YouTube Data API v3 mappers for video.search: query → `GET /youtube/v3/search` (videos only), a
 * search page → records and the next page token, `GET /youtube/v3/videos` → `details`, and the API's
 * error envelope (quota, key, bad parameter) as a `refusal`. Each request declares the schema of the
 * fields its mapper reads (a renamed or retyped one is `502 provider_error` naming it). Pure functions, no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft, SourcePage } from "../types.ts";
import { decodeEntities } from "../shared/html-text.ts";
import { arr, clip, defined, int, obj, str, strings } from "../shared/read.ts";
import type { VideoSearchQuery } from "./schema.ts";

/** Snippet length: the start of the search result's description. */
export const SNIPPET_MAX_CHARS = 300;
/** Spec 4.6: details' description at most 3,000 characters, at most 10 tags. */
export const DESCRIPTION_MAX_CHARS = 3_000;
export const MAX_TAGS = 10;

const thumbnail = Type.Object({ url: Type.Optional(Type.String()) });

/**
 * One search result. `id.kind` says what it is: only `youtube#video` results carry `id.videoId` (a
 * channel or playlist result has `channelId` or `playlistId`). Every result has a snippet with a title
 * (`part=snippet`); YouTube leaves out what it has no value for.
 */
export const youtubeSearchItem = Type.Object({
  id: Type.Object({ kind: Type.String(), videoId: Type.Optional(Type.String()) }),
  snippet: Type.Object({
    title: Type.String(),
    description: Type.Optional(Type.String()),
    channelTitle: Type.Optional(Type.String()),
    publishedAt: Type.Optional(Type.String()),
    thumbnails: Type.Optional(Type.Object({ medium: Type.Optional(thumbnail), default: Type.Optional(thumbnail) })),
  }),
});
export type YouTubeSearchItem = Static<typeof youtubeSearchItem>;

/** A search page: its results and, when YouTube has more, the next page's token. */
export const youtubeSearchList = Type.Object({
  items: Type.Array(youtubeSearchItem),
  nextPageToken: Type.Optional(Type.String()),
});
export type YouTubeSearchList = Static<typeof youtubeSearchList>;

/** One video of videos.list (`part=snippet,contentDetails,statistics`); statistics are strings, hidden ones absent. */
export const youtubeVideo = Type.Object({
  id: Type.String(),
  snippet: Type.Object({
    title: Type.String(),
    description: Type.Optional(Type.String()),
    channelTitle: Type.Optional(Type.String()),
    channelId: Type.Optional(Type.String()),
    publishedAt: Type.Optional(Type.String()),
    tags: Type.Optional(Type.Array(Type.String())),
  }),
  contentDetails: Type.Optional(Type.Object({ duration: Type.Optional(Type.String()), definition: Type.Optional(Type.String()) })),
  statistics: Type.Optional(
    Type.Object({ viewCount: Type.Optional(Type.String()), likeCount: Type.Optional(Type.String()), commentCount: Type.Optional(Type.String()) }),
  ),
});
export type YouTubeVideo = Static<typeof youtubeVideo>;

/** videos.list: the videos found (none for an id YouTube no longer has). */
export const youtubeVideoList = Type.Object({ items: Type.Array(youtubeVideo) });
export type YouTubeVideoList = Static<typeof youtubeVideoList>;

/** A YouTube video id: 11 characters of [A-Za-z0-9_-] (as a JSON Schema pattern for the record actions' ref). */
export const VIDEO_ID_PATTERN = "^[A-Za-z0-9_-]{11}$";
const VIDEO_ID = new RegExp(VIDEO_ID_PATTERN);

export function videoId(value: unknown): string | undefined {
  const id = str(value);
  return id !== undefined && VIDEO_ID.test(id) ? id : undefined;
}

export function watchUrl(id: string): string {
  return `https://www.youtube.com/watch?v=${id}`;
}

/** The page token of a cursor `{token}`, or undefined for the first page. */
export function cursorToken(cursor: JsonValue): string | undefined {
  const token = cursor !== null && typeof cursor === "object" && !Array.isArray(cursor) ? cursor.token : undefined;
  return typeof token === "string" && token !== "" ? token : undefined;
}

/** RFC 3339 as YouTube writes it: `T` between date and time, `Z` upper case (RFC 3339 also allows a space). */
export function rfc3339(value: string): string {
  return value.replace(/^(\d{4}-\d{2}-\d{2})[ tT]/, "$1T").replace(/z$/, "Z");
}

/** `GET /youtube/v3/search?part=snippet&type=video&q=&maxResults=&pageToken=&publishedAfter=&videoDuration=`. */
export function toSearchRequest(query: VideoSearchQuery, token: string | undefined): JsonRequest<typeof youtubeSearchList> {
  return {
    provider: "youtube",
    method: "GET",
    path: "/youtube/v3/search",
    query: {
      part: "snippet",
      type: "video",
      q: query.query,
      maxResults: query.num,
      pageToken: token,
      publishedAfter: query.published_after === undefined ? undefined : rfc3339(query.published_after),
      videoDuration: query.duration,
    },
    refusal: youtubeRefusal,
    response: youtubeSearchList,
  };
}

/** `GET /youtube/v3/videos?part=snippet,contentDetails,statistics&id=`. */
export function toVideosRequest(id: string): JsonRequest<typeof youtubeVideoList> {
  return {
    provider: "youtube",
    method: "GET",
    path: "/youtube/v3/videos",
    query: { part: "snippet,contentDetails,statistics", id },
    refusal: youtubeRefusal,
    response: youtubeVideoList,
  };
}

/**
 * The Google API error envelope (`{error: {code, message, errors: [{reason}]}}`, HTTP 400 or 403) →
 * the provider error that says what YouTube refused; undefined for any other answer. The refusal of
 * every YouTube Data API request (the upstream client runs it before the schema, whatever the status).
 */
export function youtubeRefusal(body: unknown, status: number): ApiError | undefined {
  if (status >= 200 && status < 300) return undefined;
  const error = obj(obj(body)?.error);
  if (error === undefined && status !== 403) return undefined;
  const reasons = (arr(error?.errors) ?? []).map((e) => str(obj(e)?.reason)).filter((r): r is string => r !== undefined);
  const message = str(error?.message);
  if (reasons.some((r) => /quotaExceeded|dailyLimitExceeded|rateLimitExceeded/.test(r))) {
    return new ApiError("provider_error", "YouTube's quota for this deployment is used up; nothing was charged.", {
      hint: "YouTube's daily quota resets at midnight Pacific time; retry then (a short rate limit clears sooner).",
    });
  }
  if (reasons.some((r) => /keyInvalid|keyExpired|accessNotConfigured|forbidden|ipRefererBlocked/.test(r)) || status === 403) {
    return new ApiError("provider_error", "YouTube refused this deployment's API key; nothing was charged.", {
      retryable: false,
      hint: "Retrying will not help until the operator fixes YOUTUBE_API_KEY (its validity or the YouTube Data API's activation).",
    });
  }
  return new ApiError("provider_error", `YouTube refused the request${message === undefined ? "" : `: ${message}`}.`, {
    retryable: false,
    hint: "YouTube refused this request; nothing was charged. The same request is likely to be refused again.",
  });
}

/**
 * A search page → records (videos only: channels and playlists have no video id) and the next token.
 * A video result without its id is drift: records are never dropped for a field that moved.
 */
export function toSearchPage(body: YouTubeSearchList, num: number): SourcePage {
  const records = body.items.slice(0, num).flatMap((item, i) => {
    if (item.id.kind === "youtube#video" && item.id.videoId === undefined) throw new ProviderDrift("youtube", `/items/${i}/id/videoId`, "is missing");
    const record = toRecord(item);
    return record === undefined ? [] : [record];
  });
  const token = str(body.nextPageToken);
  return { records, next: token !== undefined && body.items.length > 0 ? { token } : null };
}

function text(value: string | undefined): string | undefined {
  const t = str(value);
  return t === undefined ? undefined : str(decodeEntities(t));
}

export function toRecord(item: YouTubeSearchItem): RecordDraft | undefined {
  const id = videoId(item.id.videoId);
  if (id === undefined) return undefined;
  const snippet = item.snippet;
  const thumbnails = snippet.thumbnails;
  const description = text(snippet.description);
  const summary = defined({
    title: text(snippet.title) ?? `YouTube video ${id}`,
    url: watchUrl(id),
    snippet: description === undefined ? undefined : clip(description, SNIPPET_MAX_CHARS),
    channel: text(snippet.channelTitle),
    published_at: str(snippet.publishedAt),
    thumbnail: str(thumbnails?.medium?.url) ?? str(thumbnails?.default?.url),
  }) as RecordDraft["summary"];
  return { summary, ref: { video_id: id } };
}

/** ISO 8601 duration (`PT21M7S`, `P1DT2H`, `P0D`) → seconds; undefined when it is not one. */
export function durationSeconds(value: unknown): number | undefined {
  const m = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(str(value) ?? "");
  if (m === null || m.slice(1).every((p) => p === undefined)) return undefined;
  const [w, d, h, min, s] = m.slice(1).map((p) => Number(p ?? 0)) as [number, number, number, number, number];
  return (((w * 7 + d) * 24 + h) * 60 + min) * 60 + s;
}

/** Text cut at `max` characters, keeping its line breaks (a description reads by its lines). */
function cut(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1).trimEnd()}…`;
}

/** A videos.list answer → `details` of `id` (spec 4.6's keys), or undefined when YouTube has no such video. */
export function toDetail(body: YouTubeVideoList, id: string): { detail: JsonObject; links: Link[] } | undefined {
  const item = body.items.find((v) => v.id === id);
  if (item === undefined) return undefined;
  const { snippet, contentDetails: content, statistics: stats } = item;
  const description = str(snippet.description);
  const detail = defined({
    title: text(snippet.title),
    channel: text(snippet.channelTitle),
    published_at: str(snippet.publishedAt),
    duration_seconds: durationSeconds(content?.duration),
    // Statistics arrive as strings ("7920") and leave as numbers.
    views: int(stats?.viewCount),
    likes: int(stats?.likeCount),
    comments: int(stats?.commentCount),
    description: description === undefined ? undefined : cut(description, DESCRIPTION_MAX_CHARS),
    tags: strings(snippet.tags, MAX_TAGS),
    definition: str(content?.definition),
  });
  const links: Link[] = [{ label: "Watch on YouTube", url: watchUrl(id) }];
  const channelId = str(snippet.channelId);
  if (channelId !== undefined && /^[A-Za-z0-9_-]+$/.test(channelId)) links.push({ label: "Channel", url: `https://www.youtube.com/channel/${channelId}` });
  return { detail, links };
}

/**
 * The live check's probe: one video by id through videos.list (1 quota unit of the 10,000 a day; a
 * search would take one of the 100 search.list calls a project gets a day).
 */
export const youtubeProbe: ProviderProbe = {
  provider: "youtube",
  what: "one video by id (1 quota unit)",
  request: toVideosRequest("D-lhorsDlUQ"),
};
