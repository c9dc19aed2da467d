/**
 * patents.search: patents and applications of every office Google Patents covers, through SerpApi's
 * `google_patents` engine (search) and `google_patents_details` (details), on the deployment's
 * SerpApi key. PatentsView, the previous source, was retired into the USPTO Open Data Portal on
 * 2026-03-20 (docs/providers.md says why SerpApi and not the Portal). The spec shows neither fields
 * nor records (2.11, 4.6: "not shown"); this is Quarry's design, in the style of the others and
 * documented in inspect, OpenAPI and docs/providers.md: words (all, any, or a phrase), a publication
 * date range, assignee, inventor, patent offices and status filters, relevance or date order; records
 * with the publication number, title, dates, first assignee and inventor; page paging cut from SerpApi
 * pages of at least 10; `details` (claims, description excerpt, citations, family, legal events)
 * fetched once for 4 credits, then cached.
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { atLeastOne, custom, range, sentPointer, validDate } from "../framework/rules.ts";
import { collectPages } from "../framework/cursors.ts";
import { SERPAPI_DETAIL_COST, serpApiSourceOf } from "../shared/serpapi.ts";
import { serpApiPagedCost, serpApiSearch } from "../shared/serpapi-paged.ts";
import {
  descriptionExcerpt,
  PATENT_ID_PATTERN,
  pageOf,
  type PatentsAnswer,
  SERPAPI_MIN_NUM,
  toDescriptionRequest,
  toDetail,
  toDetailRequest,
  toProviderPage,
  toSearchRequest,
} from "./google-patents.ts";
import { type PatentsSearchQuery, patentsSearchSchema } from "./schema.ts";
import { DAY } from "../framework/durations.ts";

export { type PatentsSearchQuery, patentsSearchSchema } from "./schema.ts";

/**
 * `match` needs `query`. The vocabulary's `requires` says this, but publishes it as
 * `dependentRequired`, which the schema fuzzer's oracle (test/helpers/fuzz-schema.ts) does not know
 * yet; this rule reports the same violation at the same pointers without a schema fragment.
 */
export const matchNeedsQuery = custom("`match` requires `query`.", (input) => {
  if (input.query.match === undefined || input.query.query !== undefined) return [];
  const { path, stored } = sentPointer(input, "match", "query");
  return [{ path, message: stored ? "`match` (from the search) requires `query`." : "`match` requires `query`." }];
});

/**
 * SerpApi pages hold `max(10, num)` results: with `num` 10 or more each call reads one page; below 10 a
 * call may end one page and start the next.
 */
export function maxPatentRequests(query: Pick<PatentsSearchQuery, "num">): number {
  return query.num < SERPAPI_MIN_NUM ? 2 : 1;
}

export const patentsSearch = defineCapability({
  id: "patents.search",
  title: "Patent search",
  summary: "Patents and applications worldwide from Google Patents by words, dates, assignee, inventor or office.",
  description:
    "Searches Google Patents (every office it covers: US, EP, WO, CN, JP, KR, DE…) through SerpApi. Filters, " +
    "all optional but at least one of `query`, `assignee`, `inventor`, `from_date`, `to_date` required, " +
    "combine: `query` (words anywhere in the patent's text; `match`: `all` words as written, the default, " +
    "which also reads Google Patents' syntax such as OR, NOT and parentheses; `any` of them; or the exact " +
    "`phrase`), `from_date`/`to_date` (publication date range, YYYY-MM-DD, valid dates, `from_date` not after " +
    "`to_date`), `assignee` and `inventor` (names as Google Patents writes them; commas separate " +
    "alternatives), `country` (patent offices, e.g. US,EP) and `status` (`granted` or `application`). " +
    "`sort`: `relevance` (default), or `newest`/`oldest` filing date first. Each record has `patent_id` " +
    "(the publication number with its office and kind code, e.g. US8110241B2), the title, the Google " +
    "Patents URL, Google's snippet and, when Google Patents has them, `priority_date`, `filing_date`, " +
    "`grant_date`, `publication_date`, the first `assignee` and `inventor` as listed, `language` and " +
    "`pdf_url`. Not offered (Google Patents' results carry neither): a patent's type, CPC classes and " +
    "citation count on the record (they are in `details`), grant-date ranges (dates bound the publication " +
    "date; a grant is published on its grant date). Page paging: `more` continues after the last record " +
    "returned. `details` (cached after the first call) gives the inventors and assignees, " +
    "dates and application number, abstract, claims (up to 100), an excerpt of the description, CPC " +
    "classifications, the family's applications with their legal status, citations and citing patents " +
    "(counts and the first 20), the timeline and the legal events, and the PDF link.",
  topic: "research and reading",
  schema: patentsSearchSchema,
  recordKeys: Type.Object({
    patent_id: Type.String({ description: "Publication number with office and kind code, e.g. US8110241B2, EP1627568A1." }),
    priority_date: Type.Optional(Type.String({ description: "Earliest priority date, YYYY-MM-DD." })),
    filing_date: Type.Optional(Type.String({ description: "Filing date, YYYY-MM-DD." })),
    grant_date: Type.Optional(Type.String({ description: "Grant date, YYYY-MM-DD (granted patents)." })),
    publication_date: Type.Optional(Type.String({ description: "Publication date of this document, YYYY-MM-DD." })),
    assignee: Type.Optional(Type.String({ description: "The first assignee Google Patents lists." })),
    inventor: Type.Optional(Type.String({ description: "The first inventor Google Patents lists." })),
    language: Type.Optional(Type.String({ description: "Language of the listed text, e.g. en." })),
    pdf_url: Type.Optional(Type.String({ description: "The patent document as a PDF." })),
  }),
  paging: "page",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: serpApiPagedCost(
    maxPatentRequests,
    "4 credits ($0.004) per SerpApi search read: one Google Patents page of max(10, num) results. A call " +
      "reads one page (two when `num` is under 10 and the call crosses a page end), billed as SerpApi " +
      "answers, also when it finds nothing; `more` and `update` are billed the same; `details` 4 credits " +
      "the first time, then cached.",
  ),
  rules: [
    atLeastOne(["query", "assignee", "inventor", "from_date", "to_date"], "Provide at least one of `query`, `assignee`, `inventor`, `from_date` or `to_date`."),
    matchNeedsQuery,
    validDate("from_date"),
    validDate("to_date"),
    range("from_date", "to_date"),
  ],
  sources: [
    {
      ...serpApiSourceOf("Google Patents"),
      async search(ctx, query, cursor) {
        const got = await collectPages({
          cursor,
          want: query.num,
          maxRequests: maxPatentRequests(query),
          fetch: async (page) => {
            const at = pageOf(page);
            // serpApiSearch reads any engine's answer; this one the client checked against `patentsAnswer`.
            const answer = await serpApiSearch(ctx, toSearchRequest(query, at));
            return toProviderPage({ root: answer.root as PatentsAnswer, noResults: answer.noResults }, at);
          },
        });
        return { records: got.items, next: got.next };
      },
    },
  ],
  update: { example: { title: "The same patents, oldest filing first", params: { sort: "oldest" } } },
  actions: {
    details: {
      description:
        "Inventors, assignees, dates, abstract, claims, a description excerpt, CPC classes, family, citations and legal events. 4 credits the first time, then cached.",
      mode: "fetched",
      cost: SERPAPI_DETAIL_COST,
      needs: {
        ref: Type.Object({ patent_id: Type.String({ pattern: PATENT_ID_PATTERN }) }),
        refusal: "The record carries no Google Patents id.",
        message: "This record has no stored patent id, so its details cannot be fetched.",
      },
      async run(ctx, record) {
        const id = record.ref.patent_id;
        const response = await ctx.upstream.send(toDetailRequest(id), ctx.signal);
        // The description is a page SerpApi links to (free: not a search); a missing one is left out.
        const page = toDescriptionRequest(response.body.description_link);
        let description: string | undefined;
        if (page !== undefined) {
          const text = await ctx.upstream.send(page, ctx.signal);
          if (text.status === 200) description = descriptionExcerpt(text.body);
        }
        return toDetail(response.body, id, description);
      },
    },
  },
  examples: [
    { title: "Patents about coffee (Google Patents query syntax)", body: { query: "(Coffee)" } },
    {
      title: "Granted US patents on foaming instant coffee published 2010-2015, oldest filing first",
      body: { query: "foaming instant coffee", country: "US", status: "granted", from_date: "2010-01-01", to_date: "2015-12-31", sort: "oldest" },
    },
    { title: "Patents by inventor Bary Lyn Zeller mentioning any of foam or froth", body: { inventor: "Bary Lyn Zeller", query: "foam froth", match: "any" } },
  ],
});
