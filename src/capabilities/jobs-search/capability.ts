/**
 * jobs.search (spec 4.6): job listings from Google Jobs through SerpApi's `google_jobs` engine.
 * Token paging (SerpApi's `next_page_token`), `num` listings a call cut from Google's pages of
 * about ten (framework/cursors.ts), 4 credits per SerpApi search read, details stored at search
 * time (the full listing and its application links, free).
 */
import { serpApiSourceOf } from "../shared/serpapi.ts";
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { collectPages } from "../framework/cursors.ts";
import { serpApiPagedCost, serpApiSearch } from "../shared/serpapi-paged.ts";
import { JOBS_PER_PAGE, SOURCE, toProviderPage, toRequest } from "./serpapi-jobs.ts";
import { HOUR } from "../framework/durations.ts";
import { type JobsSearchQuery, jobsSearchSchema } from "./schema.ts";

export { type JobsSearchQuery, jobsSearchSchema } from "./schema.ts";

/** Google pages of about ten: `num` needs ceil(num / 10) of them, one more when a call starts mid-page. */
export function maxJobRequests(query: Pick<JobsSearchQuery, "num">): number {
  return Math.ceil(query.num / JOBS_PER_PAGE) + 1;
}

export const jobsSearch = defineCapability({
  id: "jobs.search",
  title: "Job search",
  summary: "Job listings from Google Jobs with company, location, posting age, schedule and salary.",
  description:
    `Searches ${SOURCE}. Narrow by \`country\`, \`language\` and \`location\`. Records carry \`source\` ` +
    "always and `company`, `location`, `posted_at` (as the listing says, e.g. \"3 days ago\"), " +
    "`schedule` and `salary` when the listing has them; nothing is inferred. Google answers about ten " +
    "listings a page: a call returns `num` of them, reading the next Google page (token paging) when " +
    "one page does not hold enough, and `more` continues after the last listing returned. `details` " +
    "is the full listing stored at search time (description, highlights, extensions) with its " +
    "application links (free). `update` re-runs the search with merged params.",
  topic: "commerce",
  schema: jobsSearchSchema,
  recordKeys: Type.Object({
    company: Type.Optional(Type.String({ description: "Employer as the listing names it." })),
    location: Type.Optional(Type.String()),
    posted_at: Type.Optional(Type.String({ description: 'Posting age as the listing says it, e.g. "3 days ago".' })),
    schedule: Type.Optional(Type.String({ description: 'e.g. "Full-time".' })),
    salary: Type.Optional(Type.String({ description: 'As the listing says it, e.g. "103K–104K a year".' })),
    source: Type.String({ description: "Where the listing was found (Google Jobs via SerpApi)." }),
  }),
  paging: "token",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: serpApiPagedCost(
    maxJobRequests,
    "4 credits ($0.004) per SerpApi search read: one Google Jobs page of about ten listings. A call " +
      "reads the pages its `num` needs (ceil(num / 10), one more when it starts mid-page), billed as " +
      "SerpApi answers, also when it finds nothing; `more` and `update` are billed the same; `details` is free.",
  ),
  sources: [
    {
      ...serpApiSourceOf("Google Jobs"),
      async search(ctx, query, cursor) {
        const got = await collectPages({
          cursor,
          want: query.num,
          maxRequests: maxJobRequests(query),
          fetch: async (token) => toProviderPage(await serpApiSearch(ctx, toRequest(query, token))),
        });
        return { records: got.items, next: got.next };
      },
    },
  ],
  update: { example: { title: "The same search, five listings a call", params: { num: 5 } } },
  actions: {
    details: {
      description: "The full listing stored at search time: description, highlights, extensions and application links. Free.",
      mode: "stored",
    },
  },
  examples: [
    { title: "Python and HTML jobs, English labels", body: { query: "Python HTML", language: "en" } },
    { title: "Barista jobs in New York, four a call", body: { query: "barista", location: "New York, New York, United States", country: "us", language: "en", num: 4 } },
  ],
});
