/**
 * trends.search's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defaulted, oneOf, oneOfOr, text } from "../framework/fields.ts";

export const DATA_TYPES = ["TIMESERIES", "GEO_MAP", "RELATED_QUERIES", "RELATED_TOPICS"] as const;
export const REGIONS = ["COUNTRY", "REGION", "DMA", "CITY"] as const;
/** `video` is the neutral name (spec's naming rule) of Google Trends' YouTube property. */
export const PROPERTIES = ["web", "images", "news", "shopping", "video"] as const;

const DATE = "[0-9]{4}-[0-9]{2}-[0-9]{2}";
export const TIME_RANGE_PATTERN = `^(now (1-H|4-H|1-d|7-d)|today (1-m|3-m|12-m|5-y)|all|${DATE} ${DATE})$`;

export const trendsSearchSchema = Type.Object(
  {
    query: text(
      1,
      500,
      "Search terms: up to five, comma-separated, for TIMESERIES and GEO_MAP; one for RELATED_QUERIES and RELATED_TOPICS.",
    ),
    data_type: oneOfOr(
      DATA_TYPES,
      "TIMESERIES",
      "TIMESERIES: interest over time; GEO_MAP: interest by region (compared by region for several terms); RELATED_QUERIES; RELATED_TOPICS.",
    ),
    geo: Type.Optional(
      Type.String({ maxLength: 30, pattern: "^[A-Z0-9-]*$", description: "Google Trends location, e.g. US, CH, US-NY; omit for worldwide." }),
    ),
    region: oneOf(REGIONS, "Resolution of a GEO_MAP: COUNTRY (worldwide only), REGION (subregion), DMA (metro) or CITY."),
    category: Type.Optional(Type.Integer({ minimum: 0, description: "Google Trends category id (0 = all categories)." })),
    property: oneOfOr(PROPERTIES, "web", "Which Google search: web, images, news, shopping or video."),
    time_range: defaulted(
      Type.String({
        pattern: TIME_RANGE_PATTERN,
        default: "today 12-m",
        description:
          "now 1-H|4-H|1-d|7-d, today 1-m|3-m|12-m|5-y, all (2004 to now), or two dates YYYY-MM-DD separated by a space.",
      }),
    ),
    timezone_offset_minutes: defaulted(
      Type.Integer({
        minimum: -1439,
        maximum: 1439,
        default: 0,
        description: "Offset of the dataset's time zone from UTC in minutes, east positive (UTC+01:00 = 60, UTC-07:00 = -420).",
      }),
    ),
  },
  { additionalProperties: false },
);

export type TrendsSearchQuery = Static<typeof trendsSearchSchema>;
