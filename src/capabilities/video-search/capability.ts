/**
 * video.search (spec 4.6): YouTube videos through the YouTube Data API v3 (YOUTUBE_API_KEY), token
 * paging on its page tokens; free `details` (videos.list, cached) and a billed `transcript` ($0.004,
 * fetched once from YouTube's own captions, cached; a video without one is refused, charging nothing).
 */
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { UpstreamError } from "../../upstream/faults.ts";
import { type ActionOutput, defineCapability, type RecordView } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import type { CapabilityContext } from "../types.ts";
import { type VideoSearchQuery, videoSearchSchema } from "./schema.ts";
import { cursorToken, toDetail, toSearchPage, toSearchRequest, toVideosRequest, VIDEO_ID_PATTERN, watchUrl } from "./youtube-data.ts";
import { captionTracks, chooseTrack, parseTimedText, toPlayerRequest, toTimedTextRequest, toTranscript } from "./youtube-transcript.ts";
import { HOUR } from "../framework/durations.ts";

export { type VideoSearchQuery, videoSearchSchema } from "./schema.ts";

/** What one transcript costs (spec 4.6): $0.004, 4 credits, on its first (uncached) call. */
export const TRANSCRIPT_USD = 0.004;

/** What both record actions need: the record's YouTube video id (VIDEO_ID_PATTERN). */
const needsVideo = {
  ref: Type.Object({ video_id: Type.String({ pattern: VIDEO_ID_PATTERN }) }),
  refusal: "The record carries no YouTube video id.",
  message: "This record has no stored video id, so it cannot be acted on.",
};
type VideoRecord = RecordView<VideoSearchQuery, Static<typeof needsVideo.ref>>;

async function videoDetails(ctx: CapabilityContext<unknown>, record: VideoRecord): Promise<ActionOutput> {
  const id = record.ref.video_id;
  const response = await ctx.upstream.send(toVideosRequest(id), ctx.signal);
  const detail = toDetail(response.body, id);
  if (detail === undefined) {
    throw invalidRequest(
      [{ path: "/record_id", message: `YouTube no longer has video ${id} (removed or made private).` }],
      "The video of this record is gone from YouTube; search again.",
    );
  }
  return detail;
}

/**
 * YouTube's 429 on its player or captions is how it blocks an address (youtube-transcript-api's
 * `IpBlocked`): the client's rate-limit error, with a hint that says so (its wait kept).
 */
async function fromYouTubeWeb<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof UpstreamError && error.fault === "rate_limited" && error.provider === "youtube_web") {
      throw new UpstreamError("provider_error", error.message, "rate_limited", "youtube_web", {
        hint:
          "YouTube answers 429 to addresses it blocks from reading captions (most cloud addresses); nothing was charged. " +
          (error.retryAfter === undefined ? "Retry later, or from another network." : `Retry after ${error.retryAfter} s, or from another network.`),
        cause: error,
        ...(error.retryAfter === undefined ? {} : { retryAfter: error.retryAfter }),
      });
    }
    throw error;
  }
}

async function videoTranscript(ctx: CapabilityContext<unknown>, record: VideoRecord): Promise<ActionOutput> {
  const id = record.ref.video_id;
  const player = await fromYouTubeWeb(() => ctx.upstream.send(toPlayerRequest(id), ctx.signal));
  const tracks = captionTracks(player.body, id);
  const track = chooseTrack(tracks);
  const timedText = await fromYouTubeWeb(() => ctx.upstream.send(toTimedTextRequest(track, id), ctx.signal));
  const segments = parseTimedText(timedText.body);
  return { detail: toTranscript(track, tracks, segments), links: [{ label: "Watch on YouTube", url: watchUrl(id) }] };
}

export const videoSearch = defineCapability({
  id: "video.search",
  title: "Video search",
  summary: "YouTube videos by words, date and length, with video details and transcripts.",
  description:
    "Searches YouTube videos (YouTube Data API v3). Filter by `published_after` (RFC 3339 date-time) and " +
    "`duration` (`short` under 4 minutes, `medium` 4-20, `long` over 20). Records carry the title, watch URL, " +
    "the start of the description as snippet and, when YouTube has them, `channel`, `published_at` and " +
    "`thumbnail` (medium size when offered, else the default one). Token paging on YouTube's page tokens. " +
    "`details` (cached): title, channel, published_at, duration_seconds, views, likes, comments (numbers), " +
    "description (at most 3,000 characters), up to 10 tags, definition. `transcript` (cached after the first " +
    "call): YouTube's own captions, English written by people when there are some, else English " +
    "generated, else the first track: `language`, `auto_generated`, `available_languages`, `segments` (count), " +
    "`text` (at most 60,000 characters) and `timestamps` ({start, duration, text}, at most 2,000, " +
    "`timestamps_truncated` when cut). A video without captions (or one YouTube no longer has) answers 400 " +
    "invalid_request at /record_id; when YouTube refuses the captions to this deployment (its bot check, an age " +
    "gate, a proof-of-origin token) it answers 502 provider_error saying so. Neither charges anything. Needs YOUTUBE_API_KEY.",
  topic: "media and entertainment",
  schema: videoSearchSchema,
  recordKeys: Type.Object({
    channel: Type.Optional(Type.String()),
    published_at: Type.Optional(Type.String({ description: "RFC 3339 publication time." })),
    thumbnail: Type.Optional(Type.String({ description: "Thumbnail URL, medium size when offered." })),
  }),
  paging: "token",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: free(
    "Search and details are free (YouTube Data API quota); `transcript` costs $0.004 a video: 4 credits on its first call, 0 when served from cache.",
  ),
  sources: [
    httpSource({
      id: "youtube",
      title: "YouTube",
      provider: "youtube",
      request: (query: VideoSearchQuery, cursor) => toSearchRequest(query, cursorToken(cursor)),
      toPage: (body, query) => toSearchPage(body, query.num),
    }),
  ],
  update: { example: { title: "The same videos, only long ones", params: { duration: "long" } } },
  actions: {
    details: {
      description: "Title, channel, date, duration, views, likes, comments, description (≤ 3,000 chars), tags (≤ 10), definition (free, cached).",
      mode: "fetched",
      needs: needsVideo,
      run: videoDetails,
    },
    transcript: {
      description:
        "The video's captions: language, available languages, segment count, text (≤ 60,000 chars), timestamps (≤ 2,000). $0.004 (4 credits) on the first call, cached after; none charged when the video has no captions.",
      mode: "fetched",
      cost: { perCall: TRANSCRIPT_USD },
      needs: needsVideo,
      run: videoTranscript,
    },
  },
  examples: [
    { title: "Videos about Actions on Google", body: { query: "actions on google" } },
    { title: "Surface Go reviews", body: { query: "surface go review", num: 5 } },
  ],
});
