/**
 * SerpApi `google_jobs` adapter for jobs.search: pure mappers from a validated query and a page
 * token to the upstream request (with its answer schema), and from one SerpApi answer to its job
 * records (each with its stored detail: the full listing and its application links) and the next
 * page's token. No I/O.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import type { ProviderPage } from "../framework/cursors.ts";
import { arr, clip, defined, httpUrl, type Obj, obj, str, strings } from "../shared/read.ts";
import { nextPageToken, objects, type SerpAnswer, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, JsonValue, Link, RecordDraft } from "../types.ts";
import type { JobsSearchQuery } from "./schema.ts";

export const SOURCE = "Google Jobs via SerpApi";

/** Listings Google Jobs answers a page (SerpApi's google_jobs documentation). */
export const JOBS_PER_PAGE = 10;

const MAX_DESCRIPTION_CHARS = 20_000;
const SNIPPET_CHARS = 300;

const link = Type.Object({ title: Type.Optional(Type.String()), link: Type.Optional(Type.String()) });

/**
 * The fields of a google_jobs answer the mapper reads: the listings (each with its title) and the
 * next page's token, in either place SerpApi has put it. A search that found nothing is SerpApi's
 * "no results" answer (passed on unchecked), so `jobs_results` is required here.
 */
export const jobsAnswer = Type.Object({
  jobs_results: Type.Array(
    Type.Object({
      title: Type.String(),
      company_name: Type.Optional(Type.String()),
      location: Type.Optional(Type.String()),
      via: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      share_link: Type.Optional(Type.String()),
      extensions: Type.Optional(Type.Array(Type.String())),
      detected_extensions: Type.Optional(
        Type.Object({
          posted_at: Type.Optional(Type.String()),
          schedule_type: Type.Optional(Type.String()),
          salary: Type.Optional(Type.String()),
        }),
      ),
      job_highlights: Type.Optional(
        Type.Array(
          Type.Object({
            title: Type.Optional(Type.String()),
            items: Type.Optional(Type.Array(Type.String())),
          }),
        ),
      ),
      apply_options: Type.Optional(Type.Array(link)),
    }),
  ),
  serpapi_pagination: Type.Optional(Type.Object({ next_page_token: Type.Optional(Type.String()) })),
  next_page_token: Type.Optional(Type.String()),
});
export type JobsAnswer = Static<typeof jobsAnswer>;

/** `GET /search.json?engine=google_jobs&q=&gl=&hl=&location=&next_page_token=`. */
export function toRequest(query: JobsSearchQuery, token: JsonValue): JsonRequest<typeof jobsAnswer> {
  return serpApiRequest(
    "google_jobs",
    {
      q: query.query,
      gl: query.country?.toLowerCase(),
      hl: query.language,
      location: query.location,
      next_page_token: typeof token === "string" ? token : undefined,
    },
    jobsAnswer,
  );
}

/** One provider page: its listings as records, and the token of the next page (null at the end). */
export function toProviderPage(answer: SerpAnswer): ProviderPage<RecordDraft> {
  if (answer.noResults) return { items: [], next: null };
  const items = objects(answer.root, "jobs_results")
    .map(toRecord)
    .filter((r): r is RecordDraft => r !== undefined);
  return { items, next: nextPageToken(answer.root) ?? null };
}

function toRecord(job: Obj): RecordDraft | undefined {
  const title = str(job.title);
  if (title === undefined) return undefined;
  const found = obj(job.detected_extensions) ?? {};
  const applyOptions = applyOptionsOf(job.apply_options);
  const shareLink = httpUrl(job.share_link);
  const description = str(job.description);
  const via = str(job.via);
  const company = str(job.company_name);
  const location = str(job.location);
  const summary: RecordDraft["summary"] = {
    title,
    ...defined({
      url: shareLink ?? applyOptions[0]?.url,
      snippet: description === undefined ? via : clip(description, SNIPPET_CHARS),
      company,
      location,
      posted_at: str(found.posted_at),
      schedule: str(found.schedule_type),
      salary: str(found.salary),
    }),
    source: SOURCE,
  };
  const detail = defined({
    title,
    company,
    location,
    via,
    description: description === undefined ? undefined : clip(description, MAX_DESCRIPTION_CHARS),
    highlights: highlightsOf(job.job_highlights),
    extensions: strings(job.extensions),
    detected_extensions: Object.keys(found).length > 0 ? (found as JsonObject) : undefined,
    apply_options:
      applyOptions.length > 0 ? applyOptions.map((o) => ({ title: o.label, link: o.url })) : undefined,
    share_link: shareLink,
    source: SOURCE,
  });
  const links: Link[] = [
    ...applyOptions,
    ...(shareLink === undefined ? [] : [{ label: "Listing on Google Jobs", url: shareLink }]),
  ];
  return { summary, detail, links };
}

/** `apply_options[] {title, link}` as links (the ones with an http(s) link). */
function applyOptionsOf(value: unknown): Link[] {
  const out: Link[] = [];
  for (const option of (arr(value) ?? []).map(obj)) {
    const url = httpUrl(option?.link);
    if (url !== undefined) out.push({ label: str(option?.title) ?? "Apply", url });
  }
  return out;
}

/** `job_highlights[] {title, items[]}`: qualifications, responsibilities, benefits. */
function highlightsOf(value: unknown): JsonValue[] | undefined {
  const out = (arr(value) ?? [])
    .map(obj)
    .map((h) => defined({ title: str(h?.title), items: strings(h?.items) }))
    .filter((h) => h.items !== undefined);
  return out.length > 0 ? out : undefined;
}
