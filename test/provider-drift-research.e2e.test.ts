/**
 * Drift of the research and reading providers (test/helpers/drift.ts): each serves a recording with
 * one field its mapper reads renamed, and must answer 502 naming it, free, with a warning logged.
 */
import { driftSuite } from "./helpers/drift.ts";

driftSuite("research and reading providers: a changed answer is an error", [
  { provider: "openalex", capability: "academic.search", body: { query: "state of open access" }, pointer: "/results" },
  { provider: "openalex", capability: "academic.search", body: { query: "state of open access" }, action: "details", pointer: "/id" },
]);
