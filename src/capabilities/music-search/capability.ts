/**
 * music.search: tracks, artists or albums from Deezer, with MusicBrainz as the fallback when Deezer
 * fails. Offset paging; the cursor remembers the source so `more` stays on it.
 *
 * Details (free either way; the `details` action is declared `stored`, and records without a
 * stored detail are completed by the action's `run`, as the service does for any stored action):
 * - Deezer track and album records with an album id: fetched on the first call. Deezer's search
 *   items carry no release date, so the first `details` call asks `GET /album/{album_id}` (the
 *   album's own id, or the track's album id) through the upstream client under the capability's
 *   deadline, adds `release` (the album's release facts, keyed as a MusicBrainz release's) to the detail mapped at search time, and the
 *   service caches it on the record (`cached: false` once, then `cached: true`). A failed album call
 *   (Deezer error body, network failure, HTTP error, timeout) is `502 provider_error` (or `504
 *   provider_timeout`), retryable, charged 0, and nothing is cached: the next call asks again.
 * - Deezer track and album records without an album id: stored at search time with `release: null`.
 * - Deezer artist records and all MusicBrainz-fallback records: stored at search time (no call).
 */
import { Type } from "@sinclair/typebox";
import { STORED_DETAIL_GONE, sessionExpired } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { completeDeezerDetail, pendingDeezerDetail, toDeezerAlbumRequest, toDeezerPage, toDeezerRequest } from "./deezer.ts";
import { parseCursor } from "./music-query.ts";
import { fallbackNote, toMusicBrainzPage, toMusicBrainzRequest } from "./musicbrainz.ts";
import { DAY } from "../framework/durations.ts";
import { MUSIC_KINDS, type MusicSearchQuery, musicSearchSchema } from "./schema.ts";

export { type MusicSearchQuery, musicSearchSchema } from "./schema.ts";

/**
 * Record keys of spec 4.6, each when the source has it (`kind` always): tracks, artists and albums
 * from Deezer, and the smaller set of the MusicBrainz fallback (with its `country`,
 * `disambiguation` and `musicbrainz_id`).
 */
const musicRecordKeys = Type.Object({
  kind: Type.String({ enum: MUSIC_KINDS }),
  artist: Type.Optional(Type.String()),
  album: Type.Optional(Type.String()),
  duration: Type.Optional(Type.String({ pattern: "^[0-9]+:[0-5][0-9]$", description: "m:ss (tracks)." })),
  explicit: Type.Optional(Type.Boolean()),
  preview_url: Type.Optional(Type.String({ description: "A 30-second preview." })),
  fans: Type.Optional(Type.Integer({ minimum: 0, description: "Artists." })),
  albums: Type.Optional(Type.Integer({ minimum: 0, description: "Artists: album count." })),
  picture: Type.Optional(Type.String({ description: "Artists." })),
  tracks: Type.Optional(Type.Integer({ minimum: 0, description: "Albums: track count." })),
  type: Type.Optional(Type.String({ description: "Albums: album, single, ep, compile…" })),
  cover: Type.Optional(Type.String({ description: "Albums." })),
  country: Type.Optional(Type.String({ description: "Fallback source." })),
  disambiguation: Type.Optional(Type.String({ description: "Fallback source." })),
  musicbrainz_id: Type.Optional(Type.String({ description: "Fallback source." })),
});

export const musicSearch = defineCapability({
  id: "music.search",
  title: "Music search",
  summary: "Find tracks, artists or albums with durations, previews, fan counts and covers.",
  description:
    "Searches Deezer's catalog for tracks (default), artists or albums. Tracks carry artist, album, " +
    "duration (m:ss), explicit flag and a 30-second preview URL; artists carry fans, album count and " +
    "picture; albums carry artist, track count, type and cover. When Deezer is unavailable the search " +
    "falls back to MusicBrainz, whose records carry a smaller key set (country, disambiguation, " +
    "musicbrainz_id instead of previews, fans and pictures) and `notes[]` says which keys are absent; " +
    "`more` continues on the source that answered the first page. `details` (album, duration, release, " +
    "preview, metadata) is free. For Deezer tracks and albums the first `details` call fetches the " +
    'album (`release` holds its release facts: title, date e.g. "2001-03-07", type, barcode, label, ' +
    "as MusicBrainz releases do) and later calls are cached; if that " +
    "call fails the answer is 502 provider_error (retryable, nothing charged, nothing cached), and a " +
    "record without an album id gets `release: null` without a call. Artist details and fallback " +
    "records' details are stored at search time.",
  topic: "media and entertainment",
  schema: musicSearchSchema,
  recordKeys: musicRecordKeys,
  paging: "offset",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free("Free: Deezer and MusicBrainz are free public APIs; searches and details cost 0 credits."),
  sources: [
    httpSource({
      id: "deezer",
      title: "Deezer",
      provider: "deezer",
      request: (query: MusicSearchQuery, cursor) => toDeezerRequest(query, parseCursor(cursor).offset),
      toPage: (body, query, cursor) => toDeezerPage(body, query, parseCursor(cursor).offset),
    }),
    httpSource({
      id: "musicbrainz",
      title: "MusicBrainz",
      provider: "musicbrainz",
      request: (query: MusicSearchQuery, cursor) => toMusicBrainzRequest(query, parseCursor(cursor).offset),
      toPage: (body, query, cursor) => toMusicBrainzPage(body, query, parseCursor(cursor).offset),
      fallbackNotes: (query) => [fallbackNote(query.kind)],
    }),
  ],
  update: { example: { title: "Daft Punk as an artist instead of albums", params: { kind: "artist" } } },
  actions: {
    details: {
      description:
        "Album, duration, release, preview and source metadata (free). Deezer tracks and albums: the " +
        "release date is fetched from the album on the first call, then cached; a failed album call " +
        "is 502 provider_error, retryable. Artists and fallback records: stored at search time.",
      // Stored where the search answer holds everything; Deezer track and album records store none
      // and are completed here on the first call, then cached (see the header).
      mode: "stored",
      async run(ctx, record) {
        const pending = pendingDeezerDetail(record.ref);
        if (pending === null) throw sessionExpired(STORED_DETAIL_GONE);
        const response = await ctx.upstream.send(toDeezerAlbumRequest(pending.albumId), ctx.signal);
        return completeDeezerDetail(pending, response.body);
      },
    },
  },
  // The first example's first record is the one whose `details` the demo and MCP tests ask for:
  // album 302127 ("Discovery"), whose album answer is recorded for the replay upstream.
  examples: [
    { title: "Albums by Daft Punk", body: { query: "Daft Punk", kind: "album", num: 5 } },
    { title: "Tracks called Soliloquy", body: { query: "Soliloquy" } },
    { title: "The artist YOASOBI", body: { query: "YOASOBI", kind: "artist" } },
  ],
});
