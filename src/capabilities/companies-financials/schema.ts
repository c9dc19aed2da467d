/**
 * companies.financials's request schema (spec 4.6) and the query type derived from it.
 */
import { type Static, Type } from "@sinclair/typebox";
import { isoDate, num, oneOfOr } from "../framework/fields.ts";
import { REPORT_FORMS } from "./edgar.ts";

export const companiesFinancialsSchema = Type.Object(
  {
    company: Type.Object(
      {
        cik: Type.Optional(
          Type.String({ pattern: "^[0-9]{1,10}$", description: 'SEC Central Index Key, 1-10 digits, leading zeros optional (Apple: "320193").' }),
        ),
        ticker: Type.Optional(
          Type.String({
            pattern: "^[A-Za-z0-9][A-Za-z0-9.-]{0,14}$",
            description: 'Ticker as EDGAR\'s ticker list writes it (e.g. "AAPL", "BRK-B"); it must name exactly one filer, else give the CIK.',
          }),
        ),
      },
      { additionalProperties: false, description: "The company: exactly one of `{cik}` or `{ticker}`." },
    ),
    view: oneOfOr(
      ["filings", "financials", "revenue_breakdown"],
      "filings",
      "`filings`: the company's filings; `financials`: the facts of one filing; `revenue_breakdown`: its revenue facts with their dimensions. The fact views need `accession`.",
    ),
    accession: Type.Optional(
      Type.String({
        pattern: "^[0-9]{10}-[0-9]{2}-[0-9]{6}$",
        description: "A filing's accession number (0000320193-24-000123). Required by the fact views; in `filings`, lists that filing only.",
      }),
    ),
    forms: Type.Optional(
      Type.Array(Type.Unsafe<(typeof REPORT_FORMS)[number]>({ type: "string", enum: [...REPORT_FORMS] }), {
        minItems: 1,
        maxItems: 8,
        uniqueItems: true,
        description: "Filings view: only these forms (default: every form the company filed).",
      }),
    ),
    filed_from: Type.Optional(isoDate("Filings view: filed on or after this day (YYYY-MM-DD); not after `filed_to`.")),
    filed_to: Type.Optional(isoDate("Filings view: filed on or before this day (YYYY-MM-DD).")),
    num: num(10, 5, "Records per page (filings, or facts in the fact views)."),
  },
  { additionalProperties: false },
);

export type CompaniesFinancialsQuery = Static<typeof companiesFinancialsSchema>;
