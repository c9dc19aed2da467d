/**
 * academic.search: scholarly works from the OpenAlex works index (free; with OPENALEX_API_KEY, or
 * keyless within OpenAlex's small daily allowance), with year, open-access and sort options, page
 * paging, and fetched-then-cached `details` per work.
 */
import { pageOf } from "../framework/cursors.ts";
import { Type } from "@sinclair/typebox";
import { free } from "../framework/costs.ts";
import { defineCapability } from "../framework/define.ts";
import { httpSource } from "../framework/http-source.ts";
import { range } from "../framework/rules.ts";
import { OPENALEX_WORK_ID_PATTERN, toDetail, toDetailRequest, toPage, toRequest } from "./openalex.ts";
import { DAY } from "../framework/durations.ts";
import { type AcademicSearchQuery, academicSearchSchema } from "./schema.ts";

export { type AcademicSearchQuery, academicSearchSchema } from "./schema.ts";

export const academicSearch = defineCapability({
  id: "academic.search",
  title: "Academic works search",
  summary: "Find scholarly works (articles, books, preprints) with authors, venue, citations and open access.",
  description:
    "Searches the OpenAlex works index. Filter by publication year range (`from_year` must not exceed " +
    "`to_year`) and open access, sort by " +
    "relevance, citations or recency. Each record carries the bare OpenAlex work id (`openalex_id`) and, " +
    "when the source has them, year, venue, authors, citation count, type, open-access state and URL, and " +
    "DOI; the snippet is the start of the abstract. `details` fetches the full abstract, citation counts " +
    "per year, the open-access PDF and the landing page (free, cached after the first call).",
  topic: "research and reading",
  schema: academicSearchSchema,
  recordKeys: Type.Object({
    year: Type.Optional(Type.Integer({ description: "Publication year." })),
    venue: Type.Optional(Type.String({ description: "Journal, conference or repository." })),
    authors: Type.Optional(Type.Array(Type.String())),
    cited_by: Type.Optional(Type.Integer({ minimum: 0, description: "Citation count." })),
    type: Type.Optional(Type.String({ description: "Work type (article, book, preprint…)." })),
    open_access: Type.Optional(Type.Boolean()),
    oa_url: Type.Optional(Type.String({ description: "Best open-access URL." })),
    doi: Type.Optional(Type.String({ description: "DOI without the https://doi.org/ prefix." })),
    openalex_id: Type.String({ description: "The works-index (OpenAlex) id, e.g. W2741809807." }),
  }),
  paging: "page",
  deadlineMs: 15_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free(
    "Free: OpenAlex is a free public index; searches and details cost 0 credits. OpenAlex meters its own API: " +
      "without OPENALEX_API_KEY a deployment gets about 100 searches a day in all, with a free key about 1,000.",
  ),
  rules: [range("from_year", "to_year")],
  sources: [
    httpSource({
      id: "openalex",
      title: "OpenAlex",
      provider: "openalex",
      request: (query: AcademicSearchQuery, cursor) => toRequest(query, pageOf(cursor)),
      toPage: (body, query, cursor) => toPage(body, pageOf(cursor), query.num),
    }),
  ],
  update: { example: { title: "The same works, most cited first", params: { sort: "cited" } } },
  actions: {
    details: {
      description: "Abstract, citation counts, open-access PDF and landing page of the work (free, cached).",
      mode: "fetched",
      needs: {
        ref: Type.Object({ openalex_id: Type.String({ pattern: OPENALEX_WORK_ID_PATTERN }) }),
        refusal: "The record carries no OpenAlex work id (openalex_id).",
        message: "This record has no stored works-index id, so details cannot be fetched.",
      },
      async run(ctx, record) {
        const openalexId = record.ref.openalex_id;
        const response = await ctx.upstream.send(toDetailRequest(openalexId), ctx.signal);
        return toDetail(response.body, openalexId);
      },
    },
  },
  examples: [
    { title: "Works about the state of open access", body: { query: "state of open access" } },
    {
      title: "Most cited open-access works on the open access citation advantage, 2015-2020",
      body: { query: "open access citation advantage", from_year: 2015, to_year: 2020, open_access_only: true, sort: "cited", num: 5 },
    },
  ],
});
