/**
 * Deezer mapper tests: recorded search, album and error bodies (HTTP 200 with `{"error":{...}}`)
 * replayed through the declared answers and the pure request/response mappers, including the pending
 * track and album details that the album answer completes with `release`; error bodies through
 * Deezer's refusal, changed answers as drift naming the field.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ApiError } from "../../errors.ts";
import { checkShape, ProviderDrift } from "../../upstream/response-check.ts";
import type { JsonObject } from "../types.ts";
import {
  completeDeezerDetail,
  type DeezerAlbumBody,
  type DeezerSearchBody,
  deezerAlbumAnswer,
  deezerProbe,
  deezerRefusal,
  deezerSearch,
  pendingDeezerDetail,
  type PendingDeezerDetail,
  toDeezerAlbumRequest,
  toDeezerPage,
  toDeezerRecord,
  toDeezerRequest,
} from "./deezer.ts";
import { formatDuration, type MusicKind, type MusicQuery } from "./music-query.ts";

function fixture(name: string): DeezerSearchBody {
  const url = new URL(`../../../fixtures/providers/deezer/${name}`, import.meta.url);
  return JSON.parse(readFileSync(url, "utf8")) as DeezerSearchBody;
}

function query(kind: MusicKind = "track", num = 10): MusicQuery {
  return { query: "q", kind, num };
}

function isProviderError(err: unknown): boolean {
  return (
    err instanceof ApiError && err.code === "provider_error" && err.message.startsWith("Deezer reported")
  );
}

test("toDeezerRequest: plain /search for tracks, typed paths for artists and albums", () => {
  const track = toDeezerRequest({ query: "Soliloquy", kind: "track", num: 10 }, 0);
  assert.equal(track.provider, "deezer");
  assert.equal(track.method, "GET");
  assert.equal(track.path, "/search");
  assert.deepEqual(track.query, { q: "Soliloquy", index: 0, limit: 10 });
  assert.equal(toDeezerRequest(query("artist"), 0).path, "/search/artist");
  assert.equal(toDeezerRequest(query("album"), 0).path, "/search/album");
  assert.deepEqual(toDeezerRequest(query("album", 25), 50).query, { q: "q", index: 50, limit: 25 });
  for (const kind of ["track", "artist", "album"] as const) {
    assert.equal(toDeezerRequest(query(kind), 0).response, deezerSearch[kind], kind);
    assert.equal(toDeezerRequest(query(kind), 0).refusal, deezerRefusal);
  }
  assert.equal(deezerProbe.provider, "deezer");
  assert.equal(deezerProbe.request.path, "/album/302127");
  assert.equal(deezerProbe.request.response, deezerAlbumAnswer);
});

test("the recordings fit the declared answers; a renamed or retyped field the mapper reads is drift naming it", () => {
  const kinds: [string, MusicKind][] = [
    ["search_simple.json", "track"],
    ["search_limit2.json", "track"],
    ["search_track_advanced.json", "track"],
    ["search_artist.json", "artist"],
    ["search_album.json", "album"],
  ];
  for (const [name, kind] of kinds) checkShape("deezer", deezerSearch[kind], fixture(name));
  checkShape("deezer", deezerAlbumAnswer, fixture("get_album.json"));
  const drift = (schema: Parameters<typeof checkShape>[1], body: unknown, pointer: string) =>
    assert.throws(
      () => checkShape("deezer", schema, body),
      (e: unknown) => e instanceof ProviderDrift && e.pointer === pointer && e.message.startsWith("Deezer answered in a shape Quarry does not read"),
    );
  const track = fixture("search_simple.json").data[0]!;
  drift(deezerSearch.track, { total: 3 }, "/data");
  drift(deezerSearch.track, { data: [{ ...track, title: undefined, title_renamed: track.title }] }, "/data/0/title");
  drift(deezerSearch.track, { data: [{ ...track, duration: "199" }] }, "/data/0/duration");
  drift(deezerSearch.artist, { data: [{ id: 27, title: "Daft Punk" }] }, "/data/0/name");
  drift(deezerAlbumAnswer, { title: "Discovery", release_date: "2001-03-07" }, "/id");
  drift(deezerAlbumAnswer, { id: 302127, release_date: 20010307 }, "/release_date");
});

test("tracks: every spec key from the recorded search", () => {
  const page = toDeezerPage(fixture("search_simple.json"), query(), 0);
  const first = page.records[0];
  assert.ok(first, "first");
  assert.deepEqual(first.summary, {
    title: "Soliloquy",
    kind: "track",
    url: "https://www.deezer.com/track/1495381112",
    artist: "Dave Brubeck",
    album: "Nightclub",
    duration: "3:19",
    explicit: false,
    preview_url: "https://cdns-preview-0.dzcdn.net/stream/c-015d0109f28f76fb69e33d444d7f89a6-2.mp3",
  });
  assert.equal(first.ref?.source, "deezer");
  assert.equal(first.ref?.deezer_id, 1495381112);
  assert.equal(first.ref?.album_id, 259135282);
});

function pendingOf(record: { ref?: JsonObject } | undefined): PendingDeezerDetail {
  const pending = pendingDeezerDetail(record?.ref ?? null);
  assert.ok(pending, "a track or album with an album id keeps its detail pending in ref");
  return pending;
}

test("tracks: the pending detail carries album, duration, preview and metadata; nothing is stored", () => {
  const record = toDeezerPage(fixture("search_simple.json"), query(), 0).records[0];
  assert.equal(record?.detail, undefined, "not stored: the first details call completes it");
  assert.equal(record?.links, undefined);
  const pending = pendingOf(record);
  assert.equal(pending.albumId, 259135282);
  assert.deepEqual(
    pending.links.map((l) => l.label),
    ["Track on Deezer", "Artist on Deezer", "Album on Deezer", "30-second preview (MP3)"],
  );
  const detail = pending.detail;
  assert.equal("release" in detail, false);
  assert.equal(detail.duration, "3:19");
  assert.equal(detail.duration_seconds, 199);
  assert.equal((detail.album as JsonObject).title, "Nightclub");
  assert.equal((detail.album as JsonObject).url, "https://www.deezer.com/album/259135282");
  assert.match(String(detail.preview_url), /\.mp3$/);
  assert.deepEqual(detail.metadata, {
    source: "deezer",
    deezer_id: 1495381112,
    rank: 100000,
    artist_id: 4080,
    album_id: 259135282,
  });
});

test("paging: a page never holds more than num records, next offset is offset + num", () => {
  const body = fixture("search_simple.json");
  assert.equal(body.data?.length, 25);
  const page = toDeezerPage(body, query("track", 10), 0);
  assert.equal(page.records.length, 10);
  assert.deepEqual(page.next, { offset: 10, source: "deezer" });
  assert.deepEqual(toDeezerPage(body, query("track", 10), 20).next, { offset: 30, source: "deezer" });
});

test("paging: no next when Deezer announces no more", () => {
  assert.equal(
    toDeezerPage(fixture("search_artist.json"), query("artist"), 0).next,
    null,
    "total 5, no next",
  );
  assert.equal(toDeezerPage(fixture("search_track_advanced.json"), query(), 0).next, null, "total 1");
  const tracks = fixture("search_simple.json").data ?? [];
  // No `next` link, but the total goes beyond this slice.
  assert.deepEqual(toDeezerPage({ data: tracks.slice(0, 10), total: 40 }, query(), 0).next, {
    offset: 10,
    source: "deezer",
  });
  assert.equal(toDeezerPage({ data: tracks.slice(0, 10), total: 40 }, query(), 30).next, null);
  // An empty page ends paging even if a total is still reported.
  assert.equal(
    toDeezerPage({ data: [], total: 300, next: "https://api.deezer.com/search?index=990" }, query(), 990)
      .next,
    null,
  );
});

test("empty results are an empty page", () => {
  const page = toDeezerPage({ data: [], total: 0 }, query(), 0);
  assert.deepEqual(page.records, []);
  assert.equal(page.next, null);
});

test("artists: fans, albums, picture; details carry equal title and name", () => {
  const page = toDeezerPage(fixture("search_artist.json"), query("artist"), 0);
  const first = page.records[0];
  assert.ok(first, "first");
  assert.deepEqual(first.summary, {
    title: "Daft Punk",
    kind: "artist",
    url: "https://www.deezer.com/artist/27",
    fans: 4117751,
    albums: 32,
    picture:
      "https://e-cdns-images.dzcdn.net/images/artist/f2bc007e9133c946ac3c3907ddc5d2ea/250x250-000000-80-0-0.jpg",
  });
  for (const record of page.records) {
    assert.equal(record.detail?.title, record.detail?.name);
    assert.equal(record.detail?.title, record.summary.title);
  }
});

test("artists: Deezer's empty-hash placeholder image is not a picture", () => {
  const stardust = toDeezerPage(fixture("search_artist.json"), query("artist"), 0).records[1];
  assert.equal(stardust?.summary.title, "Daft Punk - Stardust");
  assert.equal("picture" in (stardust?.summary ?? {}), false);
  assert.equal(stardust?.summary.albums, 0);
});

test("albums: artist, tracks, type, cover", () => {
  const first = toDeezerPage(fixture("search_album.json"), query("album"), 0).records[0];
  assert.ok(first, "first");
  assert.deepEqual(first.summary, {
    title: "Discovery",
    kind: "album",
    url: "https://www.deezer.com/album/302127",
    artist: "Daft Punk",
    tracks: 14,
    type: "album",
    cover:
      "https://e-cdns-images.dzcdn.net/images/cover/2e018122cb56986277102d2041a592c8/250x250-000000-80-0-0.jpg",
  });
  assert.equal(first.detail, undefined);
  const pending = pendingOf(first);
  assert.equal(pending.albumId, 302127, "an album record's album id is its own id");
  assert.equal(pending.detail.explicit, false);
});

test("album request: GET /album/{id} on Deezer, no params", () => {
  assert.deepEqual(toDeezerAlbumRequest(302127), {
    provider: "deezer",
    method: "GET",
    path: "/album/302127",
    response: deezerAlbumAnswer,
    refusal: deezerRefusal,
  });
});

test("the recorded album answer completes an album's detail with release, every other key kept", () => {
  const record = toDeezerPage(fixture("search_album.json"), query("album"), 0).records[0];
  const pending = pendingOf(record);
  const album = checkShape("deezer", deezerAlbumAnswer, fixture("get_album.json")) as DeezerAlbumBody;
  assert.equal(album.release_date, "2001-03-07");
  const { detail, links } = completeDeezerDetail(pending, album);
  assert.deepEqual(detail.release, {
    title: "Discovery",
    date: "2001-03-07",
    type: "album",
    barcode: "724384960650",
    label: "Parlophone France",
  });
  const { release: _release, ...rest } = detail;
  assert.deepEqual(rest, pending.detail);
  assert.deepEqual(links, pending.links);
  assert.deepEqual(Object.keys(detail).slice(-2), ["release", "metadata"]);
});

test("a track's detail is completed from its album's answer the same way", () => {
  const pending = pendingOf(toDeezerPage(fixture("search_simple.json"), query(), 0).records[0]);
  const { detail } = completeDeezerDetail(pending, { id: 259135282, release_date: "2020-10-02" });
  assert.deepEqual(detail.release, { date: "2020-10-02" });
  assert.equal(detail.duration, "3:19");
  assert.equal(detail.kind, "track");
});

test("an album answer without any release fact gives release null", () => {
  const pending = pendingOf(toDeezerPage(fixture("search_album.json"), query("album"), 0).records[0]);
  assert.equal(completeDeezerDetail(pending, { id: 302127 }).detail.release, null);
  assert.equal(completeDeezerDetail(pending, { id: 302127, release_date: "" }).detail.release, null);
});

test("a Deezer error body (HTTP 200) is refused, a non-album answer is drift: never a detail", () => {
  for (const name of ["error_no_data_album.json", "error_exception_no_code_episode.json"]) {
    const refused = deezerRefusal(fixture(name), 200);
    assert.ok(isProviderError(refused), name);
  }
  for (const body of [null, "no album", [1, 2], {}]) {
    assert.throws(() => checkShape("deezer", deezerAlbumAnswer, body), ProviderDrift);
  }
});

test("records without an album id store their detail now, with release null; artists store theirs", () => {
  const track = toDeezerRecord({ id: 7, title: "Loose track", type: "track", duration: 61 }, "track");
  assert.equal(track?.detail?.release, null);
  assert.equal(track?.detail?.duration, "1:01");
  assert.equal(pendingDeezerDetail(track?.ref ?? null), null);
  const album = toDeezerRecord({ id: 0, title: "No usable id", type: "album" }, "album");
  assert.equal(album?.detail?.release, null);
  const artist = toDeezerPage(fixture("search_artist.json"), query("artist"), 0).records[0];
  assert.equal(artist?.detail?.name, "Daft Punk");
  assert.equal("release" in (artist?.detail ?? {}), false);
  assert.deepEqual(artist?.ref, { source: "deezer", deezer_id: 27 });
  assert.equal(pendingDeezerDetail(artist?.ref ?? null), null);
});

test("missing values are omitted, never null; items of another type or without a title are skipped", () => {
  const bare = toDeezerRecord({ id: 1, title: "Only a title", type: "track" }, "track");
  assert.deepEqual(bare?.summary, { title: "Only a title", kind: "track" });
  assert.equal(toDeezerRecord({ id: 2, name: "An artist", type: "artist" }, "track"), null);
  assert.equal(toDeezerRecord({ id: 3, title: "" }, "track"), null);
});

test("error bodies inside HTTP 200 are provider errors (Deezer's refusal, before the schema), never empty pages; its quota error is retryable after 5 s", () => {
  for (const name of [
    "error_no_data_album.json",
    "error_parameter_genre.json",
    "error_exception_no_code_episode.json",
  ]) {
    assert.ok(isProviderError(deezerRefusal(fixture(name), 200)), name);
  }
  assert.equal(deezerRefusal(fixture("error_no_data_album.json"))?.message, "Deezer reported: DataException: no data (code 800).");
  assert.equal(deezerRefusal(fixture("error_exception_no_code_episode.json"))?.message, "Deezer reported: Exception: An error has occured.");
  assert.equal(deezerRefusal(fixture("search_artist.json")), undefined);
  assert.equal(deezerRefusal(null), undefined);
  // Code 4 as Deezer's documented error list names it (QUOTA), hand-made in the recorded errors' shape.
  const quota = deezerRefusal({ error: { type: "Exception", message: "Quota limit exceeded", code: 4 } });
  assert.equal(quota?.retryAfter, 5);
  assert.equal(quota?.retryable, true);
});

test("formatDuration: m:ss, minutes not wrapped into hours", () => {
  assert.equal(formatDuration(0), "0:00");
  assert.equal(formatDuration(59), "0:59");
  assert.equal(formatDuration(60), "1:00");
  assert.equal(formatDuration(199), "3:19");
  assert.equal(formatDuration(4503), "75:03");
});
