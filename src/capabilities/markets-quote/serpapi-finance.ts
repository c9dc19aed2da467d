/**
 * SerpApi `google_finance` adapter for markets.quote: pure mappers from a validated query to the
 * upstream request and from the SerpApi body to zero or one quote record with its stored detail.
 * No I/O here; `capability.ts` glues these to the upstream client (which adds `api_key`).
 */
import { ApiError } from "../../errors.ts";
import type { UpstreamRequest } from "../../upstream/types.ts";
import type { JsonObject, Link, RecordDraft, SearchPage } from "../types.ts";

export const WINDOWS = ["1D", "5D", "1M", "6M", "YTD", "1Y", "5Y", "MAX"] as const;
export type QuoteWindow = (typeof WINDOWS)[number];

export interface MarketsQuery {
  symbol: string;
  window?: QuoteWindow;
  language?: string;
}

export const SOURCE = "Google Finance via SerpApi";
/** SerpApi bills every search it answers (including empty ones): 4 credits = $0.004. */
export const SEARCH_CREDITS = 4;
export const SEARCH_COST_USD = 0.004;

// Bounds of the stored detail, so one quote stays small whatever the window.
const MAX_GRAPH_POINTS = 60;
const MAX_STATS = 20;
const MAX_NEWS = 10;
const MAX_ABOUT_CHARS = 1500;

/** Sent as `hl` when `language` is omitted: SerpApi's own default, made explicit so requests are uniform. */
export const DEFAULT_LANGUAGE = "en";

export function toRequest(query: MarketsQuery): UpstreamRequest {
  const params: Record<string, string> = {
    engine: "google_finance",
    q: query.symbol,
    window: query.window ?? "1D",
    hl: query.language ?? DEFAULT_LANGUAGE,
  };
  // Read, not failed: 400 so SerpApi's own `error` message reaches the caller; 401 and 403 (the
  // deployment's key or account refused) so SerpApi's words reach the log.
  return { provider: "serpapi", method: "GET", path: "/search.json", query: params, acceptStatus: [400, 401, 403] };
}

type Obj = Record<string, unknown>;

/**
 * SerpApi errors about this deployment's own SerpApi account (its key, plan or searches left): the
 * operator's business, not the caller's. SerpApi answers them 401 (key) or 403 (account), and some
 * in a body with another status (searches run out). The caller is told the provider refused the
 * deployment; the provider's words go to the log (the error's cause, logged with every 5xx). A 429
 * (throughput or searches used up) goes the upstream client's retry way and is reported as the
 * provider's rate limit, with no SerpApi text.
 */
const ACCOUNT_ERROR = /api[ _-]?key|run out|your (?:account|plan|searches)|upgrade your plan|account (?:has been|is) /i;

/**
 * Zero or one record. SerpApi `error` bodies are provider errors carrying SerpApi's words (a bad
 * parameter, say), except "no results" (zero records) and errors about the deployment's account.
 */
export function toPage(status: number, body: unknown, query: MarketsQuery): SearchPage {
  const root = obj(body);
  if (root === undefined)
    throw new ApiError("provider_error", `SerpApi answered HTTP ${status} with a non-object body.`);
  const error = str(root.error);
  const ok = status >= 200 && status < 300;
  if (status === 401 || status === 403 || (error !== undefined && ACCOUNT_ERROR.test(error))) {
    throw new ApiError("provider_error", "SerpApi refused this deployment's account (its key or plan); nothing was charged.", {
      hint: "Retrying will not help until the operator fixes the deployment's SerpApi account; the cause is in its log.",
      cause: new Error(`SerpApi (HTTP ${status}): ${error ?? "no error text"}`),
    });
  }
  if (error !== undefined) {
    if (ok && /hasn'?t returned any results|no results/i.test(error)) return empty(query.symbol);
    throw new ApiError("provider_error", `SerpApi reported: ${error}`);
  }
  if (!ok) throw new ApiError("provider_error", `SerpApi answered HTTP ${status}.`);
  if (str(obj(root.search_metadata)?.status) === "Error") {
    throw new ApiError("provider_error", "SerpApi reported the search as failed.");
  }
  const summary = obj(root.summary);
  if (summary === undefined) return empty(query.symbol);
  return {
    records: [toRecord(root, summary, query)],
    next: null,
    credits: SEARCH_CREDITS,
    costUsd: SEARCH_COST_USD,
  };
}

function empty(symbol: string): SearchPage {
  return {
    records: [],
    next: null,
    credits: SEARCH_CREDITS,
    costUsd: SEARCH_COST_USD,
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
  const observedAt = serpTime(str(obj(root.search_metadata)?.created_at));
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

  const detail: JsonObject = { ...out, window: query.window ?? "1D" };
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

/** search_metadata.created_at ("2022-12-24 12:13:15 UTC") as ISO 8601. */
export function serpTime(value: string | undefined): string | undefined {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) UTC$/.exec(value ?? "");
  return m === null ? undefined : `${m[1]}T${m[2]}Z`;
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

function obj(value: unknown): Obj | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : undefined;
}

function arr(value: unknown): unknown[] | undefined {
  return Array.isArray(value) ? value : undefined;
}

function str(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const t = value.trim();
  return t === "" ? undefined : t;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function isString(value: string | undefined): value is string {
  return value !== undefined;
}
