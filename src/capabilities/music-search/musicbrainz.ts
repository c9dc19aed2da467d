/**
 * MusicBrainz mappers for music.search (fallback source when Deezer fails): query →
 * `GET /ws/2/recording|artist|release?fmt=json`, search body → records with the smaller key set
 * (`country`, `disambiguation`, `musicbrainz_id` instead of Deezer's fans, pictures, previews). Each
 * request declares its answer (`musicBrainzSearch`, per kind: `count` and the entity list, each
 * entity with its id and title or name; the rest typed, optional and, where MusicBrainz sends null,
 * nullable), so a renamed list or field is drift, never an empty page. MusicBrainz's own error bodies
 * (`{"error": …}` with a 4xx) become provider_error with its words (`musicBrainzRefusal`); its 503
 * (rate limit) is the upstream client's. Pure, no I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import { ApiError } from "../../errors.ts";
import type { ProviderProbe } from "../../upstream/probe.ts";
import { nullish } from "../../upstream/response-check.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { JsonObject, JsonValue, Link, RecordDraft, SourcePage } from "../types.ts";
import {
  defined,
  formatDuration,
  isCount,
  type MusicKind,
  type MusicQuery,
  nextCursor,
  nonEmpty,
} from "./music-query.ts";

const optString = nullish(Type.String());
const optNumber = nullish(Type.Number());
const tags = nullish(Type.Array(Type.Object({ name: optString })));

const artistCredit = nullish(
  Type.Array(
    Type.Object({
      name: optString,
      joinphrase: optString,
      artist: nullish(Type.Object({ id: optString, name: optString })),
    }),
  ),
);

const releaseFields = {
  id: optString,
  title: optString,
  status: optString,
  date: optString,
  country: optString,
  disambiguation: optString,
  barcode: optString,
  score: optNumber,
  "track-count": optNumber,
  "artist-credit": artistCredit,
  "release-group": nullish(Type.Object({ id: optString, "primary-type": optString })),
};
const mbRelease = Type.Object(releaseFields);

const recordingFields = {
  id: Type.String(),
  title: Type.String(),
  length: optNumber,
  score: optNumber,
  disambiguation: optString,
  "first-release-date": optString,
  "artist-credit": artistCredit,
  releases: nullish(Type.Array(mbRelease)),
  isrcs: nullish(Type.Array(Type.String())),
  tags,
};

const artistFields = {
  id: Type.String(),
  name: Type.String(),
  "sort-name": optString,
  type: optString,
  score: optNumber,
  country: optString,
  disambiguation: optString,
  area: nullish(Type.Object({ name: optString })),
  "life-span": nullish(Type.Object({ begin: optString, end: optString })),
  tags,
};

/** The search answer per kind: `count` and the entity list, each entity with its id and title (name, for artists). */
export const musicBrainzSearch = {
  track: Type.Object({ count: Type.Number(), offset: optNumber, recordings: Type.Array(Type.Object(recordingFields)) }),
  artist: Type.Object({ count: Type.Number(), offset: optNumber, artists: Type.Array(Type.Object(artistFields)) }),
  album: Type.Object({
    count: Type.Number(),
    offset: optNumber,
    releases: Type.Array(Type.Object({ ...releaseFields, id: Type.String(), title: Type.String() })),
  }),
} as const;
type MusicBrainzSearchSchema = (typeof musicBrainzSearch)[MusicKind];

type MbRecording = Static<(typeof musicBrainzSearch)["track"]>["recordings"][number];
type MbArtist = Static<(typeof musicBrainzSearch)["artist"]>["artists"][number];
type MbRelease = Static<typeof mbRelease>;
type MbArtistCredit = Static<typeof artistCredit>;

/** A search answer of any kind, as the mapper reads it. */
export type MusicBrainzSearchBody = { count: number; offset?: number | null } & Partial<
  Static<(typeof musicBrainzSearch)["track"]> & Static<(typeof musicBrainzSearch)["artist"]> & Static<(typeof musicBrainzSearch)["album"]>
>;

/**
 * MusicBrainz's error answers (`{"error": "…", "help": "…"}` with a 400 or 404: a query it cannot
 * read) as provider_error with its words, not retried.
 */
export function musicBrainzRefusal(body: unknown, status: number): ApiError | undefined {
  if (status < 400 || status >= 500 || body === null || typeof body !== "object") return undefined;
  const said = nonEmpty((body as { error?: unknown }).error);
  if (said === undefined) return undefined;
  return new ApiError("provider_error", `MusicBrainz refused the search (HTTP ${status}): ${said}.`, {
    retryable: false,
    hint: "MusicBrainz refused this request; nothing was charged. The same request is likely to be refused again: change it.",
  });
}

const ENTITY: Record<MusicKind, "recording" | "artist" | "release"> = {
  track: "recording",
  artist: "artist",
  album: "release",
};
const LIST_KEY = { track: "recordings", artist: "artists", album: "releases" } as const;

/** Keys Deezer gives per kind that MusicBrainz has no value for. */
export const ABSENT_KEYS: Record<MusicKind, string[]> = {
  track: ["explicit", "preview_url"],
  artist: ["fans", "albums", "picture"],
  album: ["cover"],
};

/** The note every fallback page carries (spec: says the primary was unavailable and what is absent). */
export function fallbackNote(kind: MusicKind): string {
  return (
    "The primary music source (Deezer) was unavailable, so these results come from the MusicBrainz " +
    `fallback. Absent from these records: ${ABSENT_KEYS[kind].join(", ")}; ` +
    "present instead: country, disambiguation, musicbrainz_id (when MusicBrainz has them)."
  );
}

/** Lucene syntax characters, escaped so a plain query never turns into a syntax error. */
export function escapeLucene(text: string): string {
  return text.replace(/([+\-!(){}[\]^"~*?:\\/]|&&|\|\|)/g, "\\$1");
}

export function toMusicBrainzRequest(query: MusicQuery, offset: number): JsonRequest<MusicBrainzSearchSchema> {
  return {
    provider: "musicbrainz",
    method: "GET",
    path: `/ws/2/${ENTITY[query.kind]}`,
    query: { query: escapeLucene(query.query), offset, limit: query.num, fmt: "json" },
    response: musicBrainzSearch[query.kind],
    refusal: musicBrainzRefusal,
  };
}

/** Search body → page; more results while the page was not empty and `count` goes beyond it. */
export function toMusicBrainzPage(
  body: MusicBrainzSearchBody,
  query: MusicQuery,
  offset: number,
): SourcePage {
  const items: (MbRecording | MbArtist | MbRelease)[] = body[LIST_KEY[query.kind]] ?? [];
  const records = items.slice(0, query.num).flatMap((item) => {
    const record = toMusicBrainzRecord(item as MbRecording & MbArtist & MbRelease, query.kind);
    return record === null ? [] : [record];
  });
  const list = items;
  const more = list.length > 0 && isCount(body.count) && offset + list.length < body.count;
  return {
    records,
    next: more ? nextCursor(offset, query.num, "musicbrainz") : null,
  };
}

export function toMusicBrainzRecord(
  item: MbRecording & MbArtist & MbRelease,
  kind: MusicKind,
): RecordDraft | null {
  if (kind === "track") return recordingRecord(item);
  if (kind === "artist") return artistRecord(item);
  return releaseRecord(item);
}

function recordingRecord(r: MbRecording): RecordDraft | null {
  const id = nonEmpty(r.id);
  const title = nonEmpty(r.title);
  if (id === undefined || title === undefined) return null;
  const url = `https://musicbrainz.org/recording/${id}`;
  const artist = creditedArtist(r["artist-credit"]);
  const release = chooseRelease(r.releases);
  const durationSeconds = isCount(r.length) ? Math.round(r.length / 1000) : undefined;
  const duration = durationSeconds === undefined ? undefined : formatDuration(durationSeconds);
  const country = nonEmpty(release?.country);
  const disambiguation = nonEmpty(r.disambiguation);
  const album = nonEmpty(release?.title);
  const summary = defined({
    kind: "track",
    url,
    artist,
    album,
    duration,
    country,
    disambiguation,
    musicbrainz_id: id,
  });
  const detail = defined({
    kind: "track",
    title,
    url,
    artist,
    album:
      album === undefined ? undefined : defined({ title: album, url: releasePage(nonEmpty(release?.id)) }),
    duration,
    duration_seconds: durationSeconds,
    release: release === undefined ? undefined : releaseFacts(release),
    first_release_date: nonEmpty(r["first-release-date"]),
    releases: listOrUndefined((r.releases ?? []).slice(0, 10).map(releaseFacts)),
    isrcs: listOrUndefined((r.isrcs ?? []).filter((i) => typeof i === "string")),
    disambiguation,
    metadata: metadata(id, r.score, r.tags),
  });
  const links = linkList([
    ["Recording on MusicBrainz", url],
    ["Release on MusicBrainz", releasePage(release?.id)],
  ]);
  return { summary: { title, ...summary }, ref: ref(id), detail, links };
}

function artistRecord(a: MbArtist): RecordDraft | null {
  const id = nonEmpty(a.id);
  const name = nonEmpty(a.name);
  if (id === undefined || name === undefined) return null;
  const url = `https://musicbrainz.org/artist/${id}`;
  const country = nonEmpty(a.country);
  const disambiguation = nonEmpty(a.disambiguation);
  const summary = defined({ kind: "artist", url, country, disambiguation, musicbrainz_id: id });
  const lifeSpan = defined({ begin: nonEmpty(a["life-span"]?.begin), end: nonEmpty(a["life-span"]?.end) });
  const detail = defined({
    kind: "artist",
    title: name,
    name,
    url,
    type: nonEmpty(a.type),
    country,
    area: nonEmpty(a.area?.name),
    life_span: Object.keys(lifeSpan).length > 0 ? lifeSpan : undefined,
    disambiguation,
    sort_name: nonEmpty(a["sort-name"]),
    metadata: metadata(id, a.score, a.tags),
  });
  return {
    summary: { title: name, ...summary },
    ref: ref(id),
    detail,
    links: linkList([["Artist on MusicBrainz", url]]),
  };
}

function releaseRecord(r: MbRelease): RecordDraft | null {
  const id = nonEmpty(r.id);
  const title = nonEmpty(r.title);
  if (id === undefined || title === undefined) return null;
  const url = releasePage(id);
  const artist = creditedArtist(r["artist-credit"]);
  const tracks = isCount(r["track-count"]) ? r["track-count"] : undefined;
  // Lower-cased to match Deezer's record_type values (album, single, ep).
  const type = nonEmpty(r["release-group"]?.["primary-type"])?.toLowerCase();
  const country = nonEmpty(r.country);
  const disambiguation = nonEmpty(r.disambiguation);
  const summary = defined({
    kind: "album",
    url,
    artist,
    tracks,
    type,
    country,
    disambiguation,
    musicbrainz_id: id,
  });
  const detail = defined({
    kind: "album",
    title,
    url,
    artist,
    tracks,
    type,
    release: releaseFacts(r),
    disambiguation,
    metadata: metadata(id, r.score, undefined),
  });
  return {
    summary: { title, ...summary },
    ref: ref(id),
    detail,
    links: linkList([["Release on MusicBrainz", url]]),
  };
}

/** The release a recording is best known by: the first official one, else the first listed. */
function chooseRelease(releases: MbRelease[] | null | undefined): MbRelease | undefined {
  const list = releases ?? [];
  return list.find((r) => r.status === "Official") ?? list[0];
}

function releaseFacts(r: MbRelease): JsonObject {
  return defined({
    title: nonEmpty(r.title),
    date: nonEmpty(r.date),
    country: nonEmpty(r.country),
    status: nonEmpty(r.status),
    type: nonEmpty(r["release-group"]?.["primary-type"])?.toLowerCase(),
    barcode: nonEmpty(r.barcode),
    musicbrainz_id: nonEmpty(r.id),
  });
}

/** "A feat. B": credited names joined with their join phrases. */
function creditedArtist(credits: MbArtistCredit | undefined): string | undefined {
  if (credits === null || credits === undefined) return undefined;
  const text = credits.map((c) => `${c.name ?? c.artist?.name ?? ""}${c.joinphrase ?? ""}`).join("");
  return nonEmpty(text);
}

function releasePage(id: string | null | undefined): string | undefined {
  const bare = nonEmpty(id);
  return bare === undefined ? undefined : `https://musicbrainz.org/release/${bare}`;
}

function metadata(id: string, score: number | null | undefined, tags: { name?: string | null }[] | null | undefined): JsonObject {
  const names = (tags ?? []).flatMap((t) => (nonEmpty(t.name) === undefined ? [] : [String(t.name)]));
  return defined({
    source: "musicbrainz",
    musicbrainz_id: id,
    score: typeof score === "number" ? score : undefined,
    tags: listOrUndefined(names.slice(0, 10)),
  });
}

function listOrUndefined(list: JsonValue[]): JsonValue[] | undefined {
  return list.length > 0 ? list : undefined;
}

function ref(id: string): JsonObject {
  return { source: "musicbrainz", musicbrainz_id: id };
}

function linkList(pairs: [label: string, url: string | undefined][]): Link[] {
  return pairs.flatMap(([label, url]) => (url === undefined ? [] : [{ label, url }]));
}

/** The live check's probe: a one-artist search (free, keyless, paced to one request a second). */
export const musicBrainzProbe: ProviderProbe = {
  provider: "musicbrainz",
  what: "a one-artist search",
  request: toMusicBrainzRequest({ query: "YOASOBI", kind: "artist", num: 1 }, 0),
};
