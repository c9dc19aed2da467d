/**
 * companies.financials (spec 4.6): a company's SEC EDGAR filings, and the facts of one filing as
 * reported in its XBRL instance. Keyless but for the User-Agent contact EDGAR requires
 * (SEC_USER_AGENT), at most 10 requests a second, free, 40 s deadline, local paging.
 *
 * Views: `filings` lists the company's filings from `submissions` (recent ones, and older pages
 * when the dates or the accession need them); `financials` lists every selected fact of the filing
 * `accession` names; `revenue_breakdown` only the revenue facts, each with the dimensions it was
 * reported with. Record actions (all free): `details` (stored: filing identity and source links, or
 * the whole fact), `financials` and `revenue_breakdown` (fetched, then cached: at most 100 facts,
 * with `fact_count`, `truncated` and a typed `continuation`).
 */
import { type Static, Type } from "@sinclair/typebox";
import { invalidRequest } from "../../errors.ts";
import { free } from "../framework/costs.ts";
import { type ActionOutput, defineCapability, type RecordView } from "../framework/define.ts";
import { custom, range, type Rule, type RuleInput, sentPointer, validDate } from "../framework/rules.ts";
import type { CapabilityContext, JsonObject } from "../types.ts";
import { FACT_VIEWS, type FactView, factDetails, factRef } from "./facts.ts";
import { factDetailOf, factView, listFilings, resolveCik } from "./filing.ts";
import { DAY } from "../framework/durations.ts";
import { type CompaniesFinancialsQuery, companiesFinancialsSchema } from "./schema.ts";

export { type CompaniesFinancialsQuery, companiesFinancialsSchema } from "./schema.ts";

const NOT_INFERRED =
  "Facts are as reported, never inferred: dimensions the filer did not report stay absent (unknown), and segment, " +
  "geographic, product and whole-company figures stay separate and are never summed.";

const isFactView = (view: unknown): view is FactView => (FACT_VIEWS as readonly unknown[]).includes(view);

/** Exactly one of `company.cik` and `company.ticker`: one violation at /company, none from the schema. */
const oneCompany: Rule = {
  text: "`company` is exactly one of `{cik}` or `{ticker}`.",
  check({ query }: RuleInput) {
    const company = query.company;
    if (company === null || typeof company !== "object" || Array.isArray(company)) return [];
    const given = ["cik", "ticker"].filter((k) => company[k] !== undefined);
    if (given.length === 1) return [];
    return [
      {
        path: "/company",
        message:
          given.length === 0
            ? 'give the company as {"cik": "320193"} or {"ticker": "AAPL"}'
            : "give exactly one of `cik` or `ticker`, not both (the CIK is the one that always names a single filer)",
      },
    ];
  },
  schema: (): JsonObject => ({ properties: { company: { oneOf: [{ required: ["cik"] }, { required: ["ticker"] }] } } }),
};

/**
 * Spec 4.6's ticker rule, published with the others. It needs EDGAR's tickers file, so it is checked
 * when the search runs (filing.ts, `resolveCik`: 400 at /company/ticker, nothing charged).
 */
const tickerNamesOneFiler = custom(
  "A `ticker` must name exactly one filer in EDGAR's ticker list, else give the company's `cik` (checked when the search runs).",
  () => [],
);

/** The fact views read one filing: `accession` is required with them. */
const factViewsNeedAccession: Rule = {
  text: "The fact views (`financials`, `revenue_breakdown`) require `accession`.",
  check(input: RuleInput) {
    const { query } = input;
    if (!isFactView(query.view) || query.accession !== undefined) return [];
    // In an update, point at what the caller sent: the view it asked for, or the accession it removed.
    const at = sentPointer(input, "accession", "view").path;
    return [{ path: at, message: `view "${query.view}" reads one filing: give its \`accession\` (view "filings" lists them)` }];
  },
  // "a fact view → accession", as "the filings view (or the default), or an accession".
  schema: (): JsonObject => ({
    anyOf: [{ properties: { view: { enum: ["filings"] } } }, { required: ["accession"] }],
  }),
};

/** What the fact actions need: the record's filing, and whether EDGAR marks it as carrying XBRL. */
const needsFiling = {
  ref: Type.Object({ cik: Type.String({ minLength: 1 }), accession: Type.String({ minLength: 1 }), is_xbrl: Type.Optional(Type.Boolean()) }),
  refusal: "The record carries no filing (cik and accession).",
};
type FilingRecord = RecordView<CompaniesFinancialsQuery, Static<typeof needsFiling.ref>>;

/** Whether a record's filing can have reported facts (EDGAR does not mark it as without XBRL). */
const hasFacts = (record: FilingRecord): boolean => record.ref.is_xbrl !== false;

/** A filing's facts for a record action: the record's filing, refused when EDGAR says it has no XBRL. */
async function factAction(ctx: CapabilityContext<unknown>, record: FilingRecord, view: FactView): Promise<ActionOutput> {
  const { cik, accession } = record.ref;
  if (record.ref.is_xbrl === false) {
    throw invalidRequest(
      [
        {
          path: "/record_id",
          message: `EDGAR marks filing ${accession} (${String(record.summary.form ?? "this form")}) as carrying no XBRL, so it has no reported facts; choose a 10-K, 10-Q, 20-F or 40-F filed since 2009.`,
        },
      ],
      "This filing has no XBRL financial data.",
    );
  }
  return factDetailOf(ctx, cik, accession, view);
}

export const companiesFinancials = defineCapability({
  id: "companies.financials",
  title: "Company filings and reported financials (SEC EDGAR)",
  summary: "A company's SEC filings, and the facts of one filing exactly as its XBRL reports them, with revenue by its actual dimensions.",
  description:
    "Reads SEC EDGAR. Name the company by `{cik}` or `{ticker}` (a ticker must name exactly one filer, else use the CIK). " +
    "`view: filings` (default) lists its filings, newest first, optionally only `forms`, filed between `filed_from` and " +
    "`filed_to`, or the one `accession`; records carry `issuer`, `form`, `filed_at`, `report_date`, `accepted_at`, " +
    "`primary_document`, `primary_url` and `is_amendment`. `view: financials` lists every selected fact of the filing " +
    "`accession` names, from its XBRL instance and label linkbase; `view: revenue_breakdown` only its revenue facts, each " +
    "with the dimensions it was reported with. Fact records carry `fact_id`, `value` (a number, or the reported text when a " +
    "number would round it), `unit` {numerator, denominator}, `period` {start, end, instant} and `dimensions`. The whole " +
    "list is held in the session (`more` is free). Record actions, all free: `details` (filing identity and source links; " +
    "on a fact, the whole fact), `financials` and `revenue_breakdown` (the filing's facts, at most 100, with `fact_count`, " +
    "`truncated`, a typed `continuation` to list them all, the instance's `content_sha256` and `retrieved_at`). " +
    NOT_INFERRED,
  topic: "money and markets",
  schema: companiesFinancialsSchema,
  sourceChecked: ["company", "accession"],
  recordKeys: Type.Object({
    cik: Type.String({ description: "The filer's CIK, ten digits." }),
    accession: Type.String({ description: "The filing's accession number." }),
    source: Type.String({ description: "SEC EDGAR." }),
    issuer: Type.Optional(Type.String({ description: "Filings view: the filer's name in EDGAR." })),
    form: Type.Optional(Type.String({ description: "Filings view: the form type (10-K, 8-K, 4…)." })),
    filed_at: Type.Optional(Type.String({ description: "Filings view: filing date (YYYY-MM-DD)." })),
    report_date: Type.Optional(Type.String({ description: "Filings view: period of report (YYYY-MM-DD)." })),
    accepted_at: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Filings view: EDGAR's acceptance time as it gives it, or null." })),
    primary_document: Type.Optional(Type.String({ description: "Filings view: the primary document's file name." })),
    primary_url: Type.Optional(Type.String({ description: "Filings view: the primary document's address." })),
    is_amendment: Type.Optional(Type.Boolean({ description: "Filings view: the form is an amendment (…/A)." })),
    fact_id: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Fact views: the fact's id in the instance, or null." })),
    value: Type.Optional(Type.Union([Type.Number(), Type.String()], { description: "Fact views: the value as reported." })),
    unit: Type.Optional(
      Type.Object(
        { numerator: Type.Array(Type.String()), denominator: Type.Array(Type.String()) },
        { description: "Fact views: the unit's measures (both empty for a non-numeric fact)." },
      ),
    ),
    period: Type.Optional(
      Type.Object(
        { start: Type.Union([Type.String(), Type.Null()]), end: Type.Union([Type.String(), Type.Null()]), instant: Type.Union([Type.String(), Type.Null()]) },
        { description: "Fact views: the context's period." },
      ),
    ),
    dimensions: Type.Optional(
      Type.Array(Type.Object({}, { additionalProperties: true }), {
        description: "Fact views: the context's dimensions as reported ({container, type, dimension, member} or typed {…, value}); empty when it has none.",
      }),
    ),
  }),
  paging: "local",
  deadlineMs: 40_000,
  // Identical requests within this are answered from Quarry's answer cache, free (docs/providers.md, "Answer cache").
  cacheTtlMs: DAY,
  cost: free("Free: SEC EDGAR is public data; searches and every record action cost 0 credits."),
  rules: [oneCompany, tickerNamesOneFiler, validDate("filed_from"), validDate("filed_to"), range("filed_from", "filed_to"), factViewsNeedAccession],
  sources: [
    {
      id: "edgar",
      title: "SEC EDGAR",
      // SEC_USER_AGENT, the contact EDGAR requires, is the provider's "key" (src/providers.ts).
      providers: ["sec"],
      async search(ctx, query) {
        const company = query.company as { cik?: string; ticker?: string };
        const named = company.cik !== undefined ? "/company/cik" : "/company/ticker";
        const cik = await resolveCik(ctx, company);
        if (!isFactView(query.view)) {
          const filter = {
            ...(query.forms === undefined ? {} : { forms: query.forms }),
            ...(query.filed_from === undefined ? {} : { filedFrom: query.filed_from }),
            ...(query.filed_to === undefined ? {} : { filedTo: query.filed_to }),
            ...(query.accession === undefined ? {} : { accession: query.accession }),
          };
          return listFilings(ctx, cik, filter, named);
        }
        const ignored = (["forms", "filed_from", "filed_to"] as const).filter((f) => query[f] !== undefined);
        const notes = ignored.length === 0 ? [] : [`${ignored.map((f) => `\`${f}\``).join(", ")} select filings and do not apply to view "${query.view}".`];
        return factView(ctx, cik, query.accession!, query.view, notes);
      },
    },
  ],
  update: { example: { title: "Only the annual reports (10-K)", params: { forms: ["10-K"] } } },
  actions: {
    details: {
      description: "Filing identity and source links (primary document, filing index, directory); on a fact record, the whole fact with its filing's links. Stored, free.",
      mode: "stored",
    },
    financials: {
      description:
        "The filing's reported facts (at most 100, in document order) with fact_count, truncated, a typed continuation listing them all, the instance's content_sha256 and retrieved_at. Free; fetched once, then cached.",
      mode: "fetched",
      needs: needsFiling,
      appliesTo: hasFacts,
      run: (ctx, record) => factAction(ctx, record, "financials"),
    },
    revenue_breakdown: {
      description:
        "The filing's revenue facts (at most 100) with the dimensions each was reported with, grouped whole-company, segment, geographic, product; never summed. Free; fetched once, then cached.",
      mode: "fetched",
      needs: needsFiling,
      appliesTo: hasFacts,
      run: (ctx, record) => factAction(ctx, record, "revenue_breakdown"),
    },
  },
  // Fact records: the fact's other fields are in the record's ref, what its page shares in the page's source.
  detailFromSource: { ref: factRef, map: (source, record) => factDetails(source, record.summary, record.ref) },
  examples: [
    { title: "Apple's filings, newest first", body: { company: { ticker: "AAPL" } } },
    {
      title: "Every reported fact of Netflix's 10-Q for the quarter to 2010-09-30",
      body: { company: { cik: "1065280" }, view: "financials", accession: "0001193125-10-235785" },
    },
    {
      title: "Revenue of that 10-Q as reported, by its actual dimensions",
      body: { company: { ticker: "NFLX" }, view: "revenue_breakdown", accession: "0001193125-10-235785" },
    },
    {
      title: "Apple's annual reports filed 2009-2011 (from EDGAR's older filing pages)",
      body: { company: { cik: "320193" }, forms: ["10-K", "10-K/A"], filed_from: "2009-01-01", filed_to: "2011-12-31" },
    },
  ],
});

