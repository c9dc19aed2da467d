/**
 * trends.search (spec 4.6): search-interest datasets from Google Trends through SerpApi's
 * `google_trends` engine: interest over time, by region, related queries and related topics. Zero
 * or one record, `more` refused, `update` offered and billed like a search, the dataset stored.
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { custom, excludes, isIsoDate, requires, sentPointer, when } from "../framework/rules.ts";
import { serpApiSearchCost, serpApiSourceOf } from "../shared/serpapi.ts";
import { DATA_TYPES, trendsSearchSchema } from "./schema.ts";
import { SOURCE, termsOf, toPage, toRequest } from "./serpapi-trends.ts";
import { HOUR } from "../framework/durations.ts";

export { DATA_TYPES, PROPERTIES, REGIONS, TIME_RANGE_PATTERN, type TrendsSearchQuery, trendsSearchSchema } from "./schema.ts";

const RELATED = new Set(["RELATED_QUERIES", "RELATED_TOPICS"]);

/** Up to five terms; one for related queries and topics (pointer at `data_type` when an update changed only it). */
const terms = custom(
  "`query` holds at most five comma-separated terms, and exactly one for RELATED_QUERIES and RELATED_TOPICS.",
  (input) => {
    const { query } = input;
    const count = termsOf(String(query.query ?? "")).length;
    if (count > 5) return [{ path: "/query", message: `holds ${count} comma-separated terms; at most five are allowed.` }];
    if (count > 1 && RELATED.has(String(query.data_type))) {
      const at = sentPointer(input, "query", "data_type").path;
      return [{ path: at, message: `${query.data_type} takes one term; the query holds ${count}.` }];
    }
    return [];
  },
);

/** Two calendar days, the first not after the second. */
const dateRange = custom("A `time_range` of two dates names real days, the first not after the second.", ({ query }) => {
  const m = /^(\S+) (\S+)$/.exec(String(query.time_range ?? ""));
  if (m === null || !/^\d/.test(m[1]!)) return [];
  const [from, to] = [m[1]!, m[2]!];
  if (!isIsoDate(from) || !isIsoDate(to)) return [{ path: "/time_range", message: `must name real calendar days; "${query.time_range}" does not.` }];
  return from > to ? [{ path: "/time_range", message: `starts (${from}) after it ends (${to}).` }] : [];
});

export const trendsSearch = defineCapability({
  id: "trends.search",
  title: "Search trends",
  summary: "Google Trends datasets: interest over time, by region, related queries and related topics.",
  description:
    `One dataset from ${SOURCE} for up to five comma-separated terms (one for related queries and ` +
    "topics). `data_type` TIMESERIES gives interest over time, GEO_MAP interest by region (a compared " +
    "breakdown for several terms; `region` sets its resolution and only applies to it; COUNTRY needs " +
    "worldwide geography, so no `geo`), RELATED_QUERIES and RELATED_TOPICS the top and rising ones. " +
    "Values are Google's relative interest (0-100), not search counts. `property` picks web, images, " +
    "news, shopping or video search. Returns zero or one record carrying `data_type`, `time_range`, " +
    "`source` and `fetched_at`; `details` is the stored dataset (free). `update` fetches again with " +
    "merged params and is billed like a search; `more` is refused.",
  topic: "research and reading",
  schema: trendsSearchSchema,
  recordKeys: Type.Object({
    data_type: Type.Unsafe<string>({ type: "string", enum: [...DATA_TYPES] }),
    time_range: Type.String(),
    source: Type.String(),
    fetched_at: Type.String({ description: "When the dataset was read (ISO 8601)." }),
  }),
  paging: "single",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: HOUR,
  cost: serpApiSearchCost(
    "4 credits ($0.004) per SerpApi search, charged whenever SerpApi answers, also when it has no data " +
      "(SerpApi bills empty searches); `update` is billed the same; `details` is free.",
  ),
  rules: [
    requires("region", when("data_type", "GEO_MAP")),
    excludes("geo", when("region", "COUNTRY"), '`region: "COUNTRY"` requires worldwide geography: omit `geo`.'),
    terms,
    dateRange,
  ],
  sources: [
    {
      ...serpApiSourceOf("Google Trends"),
      async search(ctx, query) {
        const response = await ctx.upstream.send(toRequest(query), ctx.signal);
        return toPage(response.body, query, ctx.now());
      },
    },
  ],
  update: {
    example: { title: "Related queries for the same term, place and period", params: { data_type: "RELATED_QUERIES" } },
  },
  actions: {
    details: { description: "The stored dataset (time series points, regions, or top and rising entries). Free.", mode: "stored" },
  },
  examples: [
    {
      title: 'Interest in "Klima" in Switzerland, 2004-2022 (timestamps at UTC-01:00, as recorded)',
      body: { query: "Klima", geo: "CH", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 },
    },
    {
      title: 'Where in Switzerland "Klima" is searched most, by canton',
      body: { query: "Klima", geo: "CH", data_type: "GEO_MAP", region: "REGION", time_range: "2004-01-01 2022-12-31", timezone_offset_minutes: -60 },
    },
  ],
});
