/**
 * video.search mappers against recorded bodies: the search request, records (entities decoded,
 * medium thumbnails, channels skipped), page tokens, details (statistics strings → numbers, ISO 8601
 * durations, description and tag caps), YouTube's error envelope (the requests' refusal), and the
 * transcript source (caption tracks of the innertube player answer, the timedtext request, XML parsing
 * and the spec's caps; YouTube's refusals, its bot check, age gate and proof-of-origin tokens, told
 * apart from a video without captions). Recordings go through the declared schemas first, as the
 * upstream client does.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { fixture as recorded, fixtureText } from "../../../test/helpers/capability-kit.ts";
import { ApiError } from "../../errors.ts";
import { UpstreamError } from "../../upstream/faults.ts";
import { checkJsonAnswer, checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { VideoSearchQuery } from "./schema.ts";
import {
  cursorToken,
  durationSeconds,
  rfc3339,
  toDetail,
  toSearchPage,
  toSearchRequest,
  toVideosRequest,
  videoId,
  youtubeRefusal,
  youtubeSearchList,
  youtubeVideoList,
} from "./youtube-data.ts";
import {
  type CaptionTrack,
  captionTracks,
  chooseTrack,
  MAX_TIMESTAMPS,
  needsPoToken,
  type PlayerAnswer,
  parseTimedText,
  playerAnswer,
  playerRefusal,
  TEXT_MAX_CHARS,
  toPlayerRequest,
  toTimedTextRequest,
  toTranscript,
} from "./youtube-transcript.ts";

const q = (over: Partial<VideoSearchQuery>): VideoSearchQuery => ({ query: "surfing", num: 10, ...over });
/** A recorded player answer, checked as the client checks it (refusal, then schema). */
const player = (file: string): PlayerAnswer => {
  const body = recorded("youtube_web", file);
  checkJsonAnswer(toPlayerRequest("GJLlxj_dtq8"), 200, body);
  return body as PlayerAnswer;
};
const PLAYER = () => player("innertube_player_captions.json");
const searchPage = (file: string) => checkShape("youtube", youtubeSearchList, recorded("youtube", file));
const videos = (body: unknown) => checkShape("youtube", youtubeVideoList, body);

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
  const page = toSearchPage(searchPage("search_list_p1.json"), 25);
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
  assert.equal(toSearchPage(searchPage("search_list_p1.json"), 5).records.length, 5);
});

test("a channel search's items have no video id: no records, not invented ones", () => {
  const page = toSearchPage(searchPage("search_list_channels.json"), 10);
  assert.equal(page.records.length, 0);
  assert.deepEqual(page.next, { token: "CAUQAA" }, "YouTube has more pages; this one just held no videos");
});

test("the search recordings fit the declared schema; an answer that moved a field the mapper reads is drift", () => {
  for (const file of ["search_list_p1.json", "search_list_channels.json", "search_actions_on_google_constructed.json", "search_surface_go_constructed.json"]) {
    assert.doesNotThrow(() => searchPage(file), file);
  }
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^YouTube Data API answered in a shape/.test(e.message);
  assert.throws(() => checkShape("youtube", youtubeSearchList, { kind: "x" }), drift("/items"));
  const body = structuredClone(recorded("youtube", "search_list_p1.json")) as { items: { id: Record<string, unknown>; snippet: Record<string, unknown> }[] };
  body.items[3]!.snippet.headline = body.items[3]!.snippet.title;
  delete body.items[3]!.snippet.title;
  assert.throws(() => checkShape("youtube", youtubeSearchList, body), drift("/items/3/snippet/title"));
  // A video result whose id moved is drift, never a page that silently drops it (channel results have none).
  const moved = structuredClone(recorded("youtube", "search_list_p1.json")) as { items: { id: Record<string, unknown> }[] };
  moved.items[2]!.id.video_id = moved.items[2]!.id.videoId;
  delete moved.items[2]!.id.videoId;
  assert.throws(() => toSearchPage(checkShape("youtube", youtubeSearchList, moved), 25), drift("/items/2/id/videoId"));
  assert.throws(() => videos({ items: [{ id: 7, snippet: { title: "x" } }] }), drift("/items/0/id"));
});

test("details: statistics strings become numbers, ISO 8601 duration in seconds, description and tags capped", () => {
  const out = toDetail(videos(recorded("youtube", "videos_list_details.json")), "D-lhorsDlUQ");
  assert.ok(out, "out");
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
  assert.equal(toDetail(videos(recorded("youtube", "videos_list_details.json")), "aaaaaaaaaaa"), undefined);
  const long = toDetail({ items: [{ id: "D-lhorsDlUQ", snippet: { title: "t", description: "x".repeat(5000) } }] }, "D-lhorsDlUQ");
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

test("YouTube's error envelope is every Data API request's refusal: key refused, quota, other refusals", () => {
  const request = toVideosRequest("D-lhorsDlUQ");
  assert.equal(request.refusal, youtubeRefusal);
  assert.equal(toSearchRequest(q({}), undefined).refusal, youtubeRefusal);
  const refused = (status: number, body: unknown) => () => checkJsonAnswer(request, status, body);
  assert.throws(refused(400, recorded("youtube", "error_400_key_invalid.json")), (e: unknown) => e instanceof ApiError && /API key/.test(e.message) && !e.retryable);
  assert.throws(refused(403, recorded("youtube", "error_403_permission.json")), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
  const quota = { error: { code: 403, message: "quota", errors: [{ reason: "quotaExceeded", domain: "youtube.quota" }] } };
  assert.throws(refused(403, quota), (e: unknown) => e instanceof ApiError && /quota/.test(e.message) && /midnight Pacific/.test(e.hint ?? ""));
  const bad = { error: { code: 400, message: "Invalid value for publishedAfter", errors: [{ reason: "invalidParameter" }] } };
  assert.throws(refused(400, bad), (e: unknown) => e instanceof ApiError && /Invalid value for publishedAfter/.test(e.message));
  assert.equal(youtubeRefusal({}, 200), undefined);
  assert.equal(youtubeRefusal({ error: { message: "not an error: a 2xx answer" } }, 200), undefined);
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
  const req = toTimedTextRequest(chosen, "GJLlxj_dtq8");
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
    assert.throws(() => toTimedTextRequest(t(bad), "GJLlxj_dtq8"), (e: unknown) => e instanceof ApiError && e.code === "provider_error", bad);
  }
});

test("no transcript (400 at /record_id): a video YouTube plays and lists no caption track for, or one it no longer has", () => {
  const atRecord = (message: RegExp) => (e: unknown) => e instanceof ApiError && e.code === "invalid_request" && e.violations?.[0]?.path === "/record_id" && message.test(e.violations[0].message);
  assert.throws(() => captionTracks(player("innertube_player_transcripts_disabled.json"), "dsMFmonKDD4"), atRecord(/has no transcript \(YouTube lists no caption tracks/));
  const { captions: _dropped, ...withoutCaptions } = PLAYER();
  assert.throws(() => captionTracks(withoutCaptions, "GJLlxj_dtq8"), atRecord(/no transcript/));
  assert.throws(() => captionTracks(player("innertube_player_video_unavailable.json"), "GJLlxj_dtq8"), atRecord(/YouTube no longer has video GJLlxj_dtq8 \(This video is unavailable\)/));
  // An answer about another video is the provider's fault, not the record's.
  assert.throws(() => captionTracks(PLAYER(), "D-lhorsDlUQ"), (e: unknown) => e instanceof ApiError && e.code === "provider_error");
});

test("YouTube's bot check (LOGIN_REQUIRED, \"Sign in to confirm you're not a bot\") is the player request's refusal: 502, a challenge, never \"no transcript\"", () => {
  const blocked = recorded("youtube_web", "innertube_player_request_blocked.json");
  assert.equal(toPlayerRequest("GJLlxj_dtq8").refusal, playerRefusal);
  assert.throws(
    () => checkJsonAnswer(toPlayerRequest("GJLlxj_dtq8"), 200, blocked),
    (e: unknown) =>
      e instanceof UpstreamError &&
      e.code === "provider_error" &&
      e.status === 502 &&
      e.fault === "challenged" &&
      e.provider === "youtube_web" &&
      !e.retryable &&
      /bot check \("Sign in to confirm you.re not a bot"\)/.test(e.message) &&
      /cloud/.test(e.hint ?? ""),
  );
  // The plain apostrophe too; another LOGIN_REQUIRED reason is not the bot check.
  assert.ok(playerRefusal({ playabilityStatus: { status: "LOGIN_REQUIRED", reason: "Sign in to confirm you're not a bot" } }), "playerRefusal({ playabilityStatus: { status: \"LOGIN_REQUIRED\", reason: \"Sign in to conf...");
  assert.equal(playerRefusal({ playabilityStatus: { status: "LOGIN_REQUIRED", reason: "This video is private" } }), undefined);
  assert.equal(playerRefusal(PLAYER()), undefined);
});

test("an age gate or another reason YouTube will not play the video here: 502 quoting YouTube, not \"no transcript\"", () => {
  const notShown = (message: RegExp) => (e: unknown) => e instanceof ApiError && e.code === "provider_error" && e.status === 502 && !e.retryable && message.test(e.message) && e.violations === undefined;
  assert.throws(() => captionTracks(player("innertube_player_age_restricted.json"), "Njp5uhTorCo"), notShown(/only to signed-in adults \(age-restricted: "This video may be inappropriate for some users\."\)/));
  assert.throws(() => captionTracks(player("innertube_player_unplayable.json"), "GJLlxj_dtq8"), notShown(/does not play video GJLlxj_dtq8 to this deployment \(CUSTOM: "Custom Reason"\)/));
  assert.throws(() => captionTracks({ playabilityStatus: { status: "LOGIN_REQUIRED", reason: "This video is private" } }, "GJLlxj_dtq8"), notShown(/LOGIN_REQUIRED: "This video is private"/));
});

test("a caption track that needs a proof-of-origin token (exp=xpe) is not fetched: 502 saying so", () => {
  const tracks = captionTracks(player("innertube_player_po_token_required.json"), "GJLlxj_dtq8");
  const chosen = chooseTrack(tracks);
  assert.equal(chosen.language, "en");
  assert.equal(needsPoToken(chosen), true);
  assert.deepEqual(
    tracks.filter(needsPoToken).map((t) => `${t.language}${t.autoGenerated ? " (asr)" : ""}`),
    ["en"],
    "only the track whose address names the experiment",
  );
  assert.throws(
    () => toTimedTextRequest(chosen, "GJLlxj_dtq8"),
    (e: unknown) => e instanceof ApiError && e.code === "provider_error" && !e.retryable && /proof-of-origin \(PO\) token for the captions of video GJLlxj_dtq8/.test(e.message),
  );
  const t = (query: string): CaptionTrack => ({ baseUrl: `https://www.youtube.com/api/timedtext?v=x&${query}`, language: "en", autoGenerated: false });
  assert.equal(needsPoToken(t("exp=xpv")), true);
  assert.equal(needsPoToken(t("exp=abc,xpe")), true);
  assert.equal(needsPoToken(t("exp=xpex")), false);
  assert.equal(needsPoToken(chooseTrack(captionTracks(PLAYER(), "GJLlxj_dtq8"))), false);
});

test("every player recording fits the declared schema; a player answer that moved a field the mapper reads is drift", () => {
  for (const file of [
    "innertube_player_captions.json",
    "innertube_player_video_unavailable.json",
    "innertube_player_po_token_required.json",
    "innertube_player_age_restricted.json",
    "innertube_player_unplayable.json",
    "innertube_player_transcripts_disabled.json",
    "innertube_player_request_blocked.json",
  ]) {
    assert.doesNotThrow(() => checkShape("youtube_web", playerAnswer, recorded("youtube_web", file)), file);
  }
  const drift = (pointer: string) => (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && /^YouTube \(web player captions\) answered in a shape/.test(e.message);
  const { playabilityStatus, ...rest } = PLAYER();
  assert.throws(() => checkShape("youtube_web", playerAnswer, { ...rest, playability: playabilityStatus }), drift("/playabilityStatus"));
  const moved = structuredClone(PLAYER()) as { captions: { playerCaptionsTracklistRenderer: { captionTracks: Record<string, unknown>[] } } };
  moved.captions.playerCaptionsTracklistRenderer.captionTracks[1]!.url = moved.captions.playerCaptionsTracklistRenderer.captionTracks[1]!.baseUrl;
  delete moved.captions.playerCaptionsTracklistRenderer.captionTracks[1]!.baseUrl;
  assert.throws(() => checkShape("youtube_web", playerAnswer, moved), drift("/captions/playerCaptionsTracklistRenderer/captionTracks/1/baseUrl"));
});

test("timedtext XML: entities and inline markup decoded, empty lines dropped", () => {
  const segments = parseTimedText(fixtureText("youtube_web", "transcript_timedtext.xml"));
  assert.deepEqual(segments, [
    { start: 0, duration: 1.54, text: "Hey, this is just a test" },
    { start: 1.54, duration: 4.16, text: "this is not the original transcript" },
    { start: 5.7, duration: 3.239, text: "just something shorter, I made up for testing" },
  ]);
  assert.deepEqual(parseTimedText('<transcript><text start="1">it&amp;#39;s</text></transcript>'), [{ start: 1, text: "it's" }]);
  assert.deepEqual(parseTimedText("<transcript></transcript>"), []);
  // YouTube answers an empty body when it wants a PO token or refuses the address: a provider error saying so.
  assert.throws(() => parseTimedText(""), (e: unknown) => e instanceof ApiError && e.code === "provider_error" && /empty caption track/.test(e.message) && /proof-of-origin/.test(e.hint ?? ""));
  assert.throws(() => parseTimedText("<html><body>nope</body></html>"), (e: unknown) => e instanceof ProviderDrift && e.pointer === "/transcript");
  // A line whose start moved is drift naming it, not a line silently dropped.
  assert.throws(
    () => parseTimedText(fixtureText("youtube_web", "transcript_timedtext.xml").split("start=").join("begin=")),
    (e: unknown) => e instanceof ProviderDrift && e.pointer === "/transcript/text/0/@start" && e.provider === "youtube_web",
  );
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
  assert.ok(String(capped.text).endsWith("…"), "String(capped.text).endsWith(\"…\")");
  const silent = toTranscript(chooseTrack(tracks), tracks, []);
  assert.equal("text" in silent, false);
  assert.equal(silent.segments, 0);
});
