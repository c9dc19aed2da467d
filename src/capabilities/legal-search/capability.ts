/**
 * legal.search (spec 4.6): court decisions and EU law, `search` a tagged union by `jurisdiction`.
 * `us`: CourtListener's case-law search (`COURTLISTENER_API_KEY`); `eu`: EUR-Lex works listed through
 * the Publications Office's CELLAR SPARQL endpoint (keyless). The variant follows
 * `search/jurisdiction`, so a deployment without the CourtListener key keeps `eu` working and answers
 * `us` 503 naming the variable. 4 credits ($0.004) a search in either jurisdiction; page paging;
 * records without `snippet`, each with the exact legal.read request for its text (`full_text`);
 * `details` is the stored candidate (free; gone → 410 session_expired).
 */
import { Type } from "@sinclair/typebox";
import { defineCapability, type NarrowedAt } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { notBlank, range } from "../framework/rules.ts";
import { COURTLISTENER } from "../shared/courtlistener.ts";
import { SOURCE_CLASSES } from "../shared/legal.ts";
import { parseEuCursor, toEuPage, toEuRequest } from "./cellar.ts";
import { toUsPage, toUsRequest } from "./courtlistener-search.ts";
import { sliceCursor } from "../framework/cursors.ts";
import { DAY } from "../framework/durations.ts";
import { type LegalSearchQuery, legalSearchSchema } from "./schema.ts";

export { type LegalSearchQuery, legalSearchSchema } from "./schema.ts";

/** The query each variant's source sees: `search` narrowed to its jurisdiction. */
type UsQuery = NarrowedAt<LegalSearchQuery, "search/jurisdiction", "us">;
type EuQuery = NarrowedAt<LegalSearchQuery, "search/jurisdiction", "eu">;

/** USD a search (either jurisdiction, PROVIDERS.md "4 credits a search"). */
export const SEARCH_USD = 0.004;

export const legalSearch = defineCapability({
  id: "legal.search",
  title: "Legal search",
  summary: "US court decisions (CourtListener) and EU legislation and case law (EUR-Lex), each with a typed request to read its text.",
  description:
    "Finds legal documents. `search` is {jurisdiction: us, query, courts (all, federal, state), from_year, to_year} — " +
    "US court decisions from CourtListener's case-law search (needs COURTLISTENER_API_KEY in the deployment), best " +
    "match first, years as filing dates — or {jurisdiction: eu, query, kind (judgment, legislation, opinion), language " +
    "(24 EU codes, default EN)} — EUR-Lex works listed by the Publications Office's CELLAR SPARQL endpoint whose title " +
    "in that language contains every word of the query, newest first. Records carry `identifier` (CELEX:…, or " +
    "courtlistener-cluster:…), `source` (eu_official, case_index) and `source_class` always, and when known " +
    "`language`, `ecli` (EU case law), `document_kind`, `court`, `date`, `citations` and `full_text`, the exact " +
    "legal.read request that reads the document section by section (free). Records carry no snippet: nothing is " +
    "paraphrased; read the text. `details` is the stored candidate.",
  topic: "research and reading",
  schema: legalSearchSchema,
  sourceChecked: ["search"],
  recordKeys: Type.Object({
    identifier: Type.String({ description: "The document's identifier: CELEX:<number> (EU) or courtlistener-cluster:<id> (US)." }),
    source: Type.String({ enum: ["eu_official", "case_index"], description: "Where the text is read: legal.read's `source`." }),
    source_class: Type.String({ enum: [...SOURCE_CLASSES], description: "official_publication (EUR-Lex) or institutional_transcription (CourtListener)." }),
    language: Type.Optional(Type.String({ description: "EU: the language of the title and text." })),
    ecli: Type.Optional(Type.String({ description: "European Case Law Identifier (EU case law)." })),
    document_kind: Type.Optional(Type.String({ description: "EU: judgment, legislation or opinion; US: judicial_opinion." })),
    court: Type.Optional(Type.String({ description: "US: the court's name." })),
    date: Type.Optional(Type.String({ description: "Date filed (US) or the document's date (EU), YYYY-MM-DD." })),
    citations: Type.Optional(Type.Array(Type.String(), { description: "US: reporter citations." })),
    full_text: Type.Optional(
      Type.Object(
        { capability: Type.Literal("legal.read"), params: Type.Object({ document: Type.Object({}, { additionalProperties: true }) }, { additionalProperties: true }) },
        { description: "The exact legal.read request for this document's text (POST it as that capability's execute body)." },
      ),
    ),
  }),
  paging: "page",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: {
    perCall: SEARCH_USD,
    basis: "4 credits ($0.004) a search, either jurisdiction; each `more` page and each `update` is a search; details are free.",
  },
  rules: [range("search/from_year", "search/to_year"), notBlank("search/query")],
  variants: {
    field: "search/jurisdiction",
    options: {
      us: {
        requiredKeys: ["COURTLISTENER_API_KEY"],
        sources: [
          httpSource({
            id: COURTLISTENER,
            title: "CourtListener",
            provider: COURTLISTENER,
            request: (query: UsQuery, cursor) => toUsRequest(query.search, sliceCursor(cursor)),
            toPage: (body, query, cursor, response) => toUsPage(response.status, body, query.num, sliceCursor(cursor)),
          }),
        ],
      },
      eu: {
        sources: [
          httpSource({
            id: "cellar",
            title: "EUR-Lex (Publications Office CELLAR)",
            provider: "eu_publications",
            request: (query: EuQuery, cursor) => toEuRequest(query.search, query.num, parseEuCursor(cursor)),
            toPage: (body, query, cursor) => toEuPage(body, query.search, query.num, parseEuCursor(cursor)),
          }),
        ],
      },
    },
  },
  update: {
    rule: "Params replace the stored fields: a `search` sent replaces the stored one whole (send every field of it you want kept); null restores a default. Billed as a search.",
    example: { title: "The same search, two records a page", params: { num: 2 } },
  },
  actions: {
    details: {
      description:
        "The stored search candidate (identifiers, court or CELLAR work, dates, citations) and `full_text`, the exact " +
        "legal.read request for the document's text. Free; stored at search time.",
      mode: "stored",
    },
  },
  examples: [
    { title: "US decisions matching “foo” (CourtListener's documented example search)", body: { search: { jurisdiction: "us", query: "foo", courts: "all" } } },
    {
      title: "EU legislation on privacy in electronic communications, in English",
      body: { search: { jurisdiction: "eu", query: "privacy electronic communications", kind: "legislation", language: "EN" } },
    },
    { title: "EU judgments on data retention", body: { search: { jurisdiction: "eu", query: "data retention", kind: "judgment", language: "EN" }, num: 2 } },
  ],
});
