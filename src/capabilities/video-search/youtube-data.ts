/**
 * YouTube Data API v3 mappers for video.search: query → `GET /youtube/v3/search` (videos only), a
 * search page → records and the next page token, `GET /youtube/v3/videos` → `details`, and the API's
 * error envelope (quota, key, bad parameter). Pure functions, no I/O.
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest, UpstreamResponse } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft, SourcePage } from "../types.ts";
import { decodeEntities } from "../shared/html-text.ts";
import { arr, clip, defined, int, obj, str, strings } from "../shared/read.ts";
import type { VideoSearchQuery } from "./capability.ts";

/** Snippet length: the start of the search result's description. */
export const SNIPPET_MAX_CHARS = 300;
/** Spec 4.6: details' description at most 3,000 characters, at most 10 tags. */
export const DESCRIPTION_MAX_CHARS = 3_000;
export const MAX_TAGS = 10;

/** A YouTube video id: 11 characters of [A-Za-z0-9_-]. */
export function videoId(value: unknown): string | undefined {
  const id = str(value);
  return id !== undefined && /^[A-Za-z0-9_-]{11}$/.test(id) ? id : undefined;
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

/** Statuses whose body says why YouTube refused (the Google API error envelope). */
const READ_STATUSES = [400, 403];

/** `GET /youtube/v3/search?part=snippet&type=video&q=&maxResults=&pageToken=&publishedAfter=&videoDuration=`. */
export function toSearchRequest(query: VideoSearchQuery, token: string | undefined): UpstreamRequest {
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
    acceptStatus: READ_STATUSES,
  };
}

/** `GET /youtube/v3/videos?part=snippet,contentDetails,statistics&id=`. */
export function toVideosRequest(id: string): UpstreamRequest {
  return {
    provider: "youtube",
    method: "GET",
    path: "/youtube/v3/videos",
    query: { part: "snippet,contentDetails,statistics", id },
    acceptStatus: READ_STATUSES,
  };
}

/** The Google API error envelope → a provider error that says what YouTube refused. */
export function readYouTube(response: UpstreamResponse): void {
  if (response.status >= 200 && response.status < 300) return;
  const error = obj(obj(response.body)?.error);
  const reasons = (arr(error?.errors) ?? []).map((e) => str(obj(e)?.reason)).filter((r): r is string => r !== undefined);
  const message = str(error?.message);
  if (reasons.some((r) => /quotaExceeded|dailyLimitExceeded|rateLimitExceeded/.test(r))) {
    throw new ApiError("provider_error", "YouTube's quota for this deployment is used up; nothing was charged.", {
      hint: "YouTube's daily quota resets at midnight Pacific time; retry then (a short rate limit clears sooner).",
    });
  }
  if (reasons.some((r) => /keyInvalid|keyExpired|accessNotConfigured|forbidden|ipRefererBlocked/.test(r)) || response.status === 403) {
    throw new ApiError("provider_error", "YouTube refused this deployment's API key; nothing was charged.", {
      hint: "Retrying will not help until the operator fixes YOUTUBE_API_KEY (its validity or the YouTube Data API's activation).",
    });
  }
  throw new ApiError("provider_error", `YouTube refused the request${message === undefined ? "" : `: ${message}`}.`, {
    hint: "YouTube refused this request; nothing was charged. The same request is likely to be refused again.",
  });
}

/** A search page → records (videos only: channels and playlists have no video id) and the next token. */
export function toSearchPage(body: unknown, num: number): SourcePage {
  const root = obj(body);
  const items = arr(root?.items);
  if (root === undefined || items === undefined) throw new ApiError("provider_error", "YouTube answered a search without an items list.");
  const records = items.slice(0, num).flatMap((value) => {
    const record = toRecord(value);
    return record === undefined ? [] : [record];
  });
  const token = str(root.nextPageToken);
  return { records, next: token !== undefined && items.length > 0 ? { token } : null };
}

function text(value: unknown): string | undefined {
  const t = str(value);
  return t === undefined ? undefined : str(decodeEntities(t));
}

export function toRecord(value: unknown): RecordDraft | undefined {
  const item = obj(value);
  const id = videoId(obj(item?.id)?.videoId);
  const snippet = obj(item?.snippet);
  if (id === undefined || snippet === undefined) return undefined;
  const thumbnails = obj(snippet.thumbnails);
  const description = text(snippet.description);
  const summary = defined({
    title: text(snippet.title) ?? `YouTube video ${id}`,
    url: watchUrl(id),
    snippet: description === undefined ? undefined : clip(description, SNIPPET_MAX_CHARS),
    channel: text(snippet.channelTitle),
    published_at: str(snippet.publishedAt),
    thumbnail: str(obj(thumbnails?.medium)?.url) ?? str(obj(thumbnails?.default)?.url),
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
export function toDetail(body: unknown, id: string): { detail: JsonObject; links: Link[] } | undefined {
  const item = (arr(obj(body)?.items) ?? []).map(obj).find((v) => v !== undefined && str(v.id) === id);
  if (item === undefined) return undefined;
  const snippet = obj(item.snippet);
  const content = obj(item.contentDetails);
  const stats = obj(item.statistics);
  const description = str(snippet?.description);
  const detail = defined({
    title: text(snippet?.title),
    channel: text(snippet?.channelTitle),
    published_at: str(snippet?.publishedAt),
    duration_seconds: durationSeconds(content?.duration),
    // Statistics arrive as strings ("7920") and leave as numbers.
    views: int(stats?.viewCount),
    likes: int(stats?.likeCount),
    comments: int(stats?.commentCount),
    description: description === undefined ? undefined : cut(description, DESCRIPTION_MAX_CHARS),
    tags: strings(snippet?.tags, MAX_TAGS),
    definition: str(content?.definition),
  });
  const links: Link[] = [{ label: "Watch on YouTube", url: watchUrl(id) }];
  const channelId = str(snippet?.channelId);
  if (channelId !== undefined && /^[A-Za-z0-9_-]+$/.test(channelId)) links.push({ label: "Channel", url: `https://www.youtube.com/channel/${channelId}` });
  return { detail, links };
}
