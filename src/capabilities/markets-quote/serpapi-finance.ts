/**
 * SerpApi `google_finance` adapter for markets.quote: pure mappers from a validated query to the
 * upstream request and from the SerpApi body to zero or one quote record with its stored detail.
 * No I/O here; `capability.ts` glues these to the upstream client (which adds `api_key` and checks
 * the answer against `financeAnswer`).
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ProviderProbe } from "../../upstream/probe.ts";
import type { JsonRequest } from "../../upstream/types.ts";
import type { MarketsQuoteQuery } from "./schema.ts";
import { readSerpApi, serpApiRequest, serpTime } from "../shared/serpapi.ts";
import { arr, num, type Obj, obj, str } from "../shared/read.ts";
import type { JsonObject, Link, RecordDraft, SourcePage } from "../types.ts";

/** The validated markets.quote body (defaults applied): its schema's static type. */
export type MarketsQuery = MarketsQuoteQuery;

export const SOURCE = "Google Finance via SerpApi";

// Bounds of the stored detail, so one quote stays small whatever the window.
const MAX_GRAPH_POINTS = 60;
const MAX_STATS = 20;
const MAX_NEWS = 10;
const MAX_ABOUT_CHARS = 1500;

/** Sent as `hl` when `language` is omitted: SerpApi's own default, made explicit so requests are uniform. */
export const DEFAULT_LANGUAGE = "en";

const movement = Type.Object({
  percentage: Type.Optional(Type.Number()),
  value: Type.Optional(Type.Number()),
  movement: Type.Optional(Type.String()),
});

/** One news entry: a headline, or a group (`{title, items[]}`) of them. */
const newsItem = Type.Object({
  title: Type.Optional(Type.String()),
  link: Type.Optional(Type.String()),
  source: Type.Optional(Type.String()),
  date: Type.Optional(Type.String()),
});
const labelled = Type.Object({ label: Type.Optional(Type.String()), value: Type.Optional(Type.String()) });

/**
 * The fields of a google_finance answer the mapper reads. `summary` is the quote; SerpApi answers some
 * instruments without one (a numeric ticker with `window`, serpapi/public-roadmap#1898), which is zero
 * records, so it may be absent, but a quote always has its title. Everything else may be absent.
 */
export const financeAnswer = Type.Object({
  search_metadata: Type.Optional(
    Type.Object({
      created_at: Type.Optional(Type.String()),
      google_finance_url: Type.Optional(Type.String()),
    }),
  ),
  summary: Type.Optional(
    Type.Object({
      title: Type.String(),
      stock: Type.Optional(Type.String()),
      exchange: Type.Optional(Type.String()),
      price: Type.Optional(Type.String()),
      extracted_price: Type.Optional(Type.Number()),
      currency: Type.Optional(Type.String()),
      price_movement: Type.Optional(movement),
      market: Type.Optional(
        Type.Object({
          trading: Type.Optional(Type.String()),
          extracted_price: Type.Optional(Type.Number()),
          price_movement: Type.Optional(movement),
        }),
      ),
      extensions: Type.Optional(Type.Array(Type.String())),
    }),
  ),
  graph: Type.Optional(
    Type.Array(
      Type.Object({
        price: Type.Optional(Type.Number()),
        currency: Type.Optional(Type.String()),
        date: Type.Optional(Type.String()),
        volume: Type.Optional(Type.Number()),
      }),
    ),
  ),
  knowledge_graph: Type.Optional(
    Type.Object({
      key_stats: Type.Optional(
        Type.Object({
          tags: Type.Optional(Type.Array(Type.Object({ text: Type.Optional(Type.String()) }))),
          stats: Type.Optional(Type.Array(labelled)),
        }),
      ),
      about: Type.Optional(
        Type.Array(
          Type.Object({
            description: Type.Optional(
              Type.Object({ snippet: Type.Optional(Type.String()), link: Type.Optional(Type.String()) }),
            ),
            info: Type.Optional(Type.Array(labelled)),
          }),
        ),
      ),
    }),
  ),
  news_results: Type.Optional(
    Type.Array(Type.Object({ ...newsItem.properties, items: Type.Optional(Type.Array(newsItem)) })),
  ),
});
export type FinanceAnswer = Static<typeof financeAnswer>;

export function toRequest(query: MarketsQuery): JsonRequest<typeof financeAnswer> {
  return serpApiRequest(
    "google_finance",
    { q: query.symbol, window: query.window, hl: query.language ?? DEFAULT_LANGUAGE },
    financeAnswer,
  );
}

/**
 * Zero or one record from an answer the client checked (SerpApi's refusals were thrown before it;
 * its "no results" answer arrives unchecked and is zero records).
 */
export function toPage(body: FinanceAnswer, query: MarketsQuery): SourcePage {
  const { root, noResults } = readSerpApi(body);
  const summary = obj(root.summary);
  if (noResults || summary === undefined) return empty(query.symbol);
  return { records: [toRecord(root, summary, query)], next: null };
}

function empty(symbol: string): SourcePage {
  return {
    records: [],
    next: null,
    notes: [
      `Google Finance has no quote for "${symbol}". Use a finance-portal symbol such as GOOGL:NASDAQ, ` +
        ".DJI:INDEXDJX or EUR-USD. SerpApi bills empty searches too.",
    ],
  };
}

function toRecord(root: Obj, summary: Obj, query: MarketsQuery): RecordDraft {
  const exchange = str(summary.exchange);
  const symbol = str(summary.stock) ?? query.symbol;
  const currency = currencyOf(root, summary, exchange);
  const price = num(summary.extracted_price);
  const change = changeOf(summary.price_movement);
  const observedAt = serpTime(obj(root.search_metadata)?.created_at);
  const status = (arr(summary.extensions) ?? [])
    .map(str)
    .filter((e): e is string => e !== undefined && e !== currency && e !== exchange);
  const extended = extendedOf(summary.market);

  const out: RecordDraft["summary"] = { title: str(summary.title) ?? symbol };
  const url = str(obj(root.search_metadata)?.google_finance_url);
  if (url !== undefined) out.url = url;
  out.snippet = snippetOf(out.title, symbol, exchange, price, currency, change, status, extended);
  out.symbol = symbol;
  if (exchange !== undefined) out.exchange = exchange;
  if (price !== undefined) out.price = price;
  if (currency !== undefined) out.currency = currency;
  if (observedAt !== undefined) out.observed_at = observedAt;
  if (change !== undefined) out.change = change;
  out.source = SOURCE;

  const detail: JsonObject = { ...out, window: query.window };
  delete detail.snippet;
  delete detail.url;
  const display = str(summary.price);
  if (display !== undefined) detail.price_display = display;
  if (extended !== undefined) detail.extended_hours = extended;
  if (status.length > 0) detail.market_status = status.slice(0, 5);
  const graph = graphOf(root.graph);
  if (graph !== undefined) detail.graph = graph;
  const kg = obj(root.knowledge_graph);
  const stats = keyStats(kg);
  if (stats.length > 0) detail.key_stats = stats;
  const tags = (arr(obj(kg?.key_stats)?.tags) ?? []).map((t) => str(obj(t)?.text)).filter(isString);
  if (tags.length > 0) detail.tags = tags.slice(0, 10);
  const about = aboutOf(kg);
  if (about !== undefined) detail.about = about;
  const news = newsOf(root.news_results);
  if (news.length > 0) detail.news = news;

  const links: Link[] = [];
  if (url !== undefined) links.push({ label: "Google Finance", url });
  if (about !== undefined && typeof about.source_url === "string") {
    links.push({ label: "About", url: about.source_url });
  }
  for (const n of news) links.push({ label: String(n.title), url: String(n.url) });
  return { summary: out, detail, links };
}

/** ISO 4217 code: graph points carry one ("USD"); `summary.currency` is only a sign ("$"). */
export function currencyOf(root: Obj, summary: Obj, exchange: string | undefined): string | undefined {
  for (const point of arr(root.graph) ?? []) {
    const c = str(obj(point)?.currency);
    if (c !== undefined && ISO_CURRENCIES.has(c)) return c;
  }
  for (const ext of arr(summary.extensions) ?? []) {
    const c = str(ext);
    if (c !== undefined && c !== exchange && ISO_CURRENCIES.has(c)) return c;
  }
  // Only unambiguous signs; "$" and "¥" name several currencies.
  return UNAMBIGUOUS_SIGNS[str(summary.currency) ?? ""];
}

const ISO_CURRENCIES = new Set(Intl.supportedValuesOf("currency"));
const UNAMBIGUOUS_SIGNS: Record<string, string> = {
  "€": "EUR",
  "£": "GBP",
  "₹": "INR",
  "₩": "KRW",
  "₺": "TRY",
};

function changeOf(value: unknown): JsonObject | undefined {
  const pm = obj(value);
  if (pm === undefined) return undefined;
  const change: JsonObject = {};
  const v = num(pm.value);
  const p = num(pm.percentage);
  const m = str(pm.movement);
  if (v !== undefined) change.value = v;
  if (p !== undefined) change.percentage = p;
  if (m !== undefined) change.movement = m;
  return Object.keys(change).length > 0 ? change : undefined;
}

/** `summary.market`: the pre-/after-hours quote shown next to the regular one. */
function extendedOf(value: unknown): JsonObject | undefined {
  const m = obj(value);
  const price = num(m?.extracted_price);
  if (m === undefined || price === undefined) return undefined;
  const out: JsonObject = { price };
  const session = str(m.trading);
  if (session !== undefined) out.session = session;
  const change = changeOf(m.price_movement);
  if (change !== undefined) out.change = change;
  return out;
}

function snippetOf(
  title: string,
  symbol: string,
  exchange: string | undefined,
  price: number | undefined,
  currency: string | undefined,
  change: JsonObject | undefined,
  status: string[],
  extended: JsonObject | undefined,
): string {
  const parts = [`${title} (${exchange === undefined ? symbol : `${symbol}, ${exchange}`})`];
  if (price !== undefined) parts[0] += `: ${price}${currency === undefined ? "" : ` ${currency}`}`;
  const move = describe(change);
  if (move !== undefined) parts[0] += `, ${move}`;
  parts.push(...status);
  if (extended !== undefined) {
    const m = describe(extended.change as JsonObject | undefined);
    parts.push(
      `${extended.session ?? "Extended hours"}: ${extended.price}${m === undefined ? "" : `, ${m}`}`,
    );
  }
  return parts.join(". ") + ".";
}

function describe(change: JsonObject | undefined): string | undefined {
  if (change === undefined || typeof change.value !== "number") return undefined;
  const dir = typeof change.movement === "string" ? change.movement.toLowerCase() + " " : "";
  const pct = typeof change.percentage === "number" ? ` (${round(change.percentage)}%)` : "";
  return `${dir}${round(change.value)}${pct}`;
}

/** Graph points evenly sampled (first and last kept), times as ISO 8601, plus range figures. */
function graphOf(value: unknown): JsonObject | undefined {
  const points: JsonObject[] = [];
  for (const raw of arr(value) ?? []) {
    const p = obj(raw);
    const price = num(p?.price);
    const date = str(p?.date);
    if (price === undefined || date === undefined) continue;
    const point: JsonObject = { time: graphTime(date) ?? date, price };
    const volume = num(p?.volume);
    if (volume !== undefined) point.volume = volume;
    points.push(point);
  }
  if (points.length === 0) return undefined;
  const prices = points.map((p) => p.price as number);
  return {
    point_count: points.length,
    first_price: prices[0] as number,
    last_price: prices[prices.length - 1] as number,
    low: Math.min(...prices),
    high: Math.max(...prices),
    points: sample(points, MAX_GRAPH_POINTS),
  };
}

export function sample<T>(items: T[], max: number): T[] {
  if (items.length <= max) return items;
  const step = (items.length - 1) / (max - 1);
  return Array.from({ length: max }, (_, i) => items[Math.round(i * step)] as T);
}

function keyStats(kg: Obj | undefined): JsonObject[] {
  return (arr(obj(kg?.key_stats)?.stats) ?? [])
    .map((s) => {
      const label = str(obj(s)?.label);
      const value = str(obj(s)?.value);
      return label === undefined || value === undefined ? undefined : { label, value };
    })
    .filter((s) => s !== undefined)
    .slice(0, MAX_STATS);
}

function aboutOf(kg: Obj | undefined): JsonObject | undefined {
  const about = obj((arr(kg?.about) ?? [])[0]);
  if (about === undefined) return undefined;
  const description = obj(about.description);
  const out: JsonObject = {};
  const snippet = str(description?.snippet);
  if (snippet !== undefined) out.description = clip(snippet, MAX_ABOUT_CHARS);
  const link = str(description?.link);
  if (link !== undefined) out.source_url = link;
  const facts = (arr(about.info) ?? [])
    .map((i) => ({ label: str(obj(i)?.label), value: str(obj(i)?.value) }))
    .filter((f): f is { label: string; value: string } => f.label !== undefined && f.value !== undefined)
    .slice(0, 15);
  if (facts.length > 0) out.facts = facts;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** news_results mixes grouped entries (`{title, items[]}`) and plain ones; flatten, keep headlines. */
function newsOf(value: unknown): JsonObject[] {
  const flat = (arr(value) ?? []).flatMap((e) => arr(obj(e)?.items) ?? [e]);
  const out: JsonObject[] = [];
  for (const raw of flat) {
    const n = obj(raw);
    const title = str(n?.title);
    const url = str(n?.link);
    if (title === undefined || url === undefined) continue;
    const item: JsonObject = { title, url };
    const source = str(n?.source);
    const date = str(n?.date);
    if (source !== undefined) item.source = source;
    if (date !== undefined) item.date = date;
    out.push(item);
    if (out.length === MAX_NEWS) break;
  }
  return out;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** A graph date ("Dec 23 2022, 09:30 AM UTC-05:00") as ISO 8601 with its offset. */
export function graphTime(value: string): string | undefined {
  const m = /^([A-Z][a-z]{2}) (\d{1,2}) (\d{4}), (\d{1,2}):(\d{2}) (AM|PM) UTC([+-]\d{2}:\d{2})$/.exec(value);
  if (m === null) return undefined;
  const month = MONTHS.indexOf(m[1] ?? "") + 1;
  if (month === 0) return undefined;
  const hour = (Number(m[4]) % 12) + (m[6] === "PM" ? 12 : 0);
  return `${m[3]}-${pad(month)}-${pad(Number(m[2]))}T${pad(hour)}:${m[5]}:00${m[7]}`;
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}

function clip(text: string, max: number): string {
  const t = text.trim();
  return t.length <= max ? t : t.slice(0, max - 1).trimEnd() + "…";
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}

/**
 * The live check's probe for the provider `serpapi` (re-exported by shared/serpapi.ts): one
 * google_finance quote, one SerpApi search ($0.004), checked against this adapter's schema.
 */
export const financeProbe: ProviderProbe = {
  provider: "serpapi",
  what: "one google_finance quote (GOOGL:NASDAQ; one search, $0.004)",
  request: toRequest({ symbol: "GOOGL:NASDAQ", window: "1D" }),
};
