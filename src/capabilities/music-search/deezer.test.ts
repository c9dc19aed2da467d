/**
 * Deezer mapper tests: recorded search bodies and error bodies (HTTP 200 with `{"error":{...}}`)
 * replayed through the pure request/response mappers.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { ApiError } from "../../errors.ts";
import type { JsonObject } from "../types.ts";
import {
  type DeezerSearchBody,
  deezerError,
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
});

test("tracks: every spec key from the recorded search", () => {
  const page = toDeezerPage(fixture("search_simple.json"), query(), 0);
  const first = page.records[0];
  assert.ok(first);
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
  assert.deepEqual(first.ref, { source: "deezer", deezer_id: 1495381112 });
});

test("tracks: the stored detail carries album, duration, preview and metadata", () => {
  const detail = toDeezerPage(fixture("search_simple.json"), query(), 0).records[0]?.detail;
  assert.ok(detail);
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
  assert.equal(page.credits, 0);
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
  assert.ok(first);
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
  assert.ok(first);
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
  assert.equal(first.detail?.explicit, false);
});

test("missing values are omitted, never null; items of another type or without a title are skipped", () => {
  const bare = toDeezerRecord({ id: 1, title: "Only a title", type: "track" }, "track");
  assert.deepEqual(bare?.summary, { title: "Only a title", kind: "track" });
  assert.equal(toDeezerRecord({ id: 2, name: "An artist", type: "artist" }, "track"), null);
  assert.equal(toDeezerRecord({ id: 3, title: "" }, "track"), null);
});

test("error bodies inside HTTP 200 are provider errors, never empty pages", () => {
  for (const name of [
    "error_no_data_album.json",
    "error_parameter_genre.json",
    "error_exception_no_code_episode.json",
  ]) {
    assert.throws(() => toDeezerPage(fixture(name), query(), 0), isProviderError, name);
  }
  const err = deezerError(fixture("error_no_data_album.json"));
  assert.equal(err?.message, "Deezer reported: DataException: no data (code 800).");
  assert.equal(deezerError(fixture("search_artist.json")), undefined);
});

test("a body without a data list is a provider error", () => {
  assert.throws(() => toDeezerPage({ total: 3 } as DeezerSearchBody, query(), 0), isProviderError);
});

test("formatDuration: m:ss, minutes not wrapped into hours", () => {
  assert.equal(formatDuration(0), "0:00");
  assert.equal(formatDuration(59), "0:59");
  assert.equal(formatDuration(60), "1:00");
  assert.equal(formatDuration(199), "3:19");
  assert.equal(formatDuration(4503), "75:03");
});
