/**
 * Drift of SerpApi's engines read by patents.search, markets.quote, trends.search and jobs.search
 * (test/helpers/drift.ts): each serves a recording (or documented example) with one field its mapper
 * reads renamed, and must answer 502 naming SerpApi and the field, free, with a warning logged.
 */
import { driftSuite } from "./helpers/drift.ts";

const KLIMA = { query: "Klima", geo: "CH", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 };

driftSuite("SerpApi engines (patents, markets, trends, jobs): a changed answer is an error", [
  // google_patents: the results list, and one result's id (details need it).
  { provider: "serpapi", capability: "patents.search", body: { query: "(Coffee)" }, pointer: "/organic_results" },
  { provider: "serpapi", capability: "patents.search", body: { query: "(Coffee)" }, pointer: "/organic_results/0/patent_id" },
  // google_patents_details: the patent's publication number.
  { provider: "serpapi", capability: "patents.search", body: { query: "(Coffee)" }, action: "details", pointer: "/publication_number" },
  // google_finance: the quote's title.
  { provider: "serpapi", capability: "markets.quote", body: { symbol: "GOOGL:NASDAQ" }, pointer: "/summary/title" },
  // google_trends: each data type's dataset (the recorded series, a documented region breakdown).
  { provider: "serpapi", capability: "trends.search", body: KLIMA, pointer: "/interest_over_time" },
  { provider: "serpapi", capability: "trends.search", body: { ...KLIMA, data_type: "GEO_MAP", region: "REGION" }, pointer: "/interest_by_region" },
  { provider: "serpapi", capability: "trends.search", body: { ...KLIMA, data_type: "RELATED_QUERIES" }, pointer: "/related_queries" },
  // google_jobs: the listings, and a listing's title.
  { provider: "serpapi", capability: "jobs.search", body: { query: "Python HTML", language: "en" }, pointer: "/jobs_results" },
  { provider: "serpapi", capability: "jobs.search", body: { query: "Python HTML", language: "en" }, pointer: "/jobs_results/0/title" },
]);
