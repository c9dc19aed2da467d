/**
 * Deezer mappers for music.search (primary source): query → `GET /search[/artist|/album]`, search
 * body → records; record id → `GET /album/{id}`, album body → the record's release date. Each request
 * declares its answer (a search list per kind, the album): an item without its id or title (name,
 * for artists), a list under another name or a retyped field is drift. Deezer reports errors inside
 * HTTP 200 bodies (`{"error":{...}}`); `deezerRefusal` makes them provider_error (its quota, code 4,
 * retryable after Deezer's 5 s window), never an empty page or an empty detail. Pure, no I/O.
 *
 * Details. Deezer's search items carry no release date, so a track or album record whose album id
 * is known does not store its detail: the detail mapped from the search item (everything but
 * `release`) and its links wait in the record's private `ref` (`album_id`, `detail`, `links`), and
 * the first `details` call asks `GET /album/{album_id}` for `release_date` and completes it
 * (completeDeezerDetail); the service then caches the answer on the record. A track or album
 * without an album id stores its detail at search time with `release: null` (nothing to ask).
 * Artist details have no release and are stored at search time as before.
 */
import { type Static, type TObject, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";
import {
  defined,
  formatDuration,
  isCount,
  type MusicKind,
  type MusicQuery,
  nextCursor,
  nonEmpty,
} from "./music-query.ts";

const optString = Type.Optional(Type.String());
const optNumber = Type.Optional(Type.Number());

const deezerArtist = Type.Object({
  id: optNumber,
  name: optString,
  link: optString,
  picture: optString,
  picture_medium: optString,
  picture_xl: optString,
  nb_album: optNumber,
  nb_fan: optNumber,
  radio: Type.Optional(Type.Boolean()),
});

const deezerAlbum = Type.Object({
  id: optNumber,
  title: optString,
  link: optString,
  cover: optString,
  cover_medium: optString,
  cover_xl: optString,
  nb_tracks: optNumber,
  record_type: optString,
  genre_id: optNumber,
  explicit_lyrics: Type.Optional(Type.Boolean()),
  artist: Type.Optional(deezerArtist),
});

/** Every field a search item's mapper reads, whatever its kind (typed, each optional here). */
const itemFields = {
  ...deezerArtist.properties,
  ...deezerAlbum.properties,
  id: Type.Number(),
  type: optString,
  duration: optNumber,
  rank: optNumber,
  preview: optString,
  album: Type.Optional(deezerAlbum),
};

const searchList = <T extends TObject>(item: T) =>
  Type.Object({ data: Type.Array(item), total: optNumber, next: optString });

/** A search list per kind: tracks and albums need their title, artists their name. */
export const deezerSearch = {
  track: searchList(Type.Object({ ...itemFields, title: Type.String() })),
  artist: searchList(Type.Object({ ...itemFields, name: Type.String() })),
  album: searchList(Type.Object({ ...itemFields, title: Type.String() })),
} as const;
type DeezerSearchSchema = (typeof deezerSearch)[MusicKind];

/** A search answer of any kind, as the mappers read it. */
const anyList = searchList(Type.Object(itemFields));
export type DeezerSearchBody = Static<typeof anyList>;
export type DeezerItem = DeezerSearchBody["data"][number];
type DeezerTrack = DeezerItem;
type DeezerArtist = Static<typeof deezerArtist>;
type DeezerAlbum = Static<typeof deezerAlbum>;

/** `GET /album/{id}`: only what the detail needs (the rest of the album is in the search item). */
export const deezerAlbumAnswer = Type.Object({
  id: Type.Number(),
  title: optString,
  release_date: optString,
  record_type: optString,
  upc: optString,
  label: optString,
});
export type DeezerAlbumBody = Static<typeof deezerAlbumAnswer>;

/** Deezer's quota: 50 requests per 5 s per address; its error code 4 says it was spent. */
const QUOTA_CODE = 4;
const QUOTA_WINDOW_S = 5;

/**
 * Deezer's own error answer (`{"error": {type, message, code}}`, HTTP 200 like its answers) as the
 * provider_error it stands for, for every Deezer request; undefined for an answer (and for an HTTP
 * error status, which the upstream client answers itself). Its quota error is retryable after the
 * quota's window; the others (no data, a wrong parameter) keep the default.
 */
export function deezerRefusal(body: unknown, status = 200): ApiError | undefined {
  if (status < 200 || status >= 300 || body === null || typeof body !== "object" || !("error" in body)) return undefined;
  const error = (body as { error: unknown }).error;
  if (error === null || typeof error !== "object") return undefined;
  const e = error as Record<string, unknown>;
  const parts = [nonEmpty(e.type), nonEmpty(e.message)].filter((p) => p !== undefined);
  const code = typeof e.code === "number" ? e.code : undefined;
  const text = `Deezer reported: ${parts.join(": ") || "an error"}${code === undefined ? "" : ` (code ${code})`}.`;
  if (code === QUOTA_CODE) {
    return new ApiError("provider_error", text, {
      retryAfter: QUOTA_WINDOW_S,
      hint: "Deezer allows 50 requests per 5 seconds from one address; retry after the wait. Nothing was charged.",
    });
  }
  return new ApiError("provider_error", text);
}

/** Deezer's plain `/search` searches tracks; artists and albums have their own paths. */
const SEARCH_PATH: Record<MusicKind, string> = {
  track: "/search",
  artist: "/search/artist",
  album: "/search/album",
};

export function toDeezerRequest(query: MusicQuery, offset: number): JsonRequest<DeezerSearchSchema> {
  return {
    provider: "deezer",
    method: "GET",
    path: SEARCH_PATH[query.kind],
    query: { q: query.query, index: offset, limit: query.num },
    response: deezerSearch[query.kind],
    refusal: deezerRefusal,
  };
}

/** The album a track or album record's release date comes from (`GET /album/{id}`, no params). */
export function toDeezerAlbumRequest(albumId: number): JsonRequest<typeof deezerAlbumAnswer> {
  return { provider: "deezer", method: "GET", path: `/album/${albumId}`, response: deezerAlbumAnswer, refusal: deezerRefusal };
}

/**
 * Search body → page. More results while the page was not empty and Deezer announces them
 * (a `next` link, or a `total` beyond this slice); the next offset is offset + num.
 */
export function toDeezerPage(body: DeezerSearchBody, query: MusicQuery, offset: number): SourcePage {
  const data = body.data;
  const records = data.slice(0, query.num).flatMap((item) => {
    const record = toDeezerRecord(item, query.kind);
    return record === null ? [] : [record];
  });
  const announced =
    nonEmpty(body.next) !== undefined || (isCount(body.total) && offset + data.length < body.total);
  const more = data.length > 0 && announced;
  return { records, next: more ? nextCursor(offset, query.num, "deezer") : null };
}

/** One search item → record; items of another type or without a name are skipped. */
export function toDeezerRecord(item: DeezerItem, kind: MusicKind): RecordDraft | null {
  if (item.type !== undefined && item.type !== kind) return null;
  if (kind === "track") return trackRecord(item);
  if (kind === "artist") return artistRecord(item);
  return albumRecord(item);
}

function trackRecord(t: DeezerTrack): RecordDraft | null {
  const title = nonEmpty(t.title);
  if (title === undefined) return null;
  const url = nonEmpty(t.link);
  const artist = nonEmpty(t.artist?.name);
  const albumTitle = nonEmpty(t.album?.title);
  const duration = isCount(t.duration) ? formatDuration(t.duration) : undefined;
  const explicit = typeof t.explicit_lyrics === "boolean" ? t.explicit_lyrics : undefined;
  const preview = nonEmpty(t.preview);
  const summary = defined({
    kind: "track",
    url,
    artist,
    album: albumTitle,
    duration,
    explicit,
    preview_url: preview,
  });
  const album =
    albumTitle === undefined
      ? undefined
      : defined({
          title: albumTitle,
          url: albumPage(t.album?.id),
          cover: image(t.album?.cover_medium, t.album?.cover),
        });
  const detail = defined({
    kind: "track",
    title,
    url,
    artist,
    album,
    duration,
    duration_seconds: isCount(t.duration) ? t.duration : undefined,
    explicit,
    preview_url: preview,
    metadata: metadata({ deezer_id: t.id, rank: t.rank, artist_id: t.artist?.id, album_id: t.album?.id }),
  });
  const links = linkList([
    ["Track on Deezer", url],
    ["Artist on Deezer", nonEmpty(t.artist?.link)],
    ["Album on Deezer", albumPage(t.album?.id)],
    ["30-second preview (MP3)", preview],
  ]);
  return withRelease({ title, ...summary }, t.id, t.album?.id, detail, links);
}

function artistRecord(a: DeezerArtist): RecordDraft | null {
  const name = nonEmpty(a.name);
  if (name === undefined) return null;
  const url = nonEmpty(a.link);
  const picture = image(a.picture_medium, a.picture);
  const fans = isCount(a.nb_fan) ? a.nb_fan : undefined;
  const albums = isCount(a.nb_album) ? a.nb_album : undefined;
  const summary = defined({ kind: "artist", url, fans, albums, picture });
  const detail = defined({
    kind: "artist",
    title: name,
    name,
    url,
    fans,
    albums,
    picture,
    metadata: metadata({ deezer_id: a.id, radio: a.radio }),
  });
  const links = linkList([
    ["Artist on Deezer", url],
    ["Picture (large)", image(a.picture_xl)],
  ]);
  return { summary: { title: name, ...summary }, ref: ref(a.id), detail, links };
}

function albumRecord(a: DeezerAlbum): RecordDraft | null {
  const title = nonEmpty(a.title);
  if (title === undefined) return null;
  const url = nonEmpty(a.link);
  const artist = nonEmpty(a.artist?.name);
  const tracks = isCount(a.nb_tracks) ? a.nb_tracks : undefined;
  const type = nonEmpty(a.record_type);
  const cover = image(a.cover_medium, a.cover);
  const summary = defined({ kind: "album", url, artist, tracks, type, cover });
  const detail = defined({
    kind: "album",
    title,
    url,
    artist,
    tracks,
    type,
    cover,
    explicit: typeof a.explicit_lyrics === "boolean" ? a.explicit_lyrics : undefined,
    metadata: metadata({ deezer_id: a.id, genre_id: a.genre_id, artist_id: a.artist?.id }),
  });
  const links = linkList([
    ["Album on Deezer", url],
    ["Artist on Deezer", nonEmpty(a.artist?.link)],
    ["Cover (large)", image(a.cover_xl)],
  ]);
  return withRelease({ title, ...summary }, a.id, a.id, detail, links);
}

/**
 * A track or album record whose detail needs the album's release date. With an album id, the
 * detail and links wait in `ref` and no detail is stored (the first `details` call fetches the
 * album, see completeDeezerDetail); without one there is nothing to ask, so the detail is stored
 * now with `release: null`.
 */
function withRelease(
  summary: RecordDraft["summary"],
  deezerId: number | undefined,
  albumId: number | undefined,
  detail: JsonObject,
  links: Link[],
): RecordDraft {
  if (!isAlbumId(albumId)) {
    return { summary, ref: ref(deezerId), detail: addRelease(detail, null), links };
  }
  const pending = links.map(({ label, url }) => ({ label, url }));
  return { summary, ref: { ...ref(deezerId), album_id: albumId, detail, links: pending } };
}

function isAlbumId(id: unknown): id is number {
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0;
}

/** `release` goes before `metadata`, so it reads with the other facts; every other key is kept. */
function addRelease(detail: JsonObject, release: JsonObject | null): JsonObject {
  const { metadata: meta, ...facts } = detail;
  return meta === undefined ? { ...facts, release } : { ...facts, release, metadata: meta };
}

/** What a track or album record keeps in `ref` until its first `details` call. */
export interface PendingDeezerDetail {
  albumId: number;
  detail: JsonObject;
  links: Link[];
}

/** The pending detail in a record's `ref`, or null when the record has none (its detail is stored). */
export function pendingDeezerDetail(stored: JsonObject | null): PendingDeezerDetail | null {
  if (stored === null || stored.source !== "deezer" || !isAlbumId(stored.album_id)) return null;
  const detail = stored.detail;
  if (detail === null || typeof detail !== "object" || Array.isArray(detail)) return null;
  const links = Array.isArray(stored.links) ? stored.links : [];
  return {
    albumId: stored.album_id,
    detail,
    links: links.flatMap((l) => {
      if (l === null || typeof l !== "object" || Array.isArray(l)) return [];
      return typeof l.label === "string" && typeof l.url === "string" ? [{ label: l.label, url: l.url }] : [];
    }),
  };
}

/**
 * `GET /album/{id}` body → the pending detail with `release`: the album's release facts (`title`,
 * `date` = Deezer's `release_date` as given, `type`, `barcode`, `label`; those the album has; null
 * when it has none of them). A Deezer error body (HTTP 200, e.g. DataException "no data" for an
 * unknown album) was refused before (deezerRefusal), and a body that is no album is drift: never a
 * detail without its release.
 */
export function completeDeezerDetail(
  pending: PendingDeezerDetail,
  body: DeezerAlbumBody,
): { detail: JsonObject; links: Link[] } {
  // The same keys as a MusicBrainz record's release facts (musicbrainz.ts, releaseFacts), so
  // `release` reads alike whichever source answered.
  const facts = defined({
    title: nonEmpty(body.title),
    date: nonEmpty(body.release_date),
    type: nonEmpty(body.record_type)?.toLowerCase(),
    barcode: nonEmpty(body.upc),
    label: nonEmpty(body.label),
  });
  const release = Object.keys(facts).length > 0 ? facts : null;
  return { detail: addRelease(pending.detail, release), links: pending.links };
}

function albumPage(id: number | undefined): string | undefined {
  return typeof id === "number" ? `https://www.deezer.com/album/${id}` : undefined;
}

function metadata(fields: Record<string, number | boolean | undefined>): JsonObject {
  return defined({ source: "deezer", ...fields });
}

/**
 * The first image URL given, unless it is Deezer's placeholder for "no image": items without
 * artwork still get a CDN address with an empty hash segment (`/images/artist//250x250-….jpg`),
 * and then the generic `/artist/{id}/image` address only redirects to that placeholder too.
 */
function image(...candidates: (string | undefined)[]): string | undefined {
  for (const candidate of candidates) {
    const url = nonEmpty(candidate);
    if (url === undefined) continue;
    return /\/images\/[a-z]+\/\//.test(url) ? undefined : url;
  }
  return undefined;
}

function ref(id: number | undefined): JsonObject {
  return defined({ source: "deezer", deezer_id: id });
}

function linkList(pairs: [label: string, url: string | undefined][]): Link[] {
  return pairs.flatMap(([label, url]) => (url === undefined ? [] : [{ label, url }]));
}

/** The live check's probe: one album by id (a free lookup, keyless; Daft Punk's Discovery). */
export const deezerProbe: ProviderProbe = {
  provider: "deezer",
  what: "one album by id (free)",
  request: toDeezerAlbumRequest(302127),
};
