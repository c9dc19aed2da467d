/**
 * markets.quote's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { language, oneOfOr, text } from "../framework/fields.ts";

export const WINDOWS = ["1D", "5D", "1M", "6M", "YTD", "1Y", "5Y", "MAX"] as const;

export const marketsQuoteSchema = Type.Object(
  {
    symbol: text(
      1,
      80,
      "Finance-portal instrument: TICKER:EXCHANGE (GOOGL:NASDAQ), an index (.DJI:INDEXDJX), a fund or a currency pair (EUR-USD).",
      { pattern: "^[A-Za-z0-9.^:_-]+$" },
    ),
    window: oneOfOr(WINDOWS, "1D", "Time range of the price graph and movement."),
    language: language("Interface language code, e.g. en, de, pt-BR; en when omitted."),
  },
  { additionalProperties: false },
);

export type MarketsQuoteQuery = Static<typeof marketsQuoteSchema>;
