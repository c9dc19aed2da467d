/**
 * SerpApi `google_trends` adapter for trends.search: pure mappers from a validated query to the
 * upstream request (with the answer schema of the data type asked) and from SerpApi's answer to zero
 * or one dataset record (its stored detail is the dataset itself, bounded). No I/O here.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import type { JsonRequest } from "../../upstream/types.ts";
import { arr, clip, defined, num, type Obj, obj, str } from "../shared/read.ts";
import { fetchedAt, readSerpApi, serpApiRequest } from "../shared/serpapi.ts";
import type { JsonObject, JsonValue, RecordDraft, SourcePage } from "../types.ts";
import type { TrendsSearchQuery } from "./schema.ts";

export const SOURCE = "Google Trends via SerpApi";

/** Quarry's `property` → Google Trends' `gprop` (web search is Google's default: no `gprop`). */
export const GPROP: Readonly<Record<TrendsSearchQuery["property"], string | undefined>> = {
  web: undefined,
  images: "images",
  news: "news",
  shopping: "froogle",
  video: "youtube",
};

// Bounds of the stored dataset, so one record stays small whatever the range.
const MAX_POINTS = 400;
const MAX_REGIONS = 300;
const MAX_RELATED = 50;

/** The comma-separated terms of `query` (blank ones dropped). */
export function termsOf(query: string): string[] {
  return query
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

/**
 * Google's data type: SerpApi's `GEO_MAP` is the compared breakdown of several terms, `GEO_MAP_0`
 * the interest by region of one; Quarry's `GEO_MAP` is either, by the number of terms.
 */
export function serpDataType(query: Pick<TrendsSearchQuery, "data_type" | "query">): string {
  if (query.data_type !== "GEO_MAP") return query.data_type;
  return termsOf(query.query).length > 1 ? "GEO_MAP" : "GEO_MAP_0";
}

const metadata = Type.Optional(
  Type.Object({ created_at: Type.Optional(Type.String()), google_trends_url: Type.Optional(Type.String()) }),
);
/** One term's value in a point or region: `{query, value, extracted_value}`. */
const termValue = Type.Object({
  query: Type.Optional(Type.String()),
  extracted_value: Type.Optional(Type.Number()),
});
const region = Type.Object({ location: Type.String() });
const relatedLists = <T extends TSchema>(item: T) =>
  Type.Object({ top: Type.Optional(Type.Array(item)), rising: Type.Optional(Type.Array(item)) });

/**
 * The answer of each SerpApi data type: the dataset's key is required (SerpApi answers a search without
 * data with its "no results" error, passed on as zero records), each entry's name (a point's date, a
 * region's location, a query, a topic's title) too; the values the summary reads are typed. The rest of
 * each entry is stored as sent.
 */
export const TRENDS_ANSWERS = {
  TIMESERIES: Type.Object({
    search_metadata: metadata,
    interest_over_time: Type.Object({
      timeline_data: Type.Array(
        Type.Object({ date: Type.String(), values: Type.Optional(Type.Array(termValue)) }),
      ),
      averages: Type.Optional(Type.Array(Type.Object({}))),
    }),
  }),
  GEO_MAP: Type.Object({ search_metadata: metadata, compared_breakdown_by_region: Type.Array(region) }),
  GEO_MAP_0: Type.Object({ search_metadata: metadata, interest_by_region: Type.Array(region) }),
  RELATED_QUERIES: Type.Object({
    search_metadata: metadata,
    related_queries: relatedLists(Type.Object({ query: Type.String() })),
  }),
  RELATED_TOPICS: Type.Object({
    search_metadata: metadata,
    related_topics: relatedLists(Type.Object({ topic: Type.Object({ title: Type.String() }) })),
  }),
} as const;
export type TrendsAnswer = Static<(typeof TRENDS_ANSWERS)[keyof typeof TRENDS_ANSWERS]>;

/** `GET /search.json?engine=google_trends&q=&data_type=&geo=&region=&cat=&gprop=&date=&tz=`. */
export function toRequest(
  query: TrendsSearchQuery,
): JsonRequest<(typeof TRENDS_ANSWERS)[keyof typeof TRENDS_ANSWERS]> {
  const dataType = serpDataType(query) as keyof typeof TRENDS_ANSWERS;
  return serpApiRequest(
    "google_trends",
    {
      q: query.query,
      data_type: dataType,
      geo: query.geo === undefined || query.geo === "" ? undefined : query.geo,
      region: query.region,
      cat: query.category,
      gprop: GPROP[query.property],
      date: query.time_range,
      // SerpApi's `tz` counts minutes behind UTC (420 is UTC-07:00); Quarry's offset counts ahead.
      tz: String(-query.timezone_offset_minutes || 0),
    },
    TRENDS_ANSWERS[dataType],
  );
}

interface Dataset {
  label: string;
  data: JsonObject;
  summary: string;
}

/** Zero or one record: the dataset of the data type asked, or none when Google Trends has no data. */
export function toPage(body: TrendsAnswer, query: TrendsSearchQuery, now: Date): SourcePage {
  const { root, noResults } = readSerpApi(body);
  const dataset = noResults ? undefined : datasetOf(root, query);
  if (dataset === undefined) {
    return {
      records: [],
      next: null,
      notes: [
        `Google Trends has no ${query.data_type} data for "${query.query}" with these settings. SerpApi bills empty searches too.`,
      ],
    };
  }
  const terms = termsOf(query.query);
  const summary: RecordDraft["summary"] = {
    title: `${dataset.label}: ${terms.join(", ")}`,
    snippet: dataset.summary,
    data_type: query.data_type,
    time_range: query.time_range,
    source: SOURCE,
    fetched_at: fetchedAt(root, now),
  };
  const detail = defined({
    data_type: query.data_type,
    terms,
    time_range: query.time_range,
    geo: query.geo === undefined || query.geo === "" ? "worldwide" : query.geo,
    region: query.region,
    category: query.category,
    property: query.property,
    timezone_offset_minutes: query.timezone_offset_minutes,
    dataset: dataset.data,
    source: SOURCE,
    fetched_at: summary.fetched_at,
  });
  const trendsUrl = str(obj(root.search_metadata)?.google_trends_url);
  const links =
    trendsUrl === undefined ? [] : [{ label: "Google Trends request behind this dataset", url: trendsUrl }];
  return { records: [{ summary, detail, links }], next: null };
}

function datasetOf(root: Obj, query: TrendsSearchQuery): Dataset | undefined {
  switch (serpDataType(query)) {
    case "TIMESERIES":
      return timeseries(obj(root.interest_over_time));
    case "GEO_MAP":
      return regions("Compared breakdown by region", root.compared_breakdown_by_region);
    case "GEO_MAP_0":
      return regions("Interest by region", root.interest_by_region);
    case "RELATED_QUERIES":
      return related("Related queries", obj(root.related_queries), "query");
    default:
      return related("Related topics", obj(root.related_topics), "topic");
  }
}

/** A list cut at `max`, with whether it was cut. */
function bounded(value: unknown, max: number): { items: JsonValue[]; truncated: boolean } | undefined {
  const list = (arr(value) ?? []).filter((v) => obj(v) !== undefined) as JsonValue[];
  return list.length === 0 ? undefined : { items: list.slice(0, max), truncated: list.length > max };
}

function timeseries(data: Obj | undefined): Dataset | undefined {
  const points = bounded(data?.timeline_data, MAX_POINTS);
  if (points === undefined) return undefined;
  let peak: { value: number; date: string; term: string } | undefined;
  for (const point of points.items.map(obj)) {
    for (const v of (arr(point?.values) ?? []).map(obj)) {
      const value = num(v?.extracted_value);
      if (value !== undefined && (peak === undefined || value > peak.value)) {
        peak = { value, date: str(point?.date) ?? "?", term: str(v?.query) ?? "?" };
      }
    }
  }
  const dates = points.items.map((p) => str(obj(p)?.date));
  const span = `${points.items.length} points from ${dates[0] ?? "?"} to ${dates.at(-1) ?? "?"}`;
  return {
    label: "Interest over time",
    data: defined({
      timeline_data: points.items,
      timeline_truncated: points.truncated,
      averages: bounded(data?.averages, MAX_POINTS)?.items,
    }),
    summary:
      peak === undefined ? `${span}.` : `${span}; peak ${peak.value} for "${peak.term}" in ${peak.date}.`,
  };
}

function regions(label: string, value: unknown): Dataset | undefined {
  const list = bounded(value, MAX_REGIONS);
  if (list === undefined) return undefined;
  const names = list.items.slice(0, 3).map((r) => str(obj(r)?.location) ?? "?");
  return {
    label,
    data: { regions: list.items, regions_truncated: list.truncated },
    summary: `${list.items.length} regions${list.truncated ? " (first shown)" : ""}; first: ${names.join(", ")}.`,
  };
}

function related(label: string, data: Obj | undefined, key: "query" | "topic"): Dataset | undefined {
  const top = bounded(data?.top, MAX_RELATED);
  const rising = bounded(data?.rising, MAX_RELATED);
  if (top === undefined && rising === undefined) return undefined;
  const name = (v: JsonValue) => (key === "query" ? str(obj(v)?.query) : str(obj(obj(v)?.topic)?.title));
  const first = (top ?? rising)!.items
    .slice(0, 3)
    .map(name)
    .filter((n) => n !== undefined);
  return {
    label,
    data: defined({
      top: top?.items,
      rising: rising?.items,
      truncated: Boolean(top?.truncated || rising?.truncated),
    }),
    summary: clip(
      `${top?.items.length ?? 0} top and ${rising?.items.length ?? 0} rising; first: ${first.join(", ")}.`,
      300,
    ),
  };
}
