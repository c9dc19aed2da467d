/**
 * academic.search: scholarly works from the OpenAlex works index (free, keyless), with year,
 * open-access and sort options, page paging, and fetched-then-cached `details` per work.
 */
import { Type } from "@sinclair/typebox";
import { ApiError, unknownRecordAction, type Violation } from "../../errors.ts";
import type {
  ActionResult,
  Capability,
  CapabilityContext,
  JsonValue,
  SearchPage,
  StoredRecordView,
} from "../types.ts";
import {
  type AcademicQuery,
  type AcademicSort,
  bareOpenAlexId,
  cursorPage,
  type OpenAlexList,
  type OpenAlexWork,
  toDetail,
  toDetailRequest,
  toPage,
  toRequest,
} from "./openalex.ts";

const SORTS: AcademicSort[] = ["relevance", "cited", "recent"];

export const academicSearchSchema = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: 500,
      description: "Words to find in titles and abstracts.",
    }),
    from_year: Type.Optional(
      Type.Integer({ minimum: 1000, maximum: 2100, description: "Earliest publication year (inclusive); not after `to_year`." }),
    ),
    to_year: Type.Optional(
      Type.Integer({ minimum: 1000, maximum: 2100, description: "Latest publication year (inclusive); not before `from_year`." }),
    ),
    open_access_only: Type.Optional(
      Type.Boolean({ default: false, description: "Only works with a free full text." }),
    ),
    sort: Type.Optional(
      Type.Unsafe<AcademicSort>({
        type: "string",
        enum: SORTS,
        default: "relevance",
        description: "`relevance`, `cited` (most cited first) or `recent` (newest first).",
      }),
    ),
    num: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 25, default: 10, description: "Results per page." }),
    ),
  },
  { additionalProperties: false },
);

/**
 * Cross-field rule: a year range must not be inverted. Reported at `from_year`, or at `to_year` when
 * only that was sent (an update moving the end of a stored range before its start).
 */
export function checkAcademicRules(query: AcademicQuery, sent?: ReadonlySet<string>): Violation[] {
  if (query.from_year !== undefined && query.to_year !== undefined && query.from_year > query.to_year) {
    if (sent !== undefined && !sent.has("from_year") && sent.has("to_year")) {
      return [{ path: "/to_year", message: `to_year must not be before from_year (${query.from_year}, from the search).` }];
    }
    const stored = sent !== undefined && !sent.has("to_year") ? ` (${query.to_year}, from the search)` : "";
    return [{ path: "/from_year", message: `from_year must not exceed to_year${stored}.` }];
  }
  return [];
}

async function search(ctx: CapabilityContext, query: AcademicQuery, cursor: JsonValue): Promise<SearchPage> {
  const page = cursorPage(cursor);
  const response = await ctx.upstream.send<OpenAlexList>(toRequest(query, page), ctx.signal);
  return toPage(response.body, page, query.num);
}

async function runAction(
  ctx: CapabilityContext,
  action: string,
  record: StoredRecordView,
): Promise<ActionResult> {
  if (action !== "details") throw unknownRecordAction("academic.search", action, ["details"]);
  const stored = record.ref?.openalex_id;
  const openalexId = typeof stored === "string" ? bareOpenAlexId(stored) : null;
  if (openalexId === null) {
    throw new ApiError(
      "invalid_request",
      "This record has no stored works-index id, so details cannot be fetched.",
      {
        violations: [
          { path: "/record_id", message: "The record carries no OpenAlex work id (openalex_id)." },
        ],
      },
    );
  }
  const response = await ctx.upstream.send<OpenAlexWork>(toDetailRequest(openalexId), ctx.signal);
  const { detail, links } = toDetail(response.body, openalexId);
  return { detail, links, credits: 0, costUsd: 0 };
}

/** Record keys of spec 4.6: all when the source has them, `openalex_id` always. */
const academicRecordKeys = Type.Object({
  year: Type.Optional(Type.Integer({ description: "Publication year." })),
  venue: Type.Optional(Type.String({ description: "Journal, conference or repository." })),
  authors: Type.Optional(Type.Array(Type.String())),
  cited_by: Type.Optional(Type.Integer({ minimum: 0, description: "Citation count." })),
  type: Type.Optional(Type.String({ description: "Work type (article, book, preprint…)." })),
  open_access: Type.Optional(Type.Boolean()),
  oa_url: Type.Optional(Type.String({ description: "Best open-access URL." })),
  doi: Type.Optional(Type.String({ description: "DOI without the https://doi.org/ prefix." })),
  openalex_id: Type.String({ description: "The works-index (OpenAlex) id, e.g. W2741809807." }),
});

export const academicSearch: Capability<AcademicQuery> = {
  id: "academic.search",
  title: "Academic works search",
  summary:
    "Find scholarly works (articles, books, preprints) with authors, venue, citations and open access.",
  description:
    "Searches the OpenAlex works index. Filter by publication year range (`from_year` must not exceed " +
    "`to_year`) and open access, sort by " +
    "relevance, citations or recency. Each record carries the bare OpenAlex work id (`openalex_id`) and, " +
    "when the source has them, year, venue, authors, citation count, type, open-access state and URL, and " +
    "DOI; the snippet is the start of the abstract. `details` fetches the full abstract, citation counts " +
    "per year, the open-access PDF and the landing page (free, cached after the first call).",
  topic: "research and reading",
  schema: academicSearchSchema,
  recordKeys: academicRecordKeys,
  paging: "page",
  deadlineMs: 15_000,
  typicalCredits: 0,
  costBasis: "Free: OpenAlex is a free public index; searches and details cost 0 credits.",
  requiredKeys: [],
  offersUpdate: true,
  maxCredits: () => 0,
  pageSize: (query) => query.num,
  checkRules: checkAcademicRules,
  search,
  recordActions: [
    {
      name: "details",
      description: "Abstract, citation counts, open-access PDF and landing page of the work (free, cached).",
      mode: "fetched",
      credits: 0,
    },
  ],
  runAction,
  examples: [
    { title: "Works about the state of open access", body: { query: "state of open access" } },
    {
      title: "Most cited open-access works on the open access citation advantage, 2015-2020",
      body: {
        query: "open access citation advantage",
        from_year: 2015,
        to_year: 2020,
        open_access_only: true,
        sort: "cited",
        num: 5,
      },
    },
  ],
  updateExample: { title: "The same works, most cited first", params: { sort: "cited" } },
};
