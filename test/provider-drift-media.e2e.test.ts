/**
 * Drift of the video, social and web/news providers (test/helpers/drift.ts): each serves a recording
 * with one field its mapper reads renamed (or, for YouTube's caption XML, an attribute's name
 * replaced), and must answer 502 naming the provider and that field, free, with a warning logged.
 * One case per answer shape: YouTube Data API search and videos, the web player's answer and its
 * caption XML, Reddit's post listing and one post, twitterapi.io's advanced search and posts by id,
 * Serper's web and news answers.
 */
import { driftSuite } from "./helpers/drift.ts";

/** Pacing off: the replay is not Reddit or twitterapi.io (pacing itself: src/upstream/client-pacing.test.ts). */
const UNPACED = { REDDIT_MIN_INTERVAL_MS: "0", TWITTERAPI_MIN_INTERVAL_MS: "0" };

const video = { query: "actions on google" };
const captioned = { query: "surface go review", num: 5 };
const forum = { platform: "forum", query: "pop" };
const microblog = { platform: "microblog", query: "open data", num: 2 };

driftSuite("video, social and web/news providers: a changed answer is an error", [
  { provider: "youtube", capability: "video.search", body: video, pointer: "/items/0/snippet/title" },
  { provider: "youtube", capability: "video.search", body: video, action: "details", pointer: "/items/0/id" },
  { provider: "youtube_web", capability: "video.search", body: captioned, action: "transcript", pointer: "/playabilityStatus" },
  {
    provider: "youtube_web",
    capability: "video.search",
    body: captioned,
    action: "transcript",
    pointer: "/captions/playerCaptionsTracklistRenderer/captionTracks/2/baseUrl",
  },
  // The caption track's XML: every line's `start` attribute renamed.
  { provider: "youtube_web", capability: "video.search", body: captioned, action: "transcript", find: "start=", replaceWith: "begin=", expectPointer: "/transcript/text/0/@start" },
  { provider: "reddit", capability: "social.search", body: forum, pointer: "/data/children/0/data/title", env: UNPACED },
  { provider: "reddit", capability: "social.search", body: forum, action: "details", pointer: "/data/children/0/data/name", env: UNPACED },
  { provider: "twitterapi", capability: "social.search", body: microblog, pointer: "/tweets/0/text", env: UNPACED },
  { provider: "twitterapi", capability: "social.search", body: microblog, action: "details", pointer: "/tweets/0/id", env: UNPACED },
  { provider: "serper", capability: "web.search", body: { query: "apple inc" }, pointer: "/organic/0/link" },
  { provider: "serper", capability: "news.search", body: { query: "apple inc", num: 20 }, pointer: "/news/0/title" },
]);
