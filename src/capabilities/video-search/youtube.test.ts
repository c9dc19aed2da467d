/**
 * video.search mappers against recorded bodies: the search request, records (entities decoded,
 * medium thumbnails, channels skipped), page tokens, details (statistics strings → numbers, ISO 8601
 * durations, description and tag caps), YouTube's error envelope, and the transcript source (caption
 * tracks of the innertube player answer, the timedtext request, XML parsing and the spec's caps).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded, fixtureText, response } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import type { VideoSearchQuery } from "./capability.ts";
import { cursorToken, durationSeconds, readYouTube, rfc3339, toDetail, toSearchPage, toSearchRequest, videoId } from "./youtube-data.ts";
import {
  type CaptionTrack,
  captionTracks,
  chooseTrack,
  MAX_TIMESTAMPS,
  parseTimedText,
  TEXT_MAX_CHARS,
  toPlayerRequest,
  toTimedTextRequest,
  toTranscript,
} from "./youtube-transcript.ts";

const q = (over: Partial<VideoSearchQuery>): VideoSearchQuery => ({ query: "surfing", num: 10, ...over });
const PLAYER = () => recorded("youtube_web", "innertube_player_captions.json") as Record<string, unknown>;

test("search request: videos only, page size, token, RFC 3339 publishedAfter, duration", () => {
  const req = toSearchRequest(q({ num: 25, published_after: "2024-01-01 10:00:00z", duration: "medium" }), "CBkQAA");
  assert.equal(req.provider, "youtube");
  assert.equal(req.path, "/youtube/v3/search");
  assert.deepEqual(req.query, {
    part: "snippet",
    type: "video",
    q: "surfing",
    maxResults: 25,
    pageToken: "CBkQAA",
    publishedAfter: "2024-01-01T10:00:00Z",
    videoDuration: "medium",
  });
  assert.equal(toSearchRequest(q({}), undefined).query?.pageToken, undefined);
  assert.equal(rfc3339("2024-01-01T10:00:00+02:00"), "2024-01-01T10:00:00+02:00");
  assert.equal(cursorToken({ token: "CBkQAA" }), "CBkQAA");
  assert.equal(cursorToken(null), undefined);
});

test("recorded search page: titles unescaped, medium thumbnails, the next page token", () => {
  const page = toSearchPage(recorded("youtube", "search_list_p1.json"), 25);
  assert.equal(page.records.length, 25);
  assert.deepEqual(page.next, { token: "CBkQAA" });
  const pipe = page.records[1];
  assert.equal(pipe?.summary.title, "SURFING PERFECT PIPE & BACKDOOR || SUNRISE SHACK!");
  assert.match(String(pipe?.summary.url), /^https:\/\/www\.youtube\.com\/watch\?v=[A-Za-z0-9_-]{11}$/);
  assert.match(String(pipe?.summary.thumbnail), /\/mqdefault\.jpg$/);
  assert.equal(typeof pipe?.summary.channel, "string");
  assert.match(String(pipe?.summary.published_at), /^\d{4}-\d{2}-\d{2}T/);
  assert.ok(page.records.some((r) => r.summary.title === "World's best surfing 2017"), "&#39; decoded");
  assert.deepEqual(Object.keys(pipe?.ref ?? {}), ["video_id"]);
  assert.equal(toSearchPage(recorded("youtube", "search_list_p1.json"), 5).records.length, 5);
});

test("a channel search's items have no video id: no records, not invented ones", () => {
  const page = toSearchPage(recorded("youtube", "search_list_channels.json"), 10);
  assert.equal(page.records.length, 0);
  assert.deepEqual(page.next, { token: "CAUQAA" }, "YouTube has more pages; this one just held no videos");
  assert.throws(() => toSearchPage({ kind: "x" }, 10), ApiError);
});

test("details: statistics strings become numbers, ISO 8601 duration in seconds, description and tags capped", () => {
  const out = toDetail(recorded("youtube", "videos_list_details.json"), "D-lhorsDlUQ");
  assert.ok(out);
  const d = out.detail;
  assert.equal(d.title, "What are Actions on Google (Assistant on Air)");
  assert.equal(d.channel, "Google Developers");
  assert.equal(d.published_at, "2019-03-21T20:37:49.000Z");
  assert.equal(d.duration_seconds, 21 * 60 + 7);
  assert.equal(d.views, 7920);
  assert.equal(d.likes, 190);
  assert.equal(d.comments, 32);
  assert.equal(d.definition, "hd");
  assert.equal((d.tags as string[]).length, 10, "20 recorded, 10 kept");
  assert.ok(String(d.description).includes("\n\n"), "line breaks kept");
  assert.equal("dislikes" in d, false);
  assert.deepEqual(out.links[1], { label: "Channel", url: "https://www.youtube.com/channel/UC_x5XG1OV2P6uZZ5FSM9Ttw" });
  assert.equal(toDetail(recorded("youtube", "videos_list_details.json"), "aaaaaaaaaaa"), undefined);
  const long = toDetail({ items: [{ id: "D-lhorsDlUQ", snippet: { description: "x".repeat(5000) } }] }, "D-lhorsDlUQ");
  assert.equal(String(long?.detail.description).length, 3000);
});

test("ISO 8601 durations", () => {
  assert.equal(durationSeconds("PT21M7S"), 1267);
  assert.equal(durationSeconds("PT1H"), 3600);
  assert.equal(durationSeconds("P1DT2H3M4S"), 93784);
  assert.equal(durationSeconds("P0D"), 0);
  assert.equal(durationSeconds("PT"), undefined);
  assert.equal(durationSeconds("21:07"), undefined);
});

test("YouTube's error envelope: key refused, quota, other refusals", () => {
  assert.throws(() => readYouTube(response(400, recorded("youtube", "error_400_key_invalid.json"))), (e: unknown) => e instanceof ApiError && /API key/.test(e.message));
  assert.throws(() => readYouTube(response(403, recorded("youtube", "error_403_permission.json"))), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  const quota = { error: { code: 403, message: "quota", errors: [{ reason: "quotaExceeded", domain: "youtube.quota" }] } };
  assert.throws(() => readYouTube(response(403, quota)), (e: unknown) => e instanceof ApiError && /quota/.test(e.message) && /midnight Pacific/.test(e.hint ?? ""));
  const bad = { error: { code: 400, message: "Invalid value for publishedAfter", errors: [{ reason: "invalidParameter" }] } };
  assert.throws(() => readYouTube(response(400, bad)), (e: unknown) => e instanceof ApiError && /Invalid value for publishedAfter/.test(e.message));
  assert.doesNotThrow(() => readYouTube(response(200, {})));
  assert.equal(videoId("GJLlxj_dtq8"), "GJLlxj_dtq8");
  assert.equal(videoId("../x"), undefined);
});

test("player request: POST /youtubei/v1/player on youtube_web, Android context, no key", () => {
  const req = toPlayerRequest("GJLlxj_dtq8");
  assert.equal(req.provider, "youtube_web");
  assert.equal(req.method, "POST");
  assert.equal(req.path, "/youtubei/v1/player");
  assert.deepEqual(req.body, { context: { client: { clientName: "ANDROID", clientVersion: "20.10.38" } }, videoId: "GJLlxj_dtq8" });
  assert.equal(req.query?.key, undefined);
});

test("caption tracks of the recorded player answer; English by people is chosen", () => {
  const tracks = captionTracks(PLAYER(), "GJLlxj_dtq8");
  assert.deepEqual(
    tracks.map((t) => `${t.language}${t.autoGenerated ? " (asr)" : ""}`),
    ["zh", "cs", "en", "en (asr)", "de", "hi", "ja", "ko", "es"],
  );
  const chosen = chooseTrack(tracks);
  assert.equal(chosen.language, "en");
  assert.equal(chosen.autoGenerated, false);
  const req = toTimedTextRequest(chosen);
  assert.equal(req.provider, "youtube_web");
  assert.equal(req.path, "/api/timedtext");
  assert.equal(req.responseType, "text");
  assert.equal(req.query?.v, "GJLlxj_dtq8");
  assert.equal(req.query?.lang, "en");
  assert.equal(req.query?.fmt, undefined, "fmt=srv3 dropped: the classic XML is asked for");
  const t = (language: string, autoGenerated: boolean): CaptionTrack => ({ baseUrl: "https://www.youtube.com/api/timedtext?v=x", language, autoGenerated });
  assert.equal(chooseTrack([t("de", false), t("en", true)]).language, "en");
  assert.equal(chooseTrack([t("de", true), t("fr", false)]).language, "fr");
  assert.equal(chooseTrack([t("de", true)]).language, "de");
});

test("a caption address off youtube.com/api/timedtext is never fetched", () => {
  const t = (baseUrl: string): CaptionTrack => ({ baseUrl, language: "en", autoGenerated: false });
  for (const bad of ["https://evil.example/api/timedtext?v=x", "http://www.youtube.com/api/timedtext?v=x", "https://www.youtube.com/other", "not a url"]) {
    assert.throws(() => toTimedTextRequest(t(bad)), (e: unknown) => e instanceof ApiError && e.code === "provider_error", bad);
  }
});

test("no transcript: an unplayable video or one without tracks is invalid_request at /record_id", () => {
  const refused = (body: unknown) => (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/record_id" && body !== undefined;
  const unavailable = recorded("youtube_web", "innertube_player_video_unavailable.json");
  assert.throws(() => captionTracks(unavailable, "GJLlxj_dtq8"), refused(unavailable));
  const { captions: _dropped, ...withoutCaptions } = PLAYER();
  assert.throws(() => captionTracks(withoutCaptions, "GJLlxj_dtq8"), (e: unknown) => e instanceof ApiError && /no transcript/.test(e.violations?.[0]?.message ?? ""));
  // An answer about another video is the provider's fault, not the record's.
  assert.throws(() => captionTracks(PLAYER(), "D-lhorsDlUQ"), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
});

test("timedtext XML: entities and inline markup decoded, empty lines dropped", () => {
  const segments = parseTimedText(fixtureText("youtube_web", "transcript_timedtext.xml"));
  assert.deepEqual(segments, [
    { start: 0, duration: 1.54, text: "Hey, this is just a test" },
    { start: 1.54, duration: 4.16, text: "this is not the original transcript" },
    { start: 5.7, duration: 3.239, text: "just something shorter, I made up for testing" },
  ]);
  assert.deepEqual(parseTimedText('<transcript><text start="1">it&amp;#39;s</text></transcript>'), [{ start: 1, text: "it's" }]);
  assert.throws(() => parseTimedText(""), ApiError);
  assert.throws(() => parseTimedText("<html><body>nope</body></html>"), ApiError);
});

test("transcript detail: language, available languages, count, text and timestamps within the caps", () => {
  const tracks = captionTracks(PLAYER(), "GJLlxj_dtq8");
  const segments = parseTimedText(fixtureText("youtube_web", "transcript_timedtext.xml"));
  const detail = toTranscript(chooseTrack(tracks), tracks, segments);
  assert.equal(detail.language, "en");
  assert.deepEqual(detail.available_languages, ["zh", "cs", "en", "de", "hi", "ja", "ko", "es"]);
  assert.equal(detail.segments, 3);
  assert.equal(detail.text, "Hey, this is just a test this is not the original transcript just something shorter, I made up for testing");
  assert.equal(detail.timestamps_truncated, false);
  const many = Array.from({ length: 2500 }, (_, i) => ({ start: i, duration: 1, text: "word ".repeat(6).trim() }));
  const capped = toTranscript(chooseTrack(tracks), tracks, many);
  assert.equal(capped.segments, 2500);
  assert.equal((capped.timestamps as unknown[]).length, MAX_TIMESTAMPS);
  assert.equal(capped.timestamps_truncated, true);
  assert.equal(String(capped.text).length, TEXT_MAX_CHARS);
  assert.ok(String(capped.text).endsWith("…"));
  const silent = toTranscript(chooseTrack(tracks), tracks, []);
  assert.equal("text" in silent, false);
  assert.equal(silent.segments, 0);
});
