/**
 * A "wildcard" copy of the recorded fixtures for the fuzzer: the real recordings plus one catch-all
 * recording per search endpoint of the reference capabilities (a `...` placeholder matches any
 * value), so a VALID but hostile query (NUL, lone surrogates, emoji, maximum lengths) gets a 200
 * from the upstream and its session, records and charge are really written to the store.
 * Written to a temp dir; fixtures/ is never touched.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURES = fileURLToPath(new URL("../../fixtures/providers/", import.meta.url));

interface CatchAll {
  /** The capability whose searches this answers (the hostile-valid fuzz runs only those with one). */
  capability: string;
  folder: string;
  path: string;
  query: Record<string, string>;
  /** An existing body file of the folder to answer with. */
  file: string;
}

const ANY = "...";

const CATCH_ALL: CatchAll[] = [
  { capability: "music.search", folder: "deezer", path: "/search", query: { q: ANY }, file: "search_simple.json" },
  { capability: "music.search", folder: "deezer", path: "/search/track", query: { q: ANY }, file: "search_simple.json" },
  { capability: "music.search", folder: "deezer", path: "/search/artist", query: { q: ANY }, file: "search_artist.json" },
  { capability: "music.search", folder: "deezer", path: "/search/album", query: { q: ANY }, file: "search_album.json" },
  {
    capability: "recipes.search",
    folder: "themealdb",
    path: "/api/json/v1/1/search.php",
    query: { s: ANY },
    file: "search_single_result.json",
  },
  {
    capability: "recipes.search",
    folder: "themealdb",
    path: "/api/json/v1/1/filter.php",
    query: { c: ANY },
    file: "filter_by_category.json",
  },
  {
    capability: "recipes.search",
    folder: "themealdb",
    path: "/api/json/v1/1/filter.php",
    query: { i: ANY },
    file: "filter_by_category.json",
  },
  {
    capability: "recipes.search",
    folder: "themealdb",
    path: "/api/json/v1/1/filter.php",
    query: { a: ANY },
    file: "filter_by_category.json",
  },
  { capability: "academic.search", folder: "openalex", path: "/works", query: { search: ANY }, file: "works_list_synthetic_envelope.json" },
  {
    capability: "markets.quote",
    folder: "serpapi-google_finance",
    path: "/search.json",
    query: { engine: "google_finance", q: ANY },
    file: "quote.json",
  },
  { capability: "scripture.search", folder: "bibleapi", path: "/{reference}", query: { translation: ANY }, file: "john_3_16_web.json" },
  { capability: "scripture.search", folder: "quran", path: "/search", query: { q: ANY }, file: "search_v4_mercy_documented.json" },
  { capability: "scripture.search", folder: "quran", path: "/verses/by_key/{key}", query: { translations: ANY }, file: "verses_by_key_1_1_translation_131.json" },
  { capability: "scripture.search", folder: "quran", path: "/verses/by_chapter/{n}", query: { translations: ANY }, file: "verses_by_chapter_1_per_page_1_documented.json" },
  { capability: "hotels.search", folder: "serpapi-google_hotels", path: "/search.json", query: { engine: "google_hotels", q: ANY }, file: "search_hotels.json" },
  // Return flights (booking tokens, a departure_token echoed) answer one-way, outbound and return searches alike.
  {
    capability: "flights.search",
    folder: "serpapi-google_flights",
    path: "/search.json",
    query: { engine: "google_flights", departure_id: ANY },
    file: "return_flights_by_departure_token.json",
  },
  {
    capability: "places.search",
    folder: "serpapi-google_maps",
    path: "/search.json",
    query: { engine: "google_maps", type: "search", q: ANY },
    file: "search_local_results.json",
  },
  // books.search, codehost.search and video.search (patents.search is a POST: its recording answers any body).
  { capability: "books.search", folder: "openlibrary", path: "/search.json", query: { q: ANY }, file: "search_denver.json" },
  { capability: "books.search", folder: "openlibrary", path: "/search.json", query: { author: ANY }, file: "search_denver.json" },
  { capability: "books.search", folder: "openlibrary", path: "/search.json", query: { subject: ANY }, file: "search_denver.json" },
  { capability: "codehost.search", folder: "github", path: "/search/repositories", query: { q: ANY }, file: "search_repositories.json" },
  { capability: "codehost.search", folder: "github", path: "/search/issues", query: { q: ANY }, file: "search_issues.json" },
  { capability: "codehost.search", folder: "github", path: "/search/code", query: { q: ANY }, file: "search_code.json" },
  { capability: "video.search", folder: "youtube", path: "/youtube/v3/search", query: { q: ANY }, file: "search_list_p1.json" },
  // legal.search: CourtListener's case-law search and the CELLAR SPARQL endpoint, whatever the query.
  { capability: "legal.search", folder: "courtlistener", path: "/api/rest/v4/search/", query: { q: ANY }, file: "search_v4_q_foo.json" },
  { capability: "legal.search", folder: "eu_publications", path: "/webapi/rdf/sparql", query: { query: ANY }, file: "sparql_search_privacy_legislation_num3.json" },
];

/** The capabilities the catch-all recordings answer whatever the (valid) query. */
export const CATCH_ALL_CAPABILITIES: ReadonlySet<string> = new Set(CATCH_ALL.map((c) => c.capability));

/** Build the wildcard fixtures dir; returns it and a cleanup. */
export function wildcardFixtures(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "quarry-fuzz-fixtures-"));
  cpSync(FIXTURES, dir, { recursive: true });
  const byFolder = new Map<string, CatchAll[]>();
  for (const c of CATCH_ALL) byFolder.set(c.folder, [...(byFolder.get(c.folder) ?? []), c]);
  for (const [folder, list] of byFolder) {
    const indexPath = join(dir, folder, "index.json");
    const index = JSON.parse(readFileSync(indexPath, "utf8")) as unknown[];
    list.forEach((c, i) => {
      index.push({
        case: `fuzz_catch_all_${i}`,
        file: c.file,
        method: "GET",
        url_path: c.path,
        query: c.query,
        status: 200,
        content_type: "application/json; charset=utf-8",
        notes: "Fuzzer catch-all (test/helpers/fuzz-replay.ts): any value of the query matches.",
      });
    });
    writeFileSync(indexPath, JSON.stringify(index, null, 2));
  }
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
