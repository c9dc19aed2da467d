/**
 * music.search: tracks, artists or albums from Deezer, with MusicBrainz as the fallback when Deezer
 * fails. Offset paging; the cursor remembers the source so `more` stays on it. Details are stored
 * at search time from the search answer (free, no provider call).
 */
import { Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { Capability, CapabilityContext, JsonValue, SearchPage } from "../types.ts";
import { type DeezerSearchBody, toDeezerPage, toDeezerRequest } from "./deezer.ts";
import { type MusicBrainzSearchBody, toMusicBrainzPage, toMusicBrainzRequest } from "./musicbrainz.ts";
import { MUSIC_KINDS, type MusicKind, type MusicQuery, parseCursor } from "./music-query.ts";

export const musicSearchSchema = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 300, description: "Track, artist or album words." }),
    kind: Type.Optional(
      Type.Unsafe<MusicKind>({
        type: "string",
        enum: MUSIC_KINDS,
        default: "track",
        description: "What to find: `track`, `artist` or `album`.",
      }),
    ),
    num: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 25, default: 10, description: "Results per page." }),
    ),
  },
  { additionalProperties: false },
);

async function fromDeezer(ctx: CapabilityContext, query: MusicQuery, offset: number): Promise<SearchPage> {
  const response = await ctx.upstream.send<DeezerSearchBody>(toDeezerRequest(query, offset), ctx.signal);
  return toDeezerPage(response.body, query, offset);
}

async function fromMusicBrainz(
  ctx: CapabilityContext,
  query: MusicQuery,
  offset: number,
): Promise<SearchPage> {
  const response = await ctx.upstream.send<MusicBrainzSearchBody>(
    toMusicBrainzRequest(query, offset),
    ctx.signal,
  );
  return toMusicBrainzPage(response.body, query, offset);
}

/** Deezer failures that the fallback answers; past the deadline there is no time left to try. */
function fallsBack(error: unknown, signal: AbortSignal): error is ApiError {
  return (
    error instanceof ApiError &&
    (error.code === "provider_error" || error.code === "provider_timeout") &&
    !signal.aborted
  );
}

/**
 * First slice: Deezer, else MusicBrainz. Later slices stay on the source of the first one, because
 * offsets into one source's result list mean nothing in the other's; a Deezer failure on a later
 * slice is reported (retryable) rather than switching lists mid-way.
 */
async function search(ctx: CapabilityContext, query: MusicQuery, cursor: JsonValue): Promise<SearchPage> {
  const { offset, source } = parseCursor(cursor);
  if (source === "musicbrainz") return fromMusicBrainz(ctx, query, offset);
  try {
    return await fromDeezer(ctx, query, offset);
  } catch (deezerError) {
    if (source !== null || !fallsBack(deezerError, ctx.signal)) throw deezerError;
    try {
      return await fromMusicBrainz(ctx, query, offset);
    } catch (fallbackError) {
      if (!(fallbackError instanceof ApiError)) throw fallbackError;
      throw new ApiError(
        fallbackError.code,
        `Both music sources failed. Deezer: ${deezerError.message} MusicBrainz: ${fallbackError.message}`,
        { cause: fallbackError, retryAfter: fallbackError.retryAfter },
      );
    }
  }
}

export const musicSearch: Capability<MusicQuery> = {
  id: "music.search",
  title: "Music search",
  summary: "Find tracks, artists or albums with durations, previews, fan counts and covers.",
  description:
    "Searches Deezer's catalog for tracks (default), artists or albums. Tracks carry artist, album, " +
    "duration (m:ss), explicit flag and a 30-second preview URL; artists carry fans, album count and " +
    "picture; albums carry artist, track count, type and cover. When Deezer is unavailable the search " +
    "falls back to MusicBrainz, whose records carry a smaller key set (country, disambiguation, " +
    "musicbrainz_id instead of previews, fans and pictures) and `notes[]` says which keys are absent; " +
    "`more` continues on the source that answered the first page. `details` is stored at search time " +
    "(album, duration, release, preview, metadata) and free.",
  topic: "media and entertainment",
  schema: musicSearchSchema,
  paging: "offset",
  deadlineMs: 15_000,
  typicalCredits: 0,
  costBasis: "Free: Deezer and MusicBrainz are free public APIs; searches and details cost 0 credits.",
  requiredKeys: [],
  offersUpdate: true,
  maxCredits: () => 0,
  pageSize: (query) => query.num,
  search,
  recordActions: [
    {
      name: "details",
      description: "Album, duration, release, preview and source metadata, stored at search time (free).",
      mode: "stored",
      credits: 0,
    },
  ],
  examples: [
    { title: "Tracks called Soliloquy", body: { query: "Soliloquy" } },
    { title: "Albums by Daft Punk", body: { query: "Daft Punk", kind: "album", num: 5 } },
    { title: "The artist YOASOBI", body: { query: "YOASOBI", kind: "artist" } },
  ],
};
