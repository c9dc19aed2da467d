/**
 * Deezer mappers for music.search (primary source): query → `GET /search[/artist|/album]`, search
 * body → records with their stored details. Deezer reports errors inside HTTP 200 bodies
 * (`{"error":{...}}`); those become provider_error here, never an empty page. Pure, no I/O.
 */
import { ApiError } from "../../errors.ts";
import type { JsonObject, Link, RecordDraft, SearchPage } from "../types.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import {
  defined,
  formatDuration,
  isCount,
  type MusicKind,
  type MusicQuery,
  nextCursor,
  nonEmpty,
} from "./music-query.ts";

interface DeezerArtist {
  id?: number;
  name?: string;
  link?: string;
  picture?: string;
  picture_medium?: string;
  picture_xl?: string;
  nb_album?: number;
  nb_fan?: number;
  radio?: boolean;
  type?: string;
}

interface DeezerAlbum {
  id?: number;
  title?: string;
  link?: string;
  cover?: string;
  cover_medium?: string;
  cover_xl?: string;
  nb_tracks?: number;
  record_type?: string;
  genre_id?: number;
  explicit_lyrics?: boolean;
  artist?: DeezerArtist;
  type?: string;
}

interface DeezerTrack {
  id?: number;
  title?: string;
  link?: string;
  duration?: number;
  rank?: number;
  explicit_lyrics?: boolean;
  preview?: string;
  artist?: DeezerArtist;
  album?: DeezerAlbum;
  type?: string;
}

export type DeezerItem = DeezerTrack & DeezerArtist & DeezerAlbum;

export interface DeezerSearchBody {
  data?: DeezerItem[];
  total?: number;
  next?: string;
  error?: { type?: string; message?: string; code?: number };
}

/** Deezer's plain `/search` searches tracks; artists and albums have their own paths. */
const SEARCH_PATH: Record<MusicKind, string> = {
  track: "/search",
  artist: "/search/artist",
  album: "/search/album",
};

export function toDeezerRequest(query: MusicQuery, offset: number): UpstreamRequest {
  return {
    provider: "deezer",
    method: "GET",
    path: SEARCH_PATH[query.kind],
    query: { q: query.query, index: offset, limit: query.num },
  };
}

/** The provider error a Deezer error body stands for (`undefined` when the body is no error). */
export function deezerError(body: unknown): ApiError | undefined {
  if (body === null || typeof body !== "object" || !("error" in body)) return undefined;
  const error = (body as DeezerSearchBody).error ?? {};
  const parts = [nonEmpty(error.type), nonEmpty(error.message)].filter((p) => p !== undefined);
  const code = typeof error.code === "number" ? ` (code ${error.code})` : "";
  return new ApiError("provider_error", `Deezer reported: ${parts.join(": ") || "an error"}${code}.`);
}

/**
 * Search body → page. More results while the page was not empty and Deezer announces them
 * (a `next` link, or a `total` beyond this slice); the next offset is offset + num.
 */
export function toDeezerPage(body: DeezerSearchBody, query: MusicQuery, offset: number): SearchPage {
  const error = deezerError(body);
  if (error !== undefined) throw error;
  if (body === null || typeof body !== "object" || !Array.isArray(body.data)) {
    throw new ApiError("provider_error", "Deezer reported: the search answer has no data list.");
  }
  const data = body.data;
  const records = data.slice(0, query.num).flatMap((item) => {
    const record = toDeezerRecord(item, query.kind);
    return record === null ? [] : [record];
  });
  const announced =
    nonEmpty(body.next) !== undefined || (isCount(body.total) && offset + data.length < body.total);
  const more = data.length > 0 && announced;
  return { records, next: more ? nextCursor(offset, query.num, "deezer") : null, credits: 0, costUsd: 0 };
}

/** One search item → record; items of another type or without a name are skipped. */
export function toDeezerRecord(item: DeezerItem, kind: MusicKind): RecordDraft | null {
  if (item === null || typeof item !== "object") return null;
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
  return { summary: { title, ...summary }, ref: ref(t.id), detail, links };
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
  return { summary: { title, ...summary }, ref: ref(a.id), detail, links };
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
