/**
 * markets.quote (spec 4.6): one quote of a finance-portal instrument from Google Finance through
 * SerpApi's `google_finance` engine. Single result, 4 credits a search (update too), detail stored
 * at search time.
 */
import { Type } from "@sinclair/typebox";
import { defineCapability } from "../framework/define.ts";
import { serpApiSearchCost, serpApiSourceOf } from "../shared/serpapi.ts";
import { SOURCE, toPage, toRequest } from "./serpapi-finance.ts";
import { MINUTE } from "../framework/durations.ts";
import { marketsQuoteSchema } from "./schema.ts";

export { type MarketsQuoteQuery, marketsQuoteSchema, WINDOWS } from "./schema.ts";

export const marketsQuote = defineCapability({
  id: "markets.quote",
  title: "Market quote",
  summary: "Latest price, change and key stats of a stock, index, fund or currency pair from Google Finance.",
  description:
    `One quote from ${SOURCE}. \`symbol\` is a finance-portal instrument such as GOOGL:NASDAQ, ` +
    ".DJI:INDEXDJX or EUR-USD; `window` picks the graph range (default 1D). The record carries " +
    "`symbol` (the portal's ticker) and `source` always, and `exchange`, `price` (number), `currency` " +
    "(ISO 4217 code, only when the body names one unambiguously), `observed_at` (when the provider " +
    "captured the quote) and `change` {value, percentage, movement} when present. Zero records when " +
    "the portal has no such instrument. `details` is the stored quote (free): extended-hours price, " +
    "market status line, up to 60 graph points with range figures, key stats, about text and up to " +
    "10 news headlines. `update` fetches the quote again with merged params and is billed like a " +
    "search; `more` is refused. Quotes may be delayed; not investment advice.",
  topic: "money and markets",
  schema: marketsQuoteSchema,
  recordKeys: Type.Object({
    symbol: Type.String(),
    source: Type.String(),
    exchange: Type.Optional(Type.String()),
    price: Type.Optional(Type.Number()),
    currency: Type.Optional(Type.String()),
    observed_at: Type.Optional(Type.String({ description: "When the quote was read (ISO 8601)." })),
    change: Type.Optional(Type.Object({}, { additionalProperties: true, description: "The move over the window, as the source gives it." })),
  }),
  paging: "single",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: MINUTE,
  cost: serpApiSearchCost(
    "4 credits ($0.004) per SerpApi search, charged whenever SerpApi answers, also when it finds no " +
      "quote (SerpApi bills empty searches); `update` is billed the same; `details` is free.",
  ),
  sources: [
    {
      ...serpApiSourceOf("Google Finance"),
      async search(ctx, query) {
        const response = await ctx.upstream.send(toRequest(query), ctx.signal);
        return toPage(response.body, query);
      },
    },
  ],
  update: { example: { title: "English labels, one-day window", params: { window: "1D", language: "en" } } },
  actions: {
    details: { description: "The stored quote: graph points, key stats, about text and news headlines. Free.", mode: "stored" },
  },
  examples: [
    { title: "Alphabet Class A on NASDAQ", body: { symbol: "GOOGL:NASDAQ" } },
    { title: "Same quote, English labels, one-day window", body: { symbol: "GOOGL:NASDAQ", window: "1D", language: "en" } },
  ],
});
