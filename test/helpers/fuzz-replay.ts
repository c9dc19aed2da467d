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
  folder: string;
  path: string;
  query: Record<string, string>;
  /** An existing body file of the folder to answer with. */
  file: string;
}

const ANY = "...";

const CATCH_ALL: CatchAll[] = [
  { folder: "deezer", path: "/search", query: { q: ANY }, file: "search_simple.json" },
  { folder: "deezer", path: "/search/track", query: { q: ANY }, file: "search_simple.json" },
  { folder: "deezer", path: "/search/artist", query: { q: ANY }, file: "search_artist.json" },
  { folder: "deezer", path: "/search/album", query: { q: ANY }, file: "search_album.json" },
  {
    folder: "themealdb",
    path: "/api/json/v1/1/search.php",
    query: { s: ANY },
    file: "search_single_result.json",
  },
  {
    folder: "themealdb",
    path: "/api/json/v1/1/filter.php",
    query: { c: ANY },
    file: "filter_by_category.json",
  },
  {
    folder: "themealdb",
    path: "/api/json/v1/1/filter.php",
    query: { i: ANY },
    file: "filter_by_category.json",
  },
  {
    folder: "themealdb",
    path: "/api/json/v1/1/filter.php",
    query: { a: ANY },
    file: "filter_by_category.json",
  },
  { folder: "openalex", path: "/works", query: { search: ANY }, file: "works_list_synthetic_envelope.json" },
  {
    folder: "serpapi-google_finance",
    path: "/search.json",
    query: { engine: "google_finance", q: ANY },
    file: "quote.json",
  },
  // books.search, codehost.search and video.search (patents.search is a POST: its recording answers any body).
  { folder: "openlibrary", path: "/search.json", query: { q: ANY }, file: "search_denver.json" },
  { folder: "openlibrary", path: "/search.json", query: { author: ANY }, file: "search_denver.json" },
  { folder: "openlibrary", path: "/search.json", query: { subject: ANY }, file: "search_denver.json" },
  { folder: "github", path: "/search/repositories", query: { q: ANY }, file: "search_repositories.json" },
  { folder: "github", path: "/search/issues", query: { q: ANY }, file: "search_issues.json" },
  { folder: "github", path: "/search/code", query: { q: ANY }, file: "search_code.json" },
  { folder: "youtube", path: "/youtube/v3/search", query: { q: ANY }, file: "search_list_p1.json" },
];

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
