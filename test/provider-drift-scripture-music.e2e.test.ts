/**
 * Drift of the scripture and music providers (test/helpers/drift.ts): each serves a recording (or a
 * documented answer) with one field its mapper reads renamed, and must answer 502 naming the
 * provider and the field, free, with a warning logged. Where a chain has a fallback, the case is one
 * the fallback cannot answer (bible-api.com in the WEB: the shipped KJV holds only the KJV; a Deezer
 * search MusicBrainz has no recording for), so the drift is what the caller sees.
 */
import { driftSuite } from "./helpers/drift.ts";

const QURAN_FOUNDATION = { QURAN_CLIENT_ID: "drift-client", QURAN_CLIENT_SECRET: "drift-secret" };

driftSuite("scripture and music providers: a changed answer is an error", [
  // bible-api.com's passage: a verse's text renamed.
  { provider: "bibleapi", capability: "scripture.search", body: { text: "bible", reference: "John 3:16", translation: "web" }, pointer: "/verses/0/text" },
  // quran.com (keyless): a verse by key, the legacy search, a surah page (details).
  { provider: "quran", capability: "scripture.search", body: { text: "quran", reference: "1:1" }, pointer: "/verse/verse_key" },
  { provider: "quran", capability: "scripture.search", body: { text: "quran", query: "mercy" }, pointer: "/search/results" },
  { provider: "quran", capability: "scripture.search", body: { text: "quran", reference: "1:1" }, action: "details", pointer: "/verses" },
  // The Quran Foundation's Search API, with a client configured (its documented answer).
  { provider: "quran-search", capability: "scripture.search", body: { text: "quran", query: "mercy" }, pointer: "/result", env: QURAN_FOUNDATION },
  // Deezer: a search list (MusicBrainz has no recording of this search, so no fallback answers) and an album.
  { provider: "deezer", capability: "music.search", body: { query: "Soliloquy" }, pointer: "/data" },
  { provider: "deezer", capability: "music.search", body: { query: "Daft Punk", kind: "album", num: 5 }, action: "details", pointer: "/id" },
  // MusicBrainz (the fallback; Deezer has no recording of these searches): an artist list, a recording's title.
  { provider: "musicbrainz", capability: "music.search", body: { query: "YOASOBI", kind: "artist" }, pointer: "/artists" },
  { provider: "musicbrainz", capability: "music.search", body: { query: "ミックスナッツ" }, pointer: "/recordings/0/title" },
]);
