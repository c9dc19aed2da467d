/**
 * The requests companies.financials makes, glued to the pure mappers (edgar.ts, facts.ts) and the
 * extraction pool: resolving a ticker, listing a company's filings (recent and, when the dates or
 * the accession need them, older pages), and reading one filing's XBRL instance and labels.
 */
import { ApiError, invalidRequest } from "../../errors.ts";
import type { CapabilityContext, JsonObject, Link, SourcePage } from "../types.ts";
import {
  chooseDocuments,
  cik10,
  documentRequest,
  documentUrl,
  type Filer,
  type FilingFilter,
  type FilingRow,
  filingIndexRequest,
  filingRecord,
  matches,
  olderPagesFor,
  olderSubmissionsRequest,
  parseOlderPage,
  parseSubmissions,
  parseTickers,
  submissionsRequest,
  tickersRequest,
} from "./edgar.ts";
import type { FactView, FilingRef } from "./facts.ts";
import { extractOffLoop } from "./xbrl-pool.ts";

/** The tickers file is kept this long in the process's bounded cache (EDGAR updates it daily at most). */
const TICKERS_TTL_MS = 12 * 3600 * 1000;

/** Older pages of a company's filing history read in one call at most (each is one paced request). */
export const MAX_OLDER_PAGES = 3;

export type Company = { cik?: string; ticker?: string };

/** The CIK (ten digits) a request names: its `cik`, or the one filer EDGAR's tickers file lists for its ticker. */
export async function resolveCik(ctx: CapabilityContext<unknown>, company: Company): Promise<string> {
  if (company.cik !== undefined) return cik10(company.cik);
  const ticker = (company.ticker ?? "").toUpperCase();
  const tickers = await ctx.cache.getOrLoad("sec-edgar", "company_tickers", { ttlMs: TICKERS_TTL_MS }, async () => {
    const response = await ctx.upstream.send(tickersRequest(), ctx.signal);
    return parseTickers(response.body);
  });
  const filers: Filer[] = tickers.get(ticker) ?? [];
  if (filers.length === 1) return filers[0]!.cik;
  const message =
    filers.length === 0
      ? `"${company.ticker}" is not in EDGAR's ticker list; give the company's CIK as company.cik instead (EDGAR's company search finds it).`
      : `"${company.ticker}" names ${filers.length} filers in EDGAR's ticker list (${filers.map((f) => `CIK ${f.cik}${f.title ? ` ${f.title}` : ""}`).join("; ")}); give the one you mean as company.cik.`;
  throw invalidRequest([{ path: "/company/ticker", message }], "The ticker does not identify exactly one filer; use the CIK.");
}

/** The filings view: the company's filings that pass the filter, newest first, as records. */
export async function listFilings(ctx: CapabilityContext<unknown>, cik: string, filter: FilingFilter, named: "/company/cik" | "/company/ticker"): Promise<SourcePage> {
  const response = await ctx.upstream.send(submissionsRequest(cik), ctx.signal);
  if (response.status === 404) {
    throw invalidRequest([{ path: named, message: `EDGAR has no filer with CIK ${cik}.` }], "No such filer.");
  }
  const subs = parseSubmissions(response.body);
  const rows: FilingRow[] = subs.recent.filter((r) => matches(r, filter));
  const notes: string[] = [];
  const pages = olderPagesFor(subs, filter);
  for (const page of pages.slice(0, MAX_OLDER_PAGES)) {
    const older = await ctx.upstream.send(olderSubmissionsRequest(page.name), ctx.signal);
    const seen = new Set(rows.map((r) => r.accession));
    rows.push(...parseOlderPage(older.body).filter((r) => matches(r, filter) && !seen.has(r.accession)));
  }
  if (pages.length > 0) {
    const read = pages.slice(0, MAX_OLDER_PAGES).map((p) => `${p.name} (${p.from ?? "?"} to ${p.to ?? "?"})`);
    notes.push(`Also read ${read.length} older page(s) of EDGAR's filing history: ${read.join(", ")}.`);
  }
  if (pages.length > MAX_OLDER_PAGES) {
    notes.push(`${pages.length - MAX_OLDER_PAGES} more older page(s) overlap the dates and were not read; narrow filed_from/filed_to to reach them.`);
  }
  if (pages.length === 0 && subs.older.length > 0 && filter.accession === undefined) {
    const oldest = subs.recent.at(-1)?.filedAt;
    notes.push(`Filings before ${oldest ?? "the recent ones"} are in older pages of EDGAR's history: set filed_from earlier to include them.`);
  }
  rows.sort((a, b) => (a.filedAt < b.filedAt ? 1 : a.filedAt > b.filedAt ? -1 : 0));
  return { records: rows.map((r) => filingRecord(r, cik, subs.issuer)), next: null, ...(notes.length > 0 ? { notes } : {}) };
}

/** A filing's documents as read, and how to name them. */
interface FilingDocuments {
  instance: string;
  labels: string | null;
  ref: FilingRef;
}

/**
 * Read one filing's documents: its directory listing, then its instance and label linkbase.
 * `pointer` says which field named the filing (the request's `/accession`, or the record acted
 * on): a filing EDGAR does not have, or one without XBRL, is refused there.
 */
async function readFiling(ctx: CapabilityContext<unknown>, cik: string, accession: string, pointer: "/accession" | "/record_id"): Promise<FilingDocuments> {
  const index = await ctx.upstream.send(filingIndexRequest(cik, accession), ctx.signal);
  if (index.status === 404) {
    if (pointer === "/record_id") throw new ApiError("provider_error", `EDGAR lists filing ${accession} for CIK ${cik} but has no directory for it.`);
    throw invalidRequest(
      [{ path: pointer, message: `EDGAR has no filing ${accession} under CIK ${cik}; list the company's filings (view "filings") for its accession numbers.` }],
      "No such filing for this company.",
    );
  }
  const docs = chooseDocuments(index.body);
  if (docs === null) {
    throw invalidRequest(
      [{ path: pointer, message: `Filing ${accession} has no XBRL instance, so it has no reported facts to read (EDGAR filings carry XBRL financial data from 2009 on, and only some forms do).` }],
      "This filing has no XBRL financial data.",
    );
  }
  const [instance, labels] = await Promise.all([
    ctx.upstream.send(documentRequest(cik, accession, docs.instance), ctx.signal),
    docs.labels === null ? Promise.resolve(null) : ctx.upstream.send(documentRequest(cik, accession, docs.labels), ctx.signal),
  ]);
  const ref: FilingRef = {
    cik,
    accession,
    instanceUrl: documentUrl(cik, accession, docs.instance),
    labelsUrl: docs.labels === null ? null : documentUrl(cik, accession, docs.labels),
    retrievedAt: ctx.now().toISOString(),
  };
  return { instance: instance.body, labels: labels?.body ?? null, ref };
}

/** A fact view of the filing `accession` names: every fact of the view as a record (local paging). */
export async function factView(ctx: CapabilityContext<unknown>, cik: string, accession: string, view: FactView, notes: string[]): Promise<SourcePage> {
  const filing = await readFiling(ctx, cik, accession, "/accession");
  const page = await extractOffLoop({ ...filing, view, output: "records" }, ctx.signal);
  return { records: page.records, next: null, notes: [...notes, ...page.notes], source: page.source };
}

/** The `financials` / `revenue_breakdown` detail of a record's filing. */
export async function factDetailOf(ctx: CapabilityContext<unknown>, cik: string, accession: string, view: FactView): Promise<{ detail: JsonObject; links: Link[] }> {
  const filing = await readFiling(ctx, cik, accession, "/record_id");
  return extractOffLoop({ ...filing, view, output: "detail" }, ctx.signal);
}
